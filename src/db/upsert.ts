import type { Db } from './client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { getDatamodel } from '../../generated/pothos-types.js';

/** What one write did to the stored records: the answer of every resource service's write, and of an import. */
export interface WriteCounts {
  /** records that did not exist before */
  inserted: number;
  /** records that existed and whose stored values changed */
  updated: number;
  /** records that existed with the same values: a rerun of an import ends here */
  unchanged: number;
}

// The idempotent batch write every importer's service uses: read the stored rows of the whole
// batch (one query per table for up to 900 records), compare, insert the new ones (multi-row
// INSERTs) and update only the changed columns of the changed ones, all in one transaction. A
// rerun of the same batch only reads.

export type Tx = Prisma.TransactionClient;

export interface BatchWriter<Row, Stored> {
  /** The natural key of an incoming row. */
  key(row: Row): string;
  /** The stored rows (with their child rows) of these incoming rows; extra rows are ignored. */
  load(tx: Tx, rows: Row[]): Promise<Stored[]>;
  storedKey(stored: Stored): string;
  /** Whether writing `row` would leave `stored` as it is. */
  same(row: Row, stored: Stored): boolean;
  /** Inserts new rows, in the order given (auto-increment ids follow it), with their child rows. */
  insert(tx: Tx, rows: Row[]): Promise<void>;
  /** Rewrites changed rows and replaces their child rows. */
  update(tx: Tx, changes: Change<Row, Stored>[]): Promise<void>;
}

export interface Change<Row, Stored> {
  row: Row;
  stored: Stored;
}

/** Long enough for a batch of many thousands of records on a slow disk. */
const TRANSACTION = { maxWait: 30_000, timeout: 300_000 };

/** Records whose stored rows one query reads (one loading included child rows is not split by Prisma). */
export const LOAD_CHUNK = 900;

/**
 * Writes `rows` in one transaction. Of records sharing a key the last one wins; the earlier ones
 * are counted as unchanged (nothing is written for them), so the counts add up to `rows.length`.
 */
export async function writeBatch<Row, Stored>(
  db: Db,
  rows: readonly Row[],
  writer: BatchWriter<Row, Stored>,
): Promise<WriteCounts> {
  const { insertedRows: _, ...counts } = await writeBatchWithInserted(db, rows, writer);
  return counts;
}

/** writeBatch, also naming the rows it inserted: what a feed of new records publishes. */
export async function writeBatchWithInserted<Row, Stored>(
  db: Db,
  rows: readonly Row[],
  writer: BatchWriter<Row, Stored>,
): Promise<WriteCounts & { insertedRows: Row[] }> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0, insertedRows: [] };
  const latest = new Map<string, Row>();
  for (const row of rows) {
    const key = writer.key(row);
    latest.delete(key); // the last copy takes the last position, so insertion order follows the input
    latest.set(key, row);
  }
  const superseded = rows.length - latest.size;
  return db.prisma.$transaction(async (tx) => {
    const incoming = [...latest.values()];
    const stored = new Map<string, Stored>();
    for (let start = 0; start < incoming.length; start += LOAD_CHUNK) {
      for (const s of await writer.load(tx, incoming.slice(start, start + LOAD_CHUNK)))
        stored.set(writer.storedKey(s), s);
    }
    const fresh: Row[] = [];
    const changes: Change<Row, Stored>[] = [];
    let unchanged = superseded;
    for (const row of incoming) {
      const s = stored.get(writer.key(row));
      if (s === undefined) fresh.push(row);
      else if (writer.same(row, s)) unchanged++;
      else changes.push({ row, stored: s });
    }
    if (fresh.length) await writer.insert(tx, fresh);
    if (changes.length) await writer.update(tx, changes);
    return { inserted: fresh.length, updated: changes.length, unchanged, insertedRows: fresh };
  }, TRANSACTION);
}

// ------------------------------------------------------------------ comparing

