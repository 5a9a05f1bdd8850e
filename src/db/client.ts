import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Libsql from 'libsql';
import type { Client, ClientConfig, Pool, QueryConfig } from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { PrismaClient } from '../../generated/prisma/client.js';

export type SqliteConnection = Libsql.Database;

/**
 * A Prisma client for the configured database. App code is typed against the SQLite client, which
 * keeps it inside the subset both databases share; the PostgreSQL client (generated from the
 * derived schema) is the same API at run time.
 */
export interface Db {
  prisma: PrismaClient;
  kind: DatabaseConfig['kind'];
  /**
   * The driver under Prisma, for the few paths where Prisma's per-row cost matters (bulk loads).
   * PostgreSQL: the very pool Prisma uses, and Db.read's own pipelined connections (`reads`).
   * SQLite: a connection of its own to the same file.
   */
  driver: { kind: 'sqlite'; connection(): SqliteConnection } | { kind: 'postgresql'; pool: Pool; reads: ConnectionCounts };
  /** SQL statements sent through Prisma since this client was created; tests and benchmarks read it. */
  readonly statementCount: number;
  /** Subscribe to every SQL statement sent through Prisma (returns an unsubscribe function). */
  onStatement(listener: (sql: string) => void): () => void;
  /**
   * One read statement straight on the driver, for the hot read paths (company page, keyset pages,
   * search): `sql` uses `$1, $2, ...` placeholders and is prepared once per connection and kept
   * (SQLite: a statement cache on the driver's connection; PostgreSQL: a named statement), where
   * Prisma prepares and plans it again on every call. Rows come back as Prisma returns them:
   * DateTime as Date, BigInt as bigint, Int as number, Boolean as boolean, Json parsed. Counted in
   * `statementCount` and `onStatement` like Prisma's own. `sql` must be a code constant (or built
   * from them): every value is a bound parameter.
   */
  read<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * Whether text compares by code point (SQLite; PostgreSQL with a C, POSIX or C.UTF-8 database
   * collation), so that the strings starting with a prefix are exactly a range of the index.
   * Asked once, on first use.
   */
  codepointTextOrder(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createDb(database: DatabaseConfig): Promise<Db> {
  const log = [{ emit: 'event' as const, level: 'query' as const }];
  let prisma: PrismaClient;
  let driver: Db['driver'];
  let closeDriver: () => Promise<void>;
  let read: (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;
  if (database.kind === 'postgresql') {
    const [{ PrismaClient: PgClient }, { PrismaPg }, { default: pg }] = await Promise.all([
      import('../../generated/prisma-pg/client.js'),
      import('@prisma/adapter-pg'),
      import('pg'),
    ]);
    const pool = new pg.Pool({
      connectionString: database.url,
      max: 10,
      connectionTimeoutMillis: 5_000,
      // search_path too, so raw SQL finds the tables of a non-default schema as generated queries do
      options: `-c search_path="${database.schema}"`,
    });
    // An idle client losing its server (a restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Db.read's own connections, pipelined. Its statements are prepared once per connection and
    // keep one (generic) plan: under the default plan_cache_mode PostgreSQL re-planned some on
    // every execution (the per-symbol LATERAL page: 690 µs of server CPU per call, 150 µs with
    // its plan kept). Prisma's one-shot statements stay on the pool, planned for their parameters.
    const reads = pipelinedConnections(
      () =>
        new pg.Client({
          connectionString: database.url,
          connectionTimeoutMillis: 5_000,
          options: `-c search_path="${database.schema}" -c plan_cache_mode=force_generic_plan`,
          pipeline: true,
        } as ClientConfig),
      READ_CONNECTIONS,
    );
    prisma = new PgClient({ adapter: new PrismaPg(pool, { schema: database.schema }), log }) as unknown as PrismaClient;
    driver = { kind: 'postgresql', pool, reads: reads.counts };
    closeDriver = async () => {
      await Promise.all([pool.end(), reads.end()]);
    };
    read = pgReader(reads.query, pg.types);
  } else {
    const [{ PrismaClient: SqliteClient }, { PrismaLibSql }, { default: Database }] = await Promise.all([
      import('../../generated/prisma/client.js'),
      import('@prisma/adapter-libsql'),
      import('libsql'),
    ]);
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    // timeout: wait up to 10 s for another process's write lock (an import, a migration) instead
    // of failing at once; libsql applies it to every connection it opens and enforces foreign keys.
    // intMode bigint: 64-bit columns (nanosecond timestamps) would otherwise fail to read.
    prisma = new SqliteClient({ adapter: new PrismaLibSql({ url: database.url, timeout: 10_000, intMode: 'bigint' }), log });
    let conn: SqliteConnection | undefined;
    driver = {
      kind: 'sqlite',
      connection: () => (conn ??= new Database(database.file, { timeout: 10_000 })),
    };
    const reader = sqliteReader(() => (driver as { connection(): SqliteConnection }).connection());
    read = reader.read;
    closeDriver = async () => {
      reader.clear();
      conn?.close();
    };
  }

  let textOrder: Promise<boolean> | undefined;
  let statementCount = 0;
  const listeners = new Set<(sql: string) => void>();
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) => {
    statementCount++;
    for (const l of listeners) l(ev.query);
  });

  return {
    prisma,
    kind: database.kind,
    driver,
    get statementCount() {
      return statementCount;
    },
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    codepointTextOrder() {
      if (driver.kind === 'sqlite') return Promise.resolve(true);
      const pool = driver.pool;
      textOrder ??= pool.query<{ c: string }>('SELECT datcollate AS c FROM pg_database WHERE datname = current_database()').then(
        (r) => /^(C|POSIX|C\.UTF-?8)$/i.test(r.rows[0]?.c ?? ''),
        (e: unknown) => {
          textOrder = undefined; // asked again next time: the server may be back
          throw e;
        },
      );
      return textOrder;
    },
    read<Row>(sql: string, params: readonly unknown[] = []) {
      statementCount++;
      for (const l of listeners) l(sql);
      return read(sql, params) as Promise<Row[]>;
    },
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}

// ------------------------------------------------------------------ Db.read on each driver

/** Prepared statements kept per connection; past this many (dynamic SQL) the cache starts over. */
const STATEMENT_CACHE_SIZE = 500;

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

function sqliteReader(connection: () => SqliteConnection) {
  const cache = new Map<string, SqlitePrepared>();
  const prepare = (sql: string): SqlitePrepared => {
    let p = cache.get(sql);
    if (!p) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
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

/**
 * A parameter as PostgreSQL should see it: Prisma's DateTime columns are `timestamp(3)` holding
 * UTC, so a date goes as UTC text without a zone (pg would send local time); bigints as text.
 */
function pgParam(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().slice(0, -1);
  if (typeof v === 'bigint') return v.toString();
  return v;
}

/** Open connections, the idle among them, and queries waiting for one to connect. */
export interface ConnectionCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/**
 * How many pipelined connections Db.read keeps. Side by side with a pool of 10 (bench: the six
 * statements of a company page, 10 pages at a time), pipelining on 2 or 4 connections took half
 * the client CPU (0.75 -> 0.35 ms a page) and half the server CPU (0.6 -> 0.3 ms); 4 rather than 2
 * so one long read (a 5000-row page) holds up fewer of the others.
 */
const READ_CONNECTIONS = 4;
/** A read connection unused this long is closed (as pg's pool does), so an app that is not closed does not hold them. */
const READ_IDLE_MS = 10_000;

/**
 * Up to `size` PostgreSQL clients in pg's pipeline mode: a client sends each query as it comes,
 * without waiting for the one before (each with its own Sync, so a failing statement fails only
 * itself), and the server answers them in order. A query goes to the least busy open connection,
 * or opens another while every open one is busy. A connection that errors or ends is dropped (its
 * queries fail with pg's connection error, which isDatabaseUnavailable reads as a 503) and the
 * next query opens a new one, so reads come back with the server.
 */
function pipelinedConnections(make: () => Client, size: number) {
  interface Slot {
    ready: Promise<Client>;
    pending: number;
    idle?: NodeJS.Timeout;
  }
  const slots: (Slot | undefined)[] = new Array(size).fill(undefined);
  let closed = false;
  let waiting = 0;

  const open = (i: number): Slot => {
    const client = make();
    const slot: Slot = { pending: 0, ready: client.connect().then(() => client) };
    const drop = () => {
      if (slots[i] === slot) slots[i] = undefined;
      if (slot.idle) clearTimeout(slot.idle);
    };
    client.on('error', drop);
    client.on('end', drop);
    slot.ready.catch(() => {
      drop();
      void client.end().catch(() => {});
    });
    slots[i] = slot;
    return slot;
  };

  const pick = (): Slot => {
    let best: Slot | undefined;
    let empty = -1;
    for (let i = 0; i < size; i++) {
      const slot = slots[i];
      if (!slot) {
        if (empty < 0) empty = i;
      } else if (!best || slot.pending < best.pending) best = slot;
    }
    if (best && (best.pending === 0 || empty < 0)) return best;
    return open(empty);
  };

  return {
    async query(config: QueryConfig): Promise<{ rows: unknown[] }> {
      if (closed) throw new Error('Client was closed and is not queryable');
      const slot = pick();
      if (slot.idle) slot.idle = void clearTimeout(slot.idle);
      slot.pending++;
      try {
        let client: Client;
        waiting++;
        try {
          client = await slot.ready;
        } finally {
          waiting--;
        }
        return await client.query(config);
      } finally {
        if (--slot.pending === 0 && !closed) {
          slot.idle = setTimeout(() => {
            if (slot.pending > 0) return;
            const i = slots.indexOf(slot);
            if (i >= 0) slots[i] = undefined;
            void slot.ready.then((c) => c.end()).catch(() => {});
          }, READ_IDLE_MS).unref();
        }
      }
    },
    counts: {
      get totalCount() {
        return slots.filter(Boolean).length;
      },
      get idleCount() {
        return slots.filter((s) => s && s.pending === 0).length;
      },
      get waitingCount() {
        return waiting;
      },
    } satisfies ConnectionCounts,
    async end(): Promise<void> {
      closed = true;
      const open = slots.filter((s): s is Slot => s !== undefined);
      slots.fill(undefined);
      await Promise.all(
        open.map((s) => {
          if (s.idle) clearTimeout(s.idle);
          return s.ready.then((c) => c.end(), () => {});
        }),
      );
    },
  };
}

const parseInt8 = (v: string) => BigInt(v);
/** Prisma's DateTime columns are `timestamp(3)` holding UTC. */
const parseTimestamp = (v: string) => new Date(`${v.replace(' ', 'T')}Z`);

function pgReader(query: (config: QueryConfig) => Promise<{ rows: unknown[] }>, types: typeof import('pg').types) {
  const INT8 = 20;
  const TIMESTAMP = 1114;
  const parsers = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8) return parseInt8;
      if (oid === TIMESTAMP) return parseTimestamp;
      return types.getTypeParser(oid, format as 'text');
    },
  };
  const names = new Map<string, string>();
  return async (sql: string, params: readonly unknown[]) => {
    let name = names.get(sql);
    if (!name) {
      if (names.size >= STATEMENT_CACHE_SIZE) names.clear();
      // the same text always gets the same name, so a connection that prepared it reuses it
      name = `r_${createHash('sha1').update(sql).digest('base64url').slice(0, 20)}`;
      names.set(sql, name);
    }
    const result = await query({ name, text: sql, values: params.map(pgParam), types: parsers as never });
    return result.rows as Record<string, unknown>[];
  };
}

/** Prisma's codes for "cannot reach the database" (P1xxx) and "no connection to be had" (pool time-out, too many connections). */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** What a driver adapter reports (DriverAdapterError `kind`) when the server is away or out of connections; libsql maps SQLITE_BUSY to SocketTimeout. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE', 'SQLITE_BUSY']);
/** PostgreSQL SQLSTATEs: admin/crash shutdown, starting up (57P0x), class 08 connection exceptions, too many connections. */
const UNAVAILABLE_SQLSTATE = /^(57P0[1-3]|08...|53300)$/;
/** pg's own errors carry no code: a connection lost mid-query, a pool that cannot connect in time. */
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|database is locked/;

/**
 * True when `error` (or what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter
 * error) says the database could not be reached, rather than that the query was wrong. Such a
 * request is answered 503 DATABASE_UNAVAILABLE, and the same request succeeds once the database is
 * back: the pg pool opens fresh connections, and libsql waits for its lock again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length) {
    const e = pending.pop();
    if (!e || typeof e !== 'object' || seen.has(e) || seen.size > 10) continue;
    seen.add(e);
    const { code, kind, message, cause, originalError, meta } = e as {
      code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: { cause?: unknown } };
    };
    if (typeof code === 'string' && (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    pending.push(cause, originalError, meta?.driverAdapterError, meta?.driverAdapterError?.cause);
  }
  return false;
}
