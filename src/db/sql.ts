import type { Db } from './client.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The first `limit` rows for each of many keys, in one statement whatever the number of keys, its
 * text the same for any number of them (so it is prepared once and kept, see `Db.read`):
 * - one key: `WHERE key = $1 … ORDER BY … LIMIT n`, an index range scan that stops after n rows;
 * - many: `unnest($1::text[]) CROSS JOIN LATERAL (that query)`; a UNION ALL of one such query per
 *   key, as before, cost 51–93 ms of planning for 200 keys (bench/RESULTS.md).
 * (A window function would rank every row of every key first: fatal for millions of trades.)
 * Rows come back grouped by key in key order, each key's rows in the requested order.
 * Identifiers are code constants; every value is a bound parameter.
 */
export interface TopPerKeyQuery {
  table: string;
  keyColumn: string;
  keys: readonly (string | number)[];
  /** Further conditions on unqualified columns of `table`, ANDed; the same for every key. */
  filters?: Prisma.Sql[];
  orderColumns: readonly string[];
  /** The order each key's rows are read in, and the key tuples they lie strictly between. */
  range: KeyRange;
  limit: number;
}

/**
 * How a keyset read walks its order columns: in `direction`, only rows strictly after the key tuple
 * `after` and strictly before `before` in that direction (db/keyset.ts `seekOf` makes one from a
 * page request; a backward page reads the list's reverse order).
 */
export interface KeyRange {
  direction: 'asc' | 'desc';
  after?: readonly unknown[] | undefined;
  before?: readonly unknown[] | undefined;
}

const q = (name: string) => Prisma.raw(`"${name}"`);

/**
 * ` AND <filters> AND (order columns) > (after) AND (order columns) < (before)` (the comparisons
 * flipped for a descending range), or nothing: a keyed list's conditions on its columns, as every
 * keyset read adds them (topPerKey, db/keyset.ts, the services' joined reads, whose columns carry
 * the table's `alias`).
 */
