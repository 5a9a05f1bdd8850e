import type { Db } from './client.js';
import { chooseColumns, type BulkOptions, type Row, type UpsertOptions, type UpsertResult } from './bulk/columns.js';
import { insertPostgres, upsertPostgres, vacuumAnalyze } from './bulk/postgres.js';

/**
 * Bulk inserts straight through the driver: Prisma's createMany costs ~0.2 ms a row here (about
 * 5,000 rows/s), which makes a 30k-trade sample take seconds and 10M trades take hours. Here:
 * one `INSERT ... SELECT FROM unnest($1::type[], ...)` per 5,000 rows, inside one transaction
 * (db/bulk/postgres.ts).
 *
 * Values are written the way Prisma writes them, so Prisma reads them back unchanged. A row that
 * leaves out a field with a database default gets it (DateTime defaults and @updatedAt get the
 * current time, as Prisma would set them).
 */
export async function bulkInsert(db: Db, model: string, rows: Row[], options: BulkOptions = {}): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = chooseColumns(model, rows[0]!);
  const now = new Date();
  return insertPostgres(db.driver.pool, model, columns, rows, now, options);
}

/**
 * Inserts the rows whose key (`keyColumns`, a primary or unique key) is new, updates the stored
 * rows whose values differ, leaves equal ones alone, all in one transaction; the counts are exact.
 * The rows' keys must be distinct. Columns are those the first row sets (as bulkInsert); an
 * update leaves a DateTime default column (createdAt) alone and sets @updatedAt columns to now.
 *
 * The stored keys are looked up first; new rows go in by COPY, stored ones through `INSERT ... ON
 * CONFLICT DO UPDATE ... WHERE ... IS DISTINCT FROM ... RETURNING (xmax = 0)` (see upsertPostgres).
 * Key columns are text or integers (they are matched by their text). `options.within` runs in the
 * same transaction once the rows are written, for what is derived from them (services/bar-write.ts),
 * and is told which rows were inserted and which updated, with what they replaced.
 */
export async function bulkUpsert(
  db: Db,
  model: string,
  keyColumns: readonly string[],
  rows: Row[],
  options: UpsertOptions = {},
): Promise<UpsertResult> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0, wasInserted: [], replaced: [] };
  const columns = chooseColumns(model, rows[0]!);
  for (const k of keyColumns) {
    if (!columns.some((c) => c.name === k)) throw new Error(`bulkUpsert: ${model} rows must set the key column ${k}`);
  }
  const now = new Date();
  return upsertPostgres(db.driver.pool, model, columns, keyColumns, rows, now, options);
}

/**
 * After a bulk load: `VACUUM (ANALYZE)` of `tables`, so the planner has row counts
 * at once (without them it planned a 50,000-row search count as a bitmap heap scan: 28 ms instead
 * of 9) and index-only scans need not visit the heap. Autovacuum would do it within minutes; a
 * seed is queried right away.
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  await vacuumAnalyze(db.driver.pool, tables);
}
