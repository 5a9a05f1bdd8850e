import type { SqliteConnection } from './client.js';

type Decode = (v: unknown) => unknown;
const asNumber: Decode = (v) => (typeof v === 'bigint' ? Number(v) : v);
/** SQLite's declared column types, as Prisma's SQLite schema writes them, to the values Prisma returns. */
const SQLITE_DECODERS: Record<string, Decode> = {
  BIGINT: (v) => (typeof v === 'number' ? BigInt(v) : v),
  INTEGER: asNumber,
  REAL: asNumber,
  TEXT: (v) => v,
  BOOLEAN: (v) => (v === null ? null : Number(v) !== 0),
  // stored as ISO 8601 text ('…+00:00') by Prisma, or epoch milliseconds by other writers
  DATETIME: (v) => (v === null ? null : new Date(typeof v === 'string' ? v : Number(v))),
  JSONB: (v) => (typeof v === 'string' ? JSON.parse(v) : v),
};

/** A parameter as Prisma's libsql adapter binds it: dates as ISO text with `+00:00`, booleans as 0/1. */
function sqliteParam(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().replace('Z', '+00:00');
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

interface SqlitePrepared {
  stmt: ReturnType<SqliteConnection['prepare']>;
  names: string[];
  decode: Decode[];
}

/**
 * Db.read on SQLite: each statement prepared once on the driver's connection and kept (up to
 * `cacheSize` of them, then the cache starts over), its rows decoded to what Prisma returns.
 */
export function sqliteReader(connection: () => SqliteConnection, cacheSize: number) {
  const cache = new Map<string, SqlitePrepared>();
  const prepare = (sql: string): SqlitePrepared => {
    let p = cache.get(sql);
    if (!p) {
      if (cache.size >= cacheSize) cache.clear();
      const stmt = connection().prepare(sql.replace(/\$(\d+)/g, '?$1'));
      stmt.raw(true);
      // 64-bit columns (nanosecond timestamps) come back exact; the decoders narrow the rest
      stmt.safeIntegers(true);
      const columns = stmt.columns() as { name: string; type: string | null }[];
      p = { stmt, names: columns.map((c) => c.name), decode: columns.map((c) => SQLITE_DECODERS[c.type?.toUpperCase() ?? ''] ?? asNumber) };
      cache.set(sql, p);
    }
    return p;
  };
  return {
    async read(sql: string, params: readonly unknown[]) {
      const { stmt, names, decode } = prepare(sql);
      const rows = (stmt.all as (...args: unknown[]) => unknown[][])(...params.map(sqliteParam));
      const out = new Array<Record<string, unknown>>(rows.length);
      for (let r = 0; r < rows.length; r++) {
        const raw = rows[r]!;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = decode[i]!(raw[i]);
        out[r] = row;
      }
      return out;
    },
    clear: () => cache.clear(),
  };
}
