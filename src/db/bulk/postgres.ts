import type { Pool, PoolClient } from 'pg';
import {
  compared,
  quoteName as q,
  updatable,
  withDefault,
  type BulkOptions,
  type Column,
  type Row,
  type UpsertOptions,
  type UpsertResult,
} from './columns.js';

/**
 * The PostgreSQL dialect of db/bulk.ts, on the pool under Prisma. Columns are typed, so values go
 * as their types' text: DateTime as UTC without a zone (timestamp(3), as Prisma writes it).
 */
const PG_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Float: 'float8',
  Boolean: 'bool',
  DateTime: 'timestamp(3)',
  Json: 'jsonb',
};

function pgValue(c: Column, value: unknown, now: Date): unknown {
  const v = withDefault(c, value, now);
  if (v === null) return null;
  switch (c.type) {
    case 'DateTime':
      // timestamp(3) without time zone holds UTC, as Prisma writes it
      return (v instanceof Date ? v : new Date(v as string)).toISOString().replace('Z', '');
    case 'Json':
      return JSON.stringify(v);
    case 'BigInt':
      return String(v);
    default:
      return v;
  }
}

const PG_CHUNK = 5_000;

/** One `INSERT ... SELECT FROM unnest($1::type[], ...)` per 5,000 rows, inside one transaction. */
export async function insertPostgres(
  pool: Pool,
  model: string,
  columns: Column[],
  rows: Row[],
  now: Date,
  options: BulkOptions,
): Promise<number> {
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const arrays = columns.map((c, i) => `$${i + 1}::${c.kind === 'enum' ? 'text' : PG_TYPES[c.type]}[]`).join(', ');
  const selects = columns.map((c, i) => (c.kind === 'enum' ? `u.c${i}::"${c.type}"` : `u.c${i}`)).join(', ');
  const aliases = columns.map((_, i) => `c${i}`).join(', ');
  const conflict = options.skipDuplicates ? ' ON CONFLICT DO NOTHING' : '';
  const sql = `INSERT INTO "${model}" (${names}) SELECT ${selects} FROM unnest(${arrays}) AS u(${aliases})${conflict}`;

  const client = await pool.connect();
  let written = 0;
  try {
    await client.query('BEGIN');
    for (let start = 0; start < rows.length; start += PG_CHUNK) {
      const chunk = rows.slice(start, start + PG_CHUNK);
      const params = columns.map((c) => chunk.map((r) => pgValue(c, r[c.name], now)));
      written += (await client.query(sql, params)).rowCount ?? 0;
    }
    // explicit ids leave a serial sequence behind; move it past them so later inserts do not collide
    const serial = columns.find((c) => c.name === 'id' && c.type === 'Int' && c.hasDefault);
    if (serial) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('"${model}"', 'id'), GREATEST((SELECT MAX(id) FROM "${model}"), 1))`,
      );
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
  return written;
}

/** One element of a PostgreSQL array literal (`{...}`), as a parameter of `unnest($1::type[])`. */
function pgArrayElement(c: Column, value: unknown, now: Date): string {
  const v = pgValue(c, value, now);
  if (v === null) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return `"${String(v).replace(/["\\]/g, '\\$&')}"`;
}

/**
 * A whole column as one array literal. pg would serialize a JS array element by element with a
 * regular expression each (~4 s per million rows of trades); one join is a few times faster.
 */
function pgArray(c: Column, rows: Row[], now: Date): string {
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) parts[i] = pgArrayElement(c, rows[i]![c.name], now);
  return `{${parts.join(',')}}`;
}