export function keyedConditions(
  filters: readonly Prisma.Sql[],
  orderColumns: readonly string[],
  range: KeyRange,
  alias = '',
): Prisma.Sql {
  const conditions = [...filters];
  const tuple = Prisma.raw(`(${orderColumns.map((c) => `${alias}"${c}"`).join(', ')})`);
  const [past, short] = range.direction === 'asc' ? ['>', '<'] : ['<', '>'];
  if (range.after) conditions.push(Prisma.sql`${tuple} ${Prisma.raw(past)} (${Prisma.join(range.after as unknown[])})`);
  if (range.before)
    conditions.push(Prisma.sql`${tuple} ${Prisma.raw(short)} (${Prisma.join(range.before as unknown[])})`);
  return conditions.length ? Prisma.sql` AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
}

/** `ORDER BY`'s list for a keyset read: every order column in `direction`, of the table `alias` if given. */
export function orderOn(orderColumns: readonly string[], direction: 'asc' | 'desc', alias = ''): Prisma.Sql {
  const dir = direction.toUpperCase();
  return Prisma.raw(orderColumns.map((c) => `${alias}"${c}" ${dir}`).join(', '));
}

export async function topPerKey<Row extends Record<string, unknown>>(
  db: Db,
  query: TopPerKeyQuery,
): Promise<Map<string | number, Row[]>> {
  const result = new Map<string | number, Row[]>(query.keys.map((k) => [k, []]));
  if (query.keys.length === 0 || query.limit <= 0) return result;
  const by = (alias: string) => orderOn(query.orderColumns, query.range.direction, alias);
  const extra = keyedConditions(query.filters ?? [], query.orderColumns, query.range);
  const table = q(query.table);
  const key = q(query.keyColumn);
  let statement: Prisma.Sql;
  if (query.keys.length === 1) {
    statement = Prisma.sql`SELECT * FROM ${table} WHERE ${key} = ${query.keys[0]}${extra} ORDER BY ${by('')} LIMIT ${query.limit}`;
  } else {
    const arrayType = Prisma.raw(typeof query.keys[0] === 'number' ? 'bigint[]' : 'text[]');
    statement = Prisma.sql`SELECT t.* FROM unnest(${query.keys}::${arrayType}) WITH ORDINALITY AS k("key", "ord")
      CROSS JOIN LATERAL (SELECT * FROM ${table} WHERE ${key} = k."key"${extra} ORDER BY ${by('')} LIMIT ${query.limit}) t
      ORDER BY k."ord", ${by('t.')}`;
  }
  const rows = await readSql<Row>(db, statement);
  for (const row of rows) result.get(row[query.keyColumn] as string | number)?.push(row);
  return result;
}

/**
 * The first `limit` rows of many keys' rows taken as one list, ordered by `orderColumns` then the
 * key (so the order is total across keys), in one statement: each key's first `limit` rows as
 * topPerKey reads them (an index range scan per key that stops after `limit`), then the first
 * `limit` of their union. So a page reads at most keys × limit rows however many each key holds.
 * The range's tuples are over orderColumns and the key; its direction orders both reads (a
 * backward page reads the reverse order, as every keyset read does).
 */
export async function topOfKeys<Row extends Record<string, unknown>>(db: Db, query: TopPerKeyQuery): Promise<Row[]> {
  if (query.keys.length === 0 || query.limit <= 0) return [];
  const merged = [...query.orderColumns, query.keyColumn];
  const extra = keyedConditions(query.filters ?? [], merged, query.range);
  const arrayType = Prisma.raw(typeof query.keys[0] === 'number' ? 'bigint[]' : 'text[]');
  // each key's rows in the key's own order: the key is one value there, so the index serves it
  return readSql<Row>(
    db,
    Prisma.sql`SELECT t.* FROM unnest(${query.keys}::${arrayType}) AS k("key")
      CROSS JOIN LATERAL (SELECT * FROM ${q(query.table)} WHERE ${q(query.keyColumn)} = k."key"${extra} ORDER BY ${orderOn(query.orderColumns, query.range.direction)} LIMIT ${query.limit}) t
      ORDER BY ${orderOn(merged, query.range.direction, 't.')} LIMIT ${query.limit}`,
  );
}

/**
 * `column` is any of `values`, as one bound parameter whatever their number, so the statement's
 * text (and its prepared form, see `Db.read`) is the same for 1 value or 200: `= ANY($1)`, each
 * value looked up in an index. `column` is SQL from code constants (a quoted column, optionally
 * with its table alias).
 */
export function anyOf(column: string, values: readonly (string | number)[]): Prisma.Sql {
  const type = Prisma.raw(typeof values[0] === 'number' ? 'bigint[]' : 'text[]');
  return Prisma.sql`${Prisma.raw(column)} = ANY(${values}::${type})`;
}

/** Runs a statement built with Prisma.sql through `Db.read`. */
export function readSql<Row = Record<string, unknown>>(db: Db, statement: Prisma.Sql): Promise<Row[]> {
  return db.read<Row>(statement.text, statement.values);
}

/**
 * For loaders of child lists: the rows of `table` whose `parentColumn` is one of `parentIds`,
 * grouped by parent, each group in `position` order (one statement through Db.read). Parents
 * without rows are missing from the map.
 */
export async function childRows<Row extends Record<string, unknown>>(
  db: Db,
  table: string,
  parentColumn: keyof Row & string,
  parentIds: readonly number[],
): Promise<Map<number, Row[]>> {
  const out = new Map<number, Row[]>();
  if (parentIds.length === 0) return out;
  const rows = await readSql<Row>(
    db,
    Prisma.sql`SELECT * FROM ${q(table)} WHERE ${anyOf(`"${parentColumn}"`, parentIds)} ORDER BY ${q(parentColumn)}, "position"`,
  );
  for (const row of rows) {
    const parent = row[parentColumn] as number;
    const list = out.get(parent);
    if (list) list.push(row);
    else out.set(parent, [row]);
  }
  return out;
}