/**
 * Equality of an incoming value and a stored one as the database gives it back: dates by instant,
 * 64-bit integers by digits, JSON by value (PostgreSQL's jsonb reorders object keys), null and
 * undefined alike.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (typeof a === 'bigint' || typeof b === 'bigint')
    return (
      (typeof a === 'bigint' || typeof a === 'number') &&
      (typeof b === 'bigint' || typeof b === 'number') &&
      String(a) === String(b)
    );
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/**
 * Whether every field the incoming row sets equals the stored one. A field the row leaves
 * undefined is not compared: the record did not carry it (e.g. no `updated_at`), so the store's own
 * value stands.
 */
export function sameFields(
  row: Record<string, unknown>,
  stored: Record<string, unknown>,
  fields: readonly string[],
): boolean {
  return fields.every((f) => row[f] === undefined || sameValue(row[f], stored[f]));
}

/** Whether two lists of child rows hold the same values in the same order, over `fields`. */
export function sameChildren(
  rows: readonly Record<string, unknown>[],
  stored: readonly Record<string, unknown>[],
  fields: readonly string[],
): boolean {
  return rows.length === stored.length && rows.every((r, i) => fields.every((f) => sameValue(r[f], stored[i]![f])));
}

/**
 * The fields of `row` that differ from `stored`, ready for an update, with `updatedAt`: the
 * record's own when it carries one, else now (the record changed). Only these columns are written.
 */
export function changedFields<Row extends object>(
  row: Row,
  stored: object,
  fields: readonly string[],
): Partial<Row> & { updatedAt: Date } {
  const r = row as Record<string, unknown>;
  const s = stored as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (r[f] !== undefined && !sameValue(r[f], s[f])) out[f] = r[f];
  out.updatedAt = (r.updatedAt as Date | undefined) ?? new Date();
  return out as Partial<Row> & { updatedAt: Date };
}

/** A nullable Json column's value for Prisma input: SQL NULL for null (Prisma takes no plain null). */
export function jsonInput(
  value: Prisma.JsonValue | undefined,
): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  if (value === undefined) return undefined;
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

// ------------------------------------------------------------------ ids

/**
 * After rows were inserted with explicit ids, moves a serial sequence past them (never back), so
 * later inserts without an id do not collide.
 */
export async function advanceSerial(tx: Tx, table: string): Promise<void> {
  await tx.$queryRawUnsafe(
    `SELECT setval(q.s, GREATEST(COALESCE(MAX(t."id"), 1), COALESCE(pg_sequence_last_value(q.s::regclass), 1)))
     FROM "${table}" t, (SELECT pg_get_serial_sequence('"${table}"', 'id') AS s) q GROUP BY q.s`,
  );
}

/**
 * Splits new rows into those whose wanted id is free (not stored, not wanted by an earlier row of
 * the batch) and those that must take another one.
 */
export async function claimIds<Row>(
  rows: readonly Row[],
  wanted: (row: Row) => number | undefined,
  taken: (ids: number[]) => Promise<number[]>,
): Promise<{ withId: { row: Row; id: number }[]; without: Row[] }> {
  const candidates = [...new Set(rows.map(wanted).filter((id): id is number => id !== undefined))];
  const used = new Set(candidates.length ? await taken(candidates) : []);
  const withId: { row: Row; id: number }[] = [];
  const without: Row[] = [];
  for (const row of rows) {
    const id = wanted(row);
    if (id !== undefined && !used.has(id)) {
      used.add(id);
      withId.push({ row, id });
    } else without.push(row);
  }
  return { withId, without };
}

// ------------------------------------------------------------------ inserting

interface Column {
  name: string;
  type: string;
  kind: 'scalar' | 'enum';
  /** createdAt (@default(now())) and updatedAt (@updatedAt): now when a row leaves them out, as Prisma does. */
  stampedNow: boolean;
}

type DatamodelField = { name: string; type: string; kind: string; hasDefaultValue: boolean; isUpdatedAt: boolean };
const MODELS = getDatamodel().datamodel.models as unknown as Record<string, { fields: DatamodelField[] }>;