/** COPY's text format escapes backslash, tab, newline and carriage return; `\N` is NULL. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const copyEscape = (s: string) =>
  COPY_SPECIAL.test(s)
    ? s.replace(/[\\\t\n\r]/g, (m) => (m === '\\' ? '\\\\' : m === '\t' ? '\\t' : m === '\n' ? '\\n' : '\\r'))
    : s;

/** Per column, the function from a row's value to its COPY text field, chosen once per batch. */
function copyEncoder(c: Column, now: Date): (v: unknown) => string {
  const fallback = (v: unknown) => {
    const x = pgValue(c, v, now);
    return x === null ? '\\N' : typeof x === 'boolean' ? (x ? 't' : 'f') : copyEscape(String(x));
  };
  switch (c.type) {
    case 'Int':
    case 'BigInt':
    case 'Float':
      return (v) => (v === null || v === undefined ? '\\N' : String(v));
    case 'String':
      return (v) => (v === null || v === undefined ? '\\N' : copyEscape(v as string));
    case 'Json':
      return (v) => (v === null || v === undefined ? '\\N' : copyEscape(JSON.stringify(v)));
    default:
      return fallback;
  }
}

const pgType = (c: Column) => (c.kind === 'enum' ? 'text' : PG_TYPES[c.type]!);
const pgSelect = (c: Column, expr: string) => (c.kind === 'enum' ? `${expr}::"${c.type}"` : expr);

/**
 * PostgreSQL: the keys of the batch that exist are looked up in one statement; the new rows go in
 * by COPY (the driver's fastest path, and the bulk of a load), the stored ones through `INSERT ...
 * ON CONFLICT DO UPDATE ... WHERE <values> IS DISTINCT FROM ...`, which returns the rows it wrote
 * (`xmax = 0` tells an insert from an update, with what an update replaced read in the statement's
 * own snapshot, from before it) and skips the equal ones. A concurrent writer that
 * inserts one of the keys in between makes COPY fail on the unique key: the batch then runs again,
 * all of it through ON CONFLICT.
 */
