import type { SqliteConnection } from '../client.js';
import { compared, quoteName as q, updatable, withDefault, type BulkOptions, type Column, type Row, type UpsertResult } from './columns.js';
import type { SqliteWriterThread } from './writer-thread.js';

/**
 * The SQLite dialect of db/bulk.ts. Values are written the way Prisma writes them, so Prisma reads
 * them back unchanged: DateTime as ISO text with `+00:00`, Json as text, Boolean as 0/1.
 */
function sqliteValue(c: Column, value: unknown, now: Date): unknown {
  const v = withDefault(c, value, now);
  if (v === null) return null;
  switch (c.type) {
    case 'DateTime':
      return (v instanceof Date ? v : new Date(v as string)).toISOString().replace('Z', '+00:00');
    case 'Json':
      return JSON.stringify(v);
    case 'Boolean':
      return v ? 1 : 0;
    case 'BigInt':
      return typeof v === 'bigint' ? v : BigInt(v as number | string);
    default:
      return v;
  }
}

/** sqliteValue for one column, chosen once per batch: the common types skip the generic path. */
function sqliteEncoder(c: Column, now: Date): (v: unknown) => unknown {
  switch (c.type) {
    case 'Int':
    case 'Float':
    case 'String':
      return (v) => (v === undefined ? null : v);
    case 'BigInt':
      return (v) => (typeof v === 'bigint' ? v : v === undefined || v === null ? null : BigInt(v as number | string));
    case 'Json':
      return (v) => (v === undefined || v === null ? null : JSON.stringify(v));
    default:
      return (v) => sqliteValue(c, v, now);
  }
}

/** One prepared statement run per row inside one transaction, on the Db's own connection. */
export function insertSqlite(conn: SqliteConnection, model: string, columns: Column[], rows: Row[], now: Date, options: BulkOptions): number {
  const verb = options.skipDuplicates ? 'INSERT OR IGNORE' : 'INSERT';
  const stmt = conn.prepare(
    `${verb} INTO "${model}" (${columns.map((c) => `"${c.name}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  let written = 0;
  const values: unknown[] = new Array(columns.length);
  conn.transaction(() => {
    for (const row of rows) {
      for (let i = 0; i < columns.length; i++) values[i] = sqliteValue(columns[i]!, row[columns[i]!.name], now);
      written += stmt.run(...values).changes;
    }
  }).immediate();
  return written;
}

/** The file behind a connection, for the writer thread to open its own. */
const files = new WeakMap<object, string>();
function fileOf(conn: SqliteConnection): string {
  let file = files.get(conn);
  if (file === undefined) {
    const main = (conn.prepare('PRAGMA database_list').all() as { name: string; file: string }[]).find((d) => d.name === 'main');
    if (!main?.file) throw new Error('bulkUpsert: the SQLite database has no file (in-memory databases are not supported)');
    files.set(conn, (file = main.file));
  }
  return file;
}

/**
 * Per row, one prepared `INSERT ... ON CONFLICT DO NOTHING`, and when that changed nothing a
 * prepared `UPDATE ... WHERE <key> AND <some value differs>`; `changes` tells the three cases
 * apart, and a fresh load costs what a plain insert costs. It runs on the Db's writer thread
 * (sqlite-writer.cjs), so the caller can prepare its next batch meanwhile.
 */
export async function upsertSqlite(
  conn: SqliteConnection, writer: SqliteWriterThread, model: string, columns: Column[], keyColumns: readonly string[], rows: Row[], now: Date,
): Promise<UpsertResult> {
  const keys = keyColumns.map((k) => columns.find((c) => c.name === k)!);
  const sets = columns.filter((c) => updatable(c, keyColumns));
  const diffs = columns.filter((c) => compared(c, keyColumns));
  const index = new Map(columns.map((c, i) => [c.name, i]));
  const encoders = columns.map((c) => sqliteEncoder(c, now));
  const names = columns.map((c) => c.name);
  const width = columns.length;
  const values: unknown[] = new Array(rows.length * width);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let i = 0; i < width; i++) values[r * width + i] = encoders[i]!(row[names[i]!]);
  }
  const reply = await writer.run({
    file: fileOf(conn),
    insertSql:
      `INSERT INTO ${q(model)} (${columns.map((c) => q(c.name)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${keys.map((c) => q(c.name)).join(', ')}) DO NOTHING`,
    updateSql: sets.length
      ? `UPDATE ${q(model)} SET ${sets.map((c) => `${q(c.name)} = ?`).join(', ')} ` +
        `WHERE ${keys.map((c) => `${q(c.name)} = ?`).join(' AND ')} AND (${diffs.map((c) => `${q(c.name)} IS NOT ?`).join(' OR ') || 'FALSE'})`
      : undefined,
    width,
    setAt: sets.map((c) => index.get(c.name)!),
    keyAt: keys.map((c) => index.get(c.name)!),
    diffAt: diffs.map((c) => index.get(c.name)!),
    values,
  });
  return { inserted: reply.inserted, updated: reply.updated, unchanged: reply.unchanged, wasInserted: Array.from(reply.wasInserted, (x) => x === 1) };
}