function columnsOf(model: string): Column[] {
  const m = MODELS[model];
  if (!m) throw new Error(`insertRows: unknown model ${model}`);
  return m.fields
    .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
    .map((f) => ({
      name: f.name,
      type: f.type,
      kind: f.kind as Column['kind'],
      stampedNow: f.type === 'DateTime' && (f.isUpdatedAt || f.hasDefaultValue),
    }));
}

const PG_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Float: 'float8',
  Boolean: 'bool',
  DateTime: 'timestamp(3)',
  Json: 'jsonb',
};

/** A value as the column stores it, the way Prisma writes it (so Prisma reads it back unchanged; see bulk.ts). */
function encode(c: Column, value: unknown, now: Date): unknown {
  const v = value === undefined && c.stampedNow ? now : value;
  if (v === undefined || v === null) return null;
  switch (c.type) {
    case 'DateTime':
      // timestamp(3) without time zone, holding UTC
      return (v as Date).toISOString().replace('Z', '');
    case 'Json':
      return JSON.stringify(v);
    case 'BigInt':
      return String(v);
    default:
      return v;
  }
}

/** Bound parameters per INSERT: far below PostgreSQL's 65535. */
const MAX_PARAMS = 20_000;

/**
 * Inserts rows into the table of `model` inside the transaction, as multi-row INSERTs: Prisma's
 * createMany costs about 1 ms a row for a wide table here, a plain INSERT a tenth of that. The
 * columns are those any row sets, plus the timestamps Prisma would stamp; an auto-increment id
 * left out by every row is assigned in row order. Returns the `returning` columns of every row.
 */
export async function insertRows(
  tx: Tx,
  model: string,
  rows: readonly Record<string, unknown>[],
  returning: readonly string[] = [],
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const columns = columnsOf(model).filter((c) => c.stampedNow || rows.some((r) => r[c.name] !== undefined));
  const now = new Date();
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const tail = returning.length ? ` RETURNING ${returning.map((c) => `"${c}"`).join(', ')}` : '';
  const out: Record<string, unknown>[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      const slots = columns.map((c) => {
        params.push(encode(c, row[c.name], now));
        const type = c.kind === 'enum' ? `"${c.type}"` : PG_TYPES[c.type];
        return `$${params.length}::${type}`;
      });
      return `(${slots.join(', ')})`;
    });
    const sql = `INSERT INTO "${model}" (${names}) VALUES ${tuples.join(', ')}${tail}`;
    if (returning.length) out.push(...(await tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params)));
    else await tx.$executeRawUnsafe(sql, ...params);
  }
  // int8 columns come back as bigint
  return out.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
  );
}

/** What `writeById` needs of a model's Prisma delegate (`tx.split`, `tx.dividend`). */
interface ByIdDelegate<Row> {
  findMany(args: { where: { id: { in: string[] } } }): Promise<Row[]>;
  updateMany(args: { where: { id: string }; data: Omit<Partial<Row>, 'updatedAt'> }): Promise<unknown>;
}

/**
 * Upserts rows of `model` by their text id in one transaction, for a table that keeps no
 * updatedAt: Massive's reference records (splits, dividends), whose rows are the records.
 */
export function writeById<Row extends { id: string }>(
  db: Db,
  rows: readonly Row[],
  model: string,
  delegate: (tx: Tx) => ByIdDelegate<Row>,
): Promise<WriteCounts> {
  const fields = columnsOf(model).map((c) => c.name);
  return writeBatch(db, rows, {
    key: (r) => r.id,
    load: (tx, batch) => delegate(tx).findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => s.id,
    same: (r, s) => sameFields(r, s, fields),
    async insert(tx, batch) {
      await insertRows(tx, model, batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        const { updatedAt: _, ...data } = changedFields(row, stored, fields);
        await delegate(tx).updateMany({ where: { id: row.id }, data });
      }
    },
  });
}