export async function upsertPostgres(
  pool: Pool,
  model: string,
  columns: Column[],
  keyColumns: readonly string[],
  rows: Row[],
  now: Date,
  options: UpsertOptions,
): Promise<UpsertResult> {
  const client = await pool.connect();
  const replaced = options.replaced ?? [];
  try {
    await client.query('BEGIN');
    let result: UpsertResult;
    try {
      result = await upsertByCopy(client, model, columns, keyColumns, rows, now, replaced);
    } catch (e) {
      if ((e as { code?: string }).code !== '23505') throw e;
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      result = await upsertOnConflict(client, model, columns, keyColumns, rows, now, replaced);
    }
    if (options.within) await options.within(client, result);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

const keyText = (values: readonly unknown[]) => values.map(String).join('\u0000');

/**
 * The stored keys among `rows`' keys. Index probes forced by a LATERAL subquery (OFFSET 0 keeps the
 * planner from turning it into a hash join over the whole table, which it prefers once the table
 * is large). When the key ends in an integer (symbol + sequence number), rows sharing the rest of
 * the key are looked up as one range when their numbers are dense: a batch of a feed then costs one
 * probe per symbol instead of one per row.
 */
async function storedKeys(
  client: PoolClient,
  model: string,
  keys: Column[],
  rows: Row[],
  now: Date,
): Promise<Set<string>> {
  const last = keys.at(-1)!;
  const prefix = keys.slice(0, -1);
  let probeColumns: Column[] = keys;
  let probeRows: Row[] = rows;
  let match = keys.map((c, i) => `t.${q(c.name)} = ${pgSelect(c, `r.p${i}`)}`).join(' AND ');
  if (last.type === 'BigInt' || last.type === 'Int') {
    const groups = new Map<string, { row: Row; numbers: bigint[] }>();
    for (const row of rows) {
      const g = keyText(prefix.map((c) => row[c.name]));
      let group = groups.get(g);
      if (!group) groups.set(g, (group = { row, numbers: [] }));
      group.numbers.push(BigInt(row[last.name] as number | bigint));
    }
    probeRows = [];
    for (const { row, numbers } of groups.values()) {
      let lo = numbers[0]!;
      let hi = lo;
      for (const n of numbers) {
        if (n < lo) lo = n;
        if (n > hi) hi = n;
      }
      if (hi - lo < BigInt(numbers.length) * 2n + 64n) probeRows.push({ ...row, lo, hi });
      else for (const n of numbers) probeRows.push({ ...row, lo: n, hi: n });
    }
    const bound = { ...last, isUpdatedAt: false, hasDefault: false };
    probeColumns = [...prefix, { ...bound, name: 'lo' }, { ...bound, name: 'hi' }];
    match = [
      ...prefix.map((c, i) => `t.${q(c.name)} = ${pgSelect(c, `r.p${i}`)}`),
      `t.${q(last.name)} BETWEEN r.p${prefix.length} AND r.p${prefix.length + 1}`,
    ].join(' AND ');
  }
  const result = await client.query<Record<string, string>>({
    text:
      `SELECT ${keys.map((c, i) => `t.${q(c.name)}::text AS k${i}`).join(', ')} ` +
      `FROM unnest(${probeColumns.map((c, i) => `$${i + 1}::${pgType(c)}[]`).join(', ')}) AS r(${probeColumns.map((_, i) => `p${i}`).join(', ')}) ` +
      `CROSS JOIN LATERAL (SELECT ${keys.map((c) => q(c.name)).join(', ')} FROM ${q(model)} t WHERE ${match} OFFSET 0) t`,
    values: probeColumns.map((c) => pgArray(c, probeRows, now)),
  });
  return new Set(result.rows.map((r) => keyText(keys.map((_, i) => r[`k${i}`]))));
}

async function upsertByCopy(
  client: PoolClient,
  model: string,
  columns: Column[],
  keyColumns: readonly string[],
  rows: Row[],
  now: Date,
  replaced: readonly string[],
): Promise<UpsertResult> {
  const keys = keyColumns.map((k) => columns.find((c) => c.name === k)!);
  const existing = await storedKeys(client, model, keys, rows, now);
  const result: UpsertResult = {
    inserted: 0,
    updated: 0,
    unchanged: 0,
    wasInserted: new Array(rows.length),
    replaced: new Array(rows.length),
  };
  const fresh: Row[] = [];
  const stored: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const isNew = existing.size === 0 || !existing.has(keyText(keyColumns.map((k) => rows[i]![k])));
    result.wasInserted[i] = isNew;
    if (isNew) fresh.push(rows[i]!);
    else stored.push(i);
  }

  if (fresh.length) {
    await copyRows(client, model, columns, fresh, now);
    result.inserted = fresh.length;
  }

  if (stored.length) {
    // existing keys: the conflict path of INSERT finds each through the unique index
    const again = await upsertOnConflict(
      client,
      model,
      columns,
      keyColumns,
      stored.map((i) => rows[i]!),
      now,
      replaced,
    );
    result.inserted += again.inserted;
    result.updated = again.updated;
    result.unchanged = again.unchanged;
    stored.forEach((i, j) => {
      result.wasInserted[i] = again.wasInserted[j]!;
      result.replaced[i] = again.replaced[j];
    });
  }
  return result;
}

/** COPY FROM STDIN, sent in slices while the next ones are encoded, so the server starts at once. */
async function copyRows(client: PoolClient, model: string, columns: Column[], rows: Row[], now: Date): Promise<void> {
  const { from: copyFrom } = await import('pg-copy-streams');
  const encoders = columns.map((c) => copyEncoder(c, now));
  const names = columns.map((c) => c.name);
  const copy = client.query(copyFrom(`COPY ${q(model)} (${names.map(q).join(', ')}) FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    copy.on('error', reject);
    copy.on('finish', resolve);
  });
  done.catch(() => {}); // awaited below; an early error must not go unhandled meanwhile
  const SLICE = 1_000;
  const lines = new Array<string>(SLICE);
  const fields = new Array<string>(columns.length);
  for (let start = 0; start < rows.length; start += SLICE) {
    const end = Math.min(rows.length, start + SLICE);
    for (let r = start; r < end; r++) {
      const row = rows[r]!;
      for (let i = 0; i < fields.length; i++) fields[i] = encoders[i]!(row[names[i]!]);
      lines[r - start] = fields.join('\t');
    }
    lines.length = end - start;
    if (!copy.write(`${lines.join('\n')}\n`)) {
      await Promise.race([new Promise((resolve) => copy.once('drain', resolve)), done]);
    }
  }
  copy.end();
  await done;
}

/**
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE <values> IS DISTINCT FROM ...` per 5,000 rows. The
 * rows it writes come back (`xmax = 0` for an insert); with `replaced` columns the stored rows are
 * read in the same statement, whose snapshot is from before its own update: what an update replaced.
 */
async function upsertOnConflict(
  client: PoolClient,
  model: string,
  columns: Column[],
  keyColumns: readonly string[],
  rows: Row[],
  now: Date,
  replaced: readonly string[] = [],
): Promise<UpsertResult> {
  const sets = columns.filter((c) => updatable(c, keyColumns));
  const diffs = columns.filter((c) => compared(c, keyColumns));
  const onConflict = sets.length
    ? `DO UPDATE SET ${sets.map((c) => `${q(c.name)} = EXCLUDED.${q(c.name)}`).join(', ')} ` +
      `WHERE (${diffs.map((c) => `${q(model)}.${q(c.name)}`).join(', ')}) IS DISTINCT FROM (${diffs.map((c) => `EXCLUDED.${q(c.name)}`).join(', ')})`
    : 'DO NOTHING';
  const keyIndex = keyColumns.map((k) => columns.findIndex((c) => c.name === k));
  const keysAsText = keyColumns.map((k, i) => `${q(k)}::text AS k${i}`).join(', ');
  const write =
    `INSERT INTO ${q(model)} (${columns.map((c) => q(c.name)).join(', ')}) ` +
    `SELECT ${columns.map((c, i) => pgSelect(c, `u.c${i}`)).join(', ')} FROM u ` +
    `ON CONFLICT (${keyColumns.map(q).join(', ')}) ${onConflict} ` +
    `RETURNING (xmax = 0) AS "inserted", ${keysAsText}`;
  const before = replaced.length
    ? `, "before" AS (SELECT ${keyColumns.map((k, i) => `t.${q(k)}::text AS k${i}`).join(', ')}, ` +
      `${replaced.map((r, i) => `t.${q(r)}::text AS r${i}`).join(', ')} FROM ${q(model)} t JOIN u ON ` +
      `${keyIndex.map((c, i) => `t.${q(keyColumns[i]!)} = ${pgSelect(columns[c]!, `u.c${c}`)}`).join(' AND ')})`
    : '';
  const sql =
    `WITH u AS (SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${pgType(c)}[]`).join(', ')}) AS u(${columns.map((_, i) => `c${i}`).join(', ')}))${before}, ` +
    `w AS (${write}) ` +
    (replaced.length
      ? `SELECT w.*, ${replaced.map((_, i) => `b.r${i}`).join(', ')} FROM w LEFT JOIN "before" b USING (${keyColumns.map((_, i) => `k${i}`).join(', ')})`
      : 'SELECT * FROM w');
  const result: UpsertResult = {
    inserted: 0,
    updated: 0,
    unchanged: 0,
    wasInserted: new Array(rows.length).fill(false),
    replaced: new Array(rows.length),
  };
  for (let start = 0; start < rows.length; start += PG_CHUNK) {
    const chunk = rows.slice(start, start + PG_CHUNK);
    const res = await client.query<Record<string, unknown>>({
      text: sql,
      values: columns.map((c) => pgArray(c, chunk, now)),
    });
    const written = new Map<string, Record<string, unknown>>();
    for (const r of res.rows) written.set(keyText(keyColumns.map((_, i) => r[`k${i}`])), r);
    result.unchanged += chunk.length - res.rows.length;
    if (written.size === 0) continue;
    for (let i = 0; i < chunk.length; i++) {
      const r = written.get(keyText(keyColumns.map((k) => chunk[i]![k])));
      if (!r) continue;
      if (r.inserted) {
        result.inserted++;
        result.wasInserted[start + i] = true;
      } else {
        result.updated++;
        result.replaced[start + i] = Object.fromEntries(replaced.map((name, j) => [name, r[`r${j}`]]));
      }
    }
  }
  return result;
}

/** `VACUUM (ANALYZE)` of each table, outside any transaction (VACUUM cannot run in one). */
export async function vacuumAnalyze(pool: Pool, tables: readonly string[]): Promise<void> {
  for (const table of tables) await pool.query(`VACUUM (ANALYZE) "${table.replace(/"/g, '""')}"`);
}
