import { Prisma } from '../../generated/prisma/client.js';
import { int64, isInt32 } from '../domain/integers.js';
import { AppError } from '../errors.js';
import type { Db } from './client.js';
import { keyedConditions, orderOn, readSql, topOfKeys, topPerKey, type KeyRange } from './sql.js';
import { selectColumns, type TreeLevel } from './tree.js';

/**
 * Keyset pagination shared by every list. A list is ordered by a fixed tuple of columns, all in one
 * direction, ending in a unique column; a cursor is the tuple of one row, so the page after the
 * last row is `WHERE (cols) > (cursor) ORDER BY cols LIMIT n`: an index range scan however deep.
 * A page backwards (`last`/`before`) is the same read of the reverse order, `WHERE (cols) < (cursor)
 * ORDER BY cols DESC LIMIT n` (`seekOf`), its rows put back in the list's order (`toPage`): the same
 * statement, the same index, whichever way a client pages.
 *
 * The paging vocabulary of every service: two kinds of paging, one helper each, one name each.
 * - Keyset pages (GraphQL connections, REST `next_url`): `<noun>Page(db, filter, { first, after })`
 *   or `{ last, before }` (KeysetArgs) answers a `Page<Row>` (built by `keysetPage` below, in the
 *   list's order either way); a list read per key (a security's ratings)
 *   is a `KeyedList`, whose pages for many keys are one statement (`keysetPages`, through
 *   services/paging.ts and the one loader of graphql/loaders.ts); the rows of several keys taken
 *   as one list (a watchlist's trades) are its `acrossKeysPage`, in the list's order then the key.
 * - Page numbers (REST `page`/`page_size`): `<noun>AtPage(db, filter, { page, pageSize })` answers
 *   a `NumberedPage<Row>`, `{ nodes, totalCount }` (built by `numberedPage` in db/page-number.ts).
 * Both read a list the same way, a `SortedList` whose filters are SQL, so page N of one holds the
 * rows the other reaches.
 */
export type KeyType = 'string' | 'int' | 'bigint' | 'float' | 'date';

export interface Ordering<Row> {
  /** Names the ordering inside cursors, so a cursor of one list is rejected by another. */
  tag: string;
  columns: readonly { column: string; type: KeyType; of: (row: Row) => unknown }[];
}

export type Direction = 'asc' | 'desc';

export interface Page<Row> {
  /** In the list's order, whichever way it was paged. */
  nodes: Row[];
  /** Rows follow the page (known when paging forward; false paging backward, as Relay allows). */
  hasNextPage: boolean;
  /** Rows precede the page (known when paging backward; false paging forward, as Relay allows). */
  hasPreviousPage: boolean;
  /** The cursor of node `i`, made when asked for: a 5000-row REST page needs only the last one. */
  cursorAt(i: number): string;
  /** Counts every row the filters match, ignoring paging; only run when asked for. */
  totalCount?: () => Promise<number>;
  /** Whether `totalCount` is an estimate (services/tick.ts); absent where the count is exact. */
  totalCountIsEstimate?: () => Promise<boolean>;
}

/** The cursors of a page request: rows strictly after `after` and strictly before `before`, in the list's order. */
interface Cursors {
  after?: string | undefined;
  before?: string | undefined;
}

/** The first `first` rows between the cursors: Relay's forward paging. */
export interface ForwardArgs extends Cursors {
  first: number;
  last?: undefined;
}

/** The last `last` rows between the cursors: Relay's backward paging. */
export interface BackwardArgs extends Cursors {
  last: number;
  first?: undefined;
}

/** A page request in Relay's words: `first` (with `after`) or `last` (with `before`); never both counts. */
export type KeysetArgs = ForwardArgs | BackwardArgs;

export const isBackward = (args: KeysetArgs): args is BackwardArgs => args.last !== undefined;

/** How many rows a page request asks for. */
export const pageSize = (args: KeysetArgs): number => (isBackward(args) ? args.last : args.first);

/**
 * How a page request reads its list: the key range it reads (the list's order, or its reverse for
 * `last`, the cursors' keys swapped to match) and how many rows, one more than the page, which
 * tells whether more lie beyond it. The one translation of a request into SQL every keyset read
 * goes through: `keysetPage`, `keysetPages`, `keyedLevel` and the services' joined reads.
 */
export interface Seek extends KeyRange {
  limit: number;
}

export function seekOf<Row>(ordering: Ordering<Row>, direction: Direction, args: KeysetArgs): Seek {
  const after = args.after ? decodeCursor(ordering, direction, args.after, 'after') : undefined;
  const before = args.before ? decodeCursor(ordering, direction, args.before, 'before') : undefined;
  if (isBackward(args))
    return { direction: direction === 'asc' ? 'desc' : 'asc', after: before, before: after, limit: args.last + 1 };
  return { direction, after, before, limit: args.first + 1 };
}

function encodeValue(v: unknown, type: KeyType): string | number {
  if (type === 'date') return (v as Date).toISOString();
  if (type === 'bigint') return String(v);
  return v as string | number;
}

export function encodeCursor<Row>(ordering: Ordering<Row>, direction: Direction, row: Row): string {
  const values = ordering.columns.map((c) => encodeValue(c.of(row), c.type));
  return Buffer.from(JSON.stringify([ordering.tag, direction, ...values])).toString('base64url');
}

/** Dates as encodeValue writes them (toISOString), from PostgreSQL's first year (4713 BC) on. */
const ISO_DATE = /^(?:\d{4}|[+-]\d{6})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FIRST_YEAR = -4712;

/** The key as its column holds it (32-bit Int, 64-bit BigInt, text without U+0000), or undefined. */
function keyValue(v: unknown, type: KeyType): unknown {
  switch (type) {
    case 'string':
      return typeof v === 'string' && !v.includes('\u0000') ? v : undefined;
    case 'int':
      return isInt32(v) ? v : undefined;
    case 'float':
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    case 'bigint':
      return typeof v === 'string' ? int64(v) : undefined;
    case 'date': {
      const d = typeof v === 'string' && ISO_DATE.test(v) ? new Date(v) : undefined;
      return d && !Number.isNaN(d.getTime()) && d.toISOString() === v && d.getUTCFullYear() >= FIRST_YEAR
        ? d
        : undefined;
    }
  }
}

/**
 * The key tuple inside a cursor, ready to bind (bigints and dates as such). Throws a BAD_REQUEST
 * naming `argument` for anything this list did not issue, and for a key its column cannot hold.
 */
export function decodeCursor<Row>(
  ordering: Ordering<Row>,
  direction: Direction,
  cursor: string,
  argument = 'after',
): unknown[] {
  const bad = (why = 'use a cursor from the same query and order') =>
    new AppError(
      'BAD_REQUEST',
      `${argument}: ${JSON.stringify(cursor.slice(0, 100))} is not a cursor of this list (${why})`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parsed) ||
    parsed[0] !== ordering.tag ||
    parsed[1] !== direction ||
    parsed.length !== ordering.columns.length + 2
  )
    throw bad();
  return ordering.columns.map((c, i) => {
    const v = keyValue(parsed[i + 2], c.type);
    if (v === undefined)
      throw bad(`its ${c.column} key is not a value the column holds: ${JSON.stringify(parsed[i + 2])?.slice(0, 60)}`);
    return v;
  });
}

/**
 * The page's share of the rows a `seekOf` read returned (at most its size, in the list's order:
 * a backward read's rows reversed), and whether more lay beyond them. For the rows of a row tree
 * too (graphql/plan/run.ts), so its pages are made as the services' are.
 */
export function pageRows<T>(rows: readonly T[], args: KeysetArgs): { rows: T[]; more: boolean } {
  const size = pageSize(args);
  const kept = rows.slice(0, size);
  return { rows: isBackward(args) ? kept.reverse() : kept, more: rows.length > size };
}

/** Turns the rows of a `seekOf` read into a page of the list ordered by `ordering` in `direction`. */
export function toPage<Row>(
  rows: Row[],
  args: KeysetArgs,
  ordering: Ordering<Row>,
  direction: Direction,
  totalCount?: () => Promise<number>,
): Page<Row> {
  const { rows: nodes, more } = pageRows(rows, args);
  const backward = isBackward(args);
  return {
    nodes,
    hasNextPage: !backward && more,
    hasPreviousPage: backward && more,
    cursorAt: (i) => encodeCursor(ordering, direction, nodes[i]!),
    ...(totalCount ? { totalCount } : {}),
  };
}

/** A page with nothing on it. */
export function emptyPage<Row>(totalCount?: () => Promise<number>): Page<Row> {
  return {
    nodes: [],
    hasNextPage: false,
    hasPreviousPage: false,
    cursorAt: () => {
      throw new RangeError('an empty page has no cursors');
    },
    ...(totalCount ? { totalCount } : {}),
  };
}

/** The cursor after the last node of `page`, if it has nodes. */
export function lastCursor(page: Page<unknown>): string | undefined {
  return page.nodes.length ? page.cursorAt(page.nodes.length - 1) : undefined;
}

/**
 * A table's rows that meet `filters`, in one ordering: what `keysetPage` and `numberedPage`
 * (db/page-number.ts) read. The filters are the list's one definition, in SQL, as a keyed list's
 * are (below): a service writes each condition once, for its root pages and its per-key pages alike.
 */
export interface SortedList<Row> {
  table: string;
  ordering: Ordering<Row>;
  direction: Direction;
  /** Conditions on unqualified columns of `table`, ANDed. */
  filters?: Prisma.Sql[];
  /** The rows as the service answers them (their child lists added), from the rows of `table` read. */
  complete?: (rows: Record<string, unknown>[]) => Promise<Row[]>;
}

/**
 * The rows of `list` in `range` (its own order from the start without one): `LIMIT limit OFFSET
 * offset`. Through Db.read, so a row equals the row of a keyed page of the same table.
 */
export async function sortedRows<Row>(
  db: Db,
  list: SortedList<Row>,
  query: { range?: KeyRange | undefined; limit: number; offset?: number },
): Promise<Row[]> {
  const order = list.ordering.columns.map((c) => c.column);
  const range = query.range ?? { direction: list.direction };
  const conditions = keyedConditions(list.filters ?? [], order, range);
  const by = orderOn(order, range.direction);
  const offset = query.offset ? Prisma.sql` OFFSET ${query.offset}` : Prisma.empty;
  const rows = await readSql<Record<string, unknown>>(
    db,
    Prisma.sql`SELECT * FROM ${Prisma.raw(`"${list.table}"`)} WHERE TRUE${conditions} ORDER BY ${by} LIMIT ${query.limit}${offset}`,
  );
  return list.complete ? list.complete(rows) : (rows as Row[]);
}

/** How many rows of `list` there are. */
export async function countRows<Row>(db: Db, list: SortedList<Row>): Promise<number> {
  const conditions = keyedConditions(list.filters ?? [], [], { direction: list.direction });
  const [row] = await readSql<{ count: number | bigint | string }>(
    db,
    Prisma.sql`SELECT COUNT(*) AS "count" FROM ${Prisma.raw(`"${list.table}"`)} WHERE TRUE${conditions}`,
  );
  return Number(row?.count ?? 0);
}

/** One keyset page of the rows of `list`, with a total counted only when asked for. */
export async function keysetPage<Row>(db: Db, list: SortedList<Row>, args: KeysetArgs): Promise<Page<Row>> {
  const { ordering, direction } = list;
  const seek = seekOf(ordering, direction, args);
  const rows = await sortedRows(db, list, { range: seek, limit: seek.limit });
  return toPage(rows, args, ordering, direction, () => countRows(db, list));
}

/** A table's rows for `keysetPages`: one list per value of `keyColumn`, all in one ordering. */
export interface KeyedList<Row> {
  table: string;
  keyColumn: string;
  ordering: Ordering<Row>;
  direction: Direction;
  /** Conditions on unqualified columns of `table`, the same for every key. */
  filters?: Prisma.Sql[];
}

/** One keyset page per key, the same arguments for each, in one statement (`topPerKey`, db/sql.ts). */
export async function keysetPages<Row>(
  db: Db,
  list: KeyedList<Row>,
  keys: readonly string[],
  args: KeysetArgs,
): Promise<Map<string, Page<Row>>> {
  const { ordering, direction } = list;
  const seek = seekOf(ordering, direction, args);
  const rows = await topPerKey<Row & Record<string, unknown>>(db, {
    table: list.table,
    keyColumn: list.keyColumn,
    keys,
    filters: list.filters ?? [],
    orderColumns: ordering.columns.map((c) => c.column),
    range: seek,
    limit: seek.limit,
  });
  return new Map([...rows].map(([key, list]) => [key as string, toPage<Row>(list, args, ordering, direction)]));
}

const acrossOrderings = new WeakMap<Ordering<any>, Map<string, Ordering<any>>>();

/**
 * The order of a keyed list's rows over several keys taken as one list: the list's own order, then
 * the key, so the order is total across keys (two keys' rows may tie on every other column) and a
 * cursor names one row. Derived from the list's ordering, never declared twice.
 */
export function acrossKeysOrdering<Row>(list: Pick<KeyedList<Row>, 'ordering' | 'keyColumn'>): Ordering<Row> {
  let byKey = acrossOrderings.get(list.ordering);
  if (!byKey) acrossOrderings.set(list.ordering, (byKey = new Map()));
  let ordering = byKey.get(list.keyColumn);
  if (!ordering) {
    const key = list.keyColumn;
    ordering = {
      tag: `${list.ordering.tag}+${key}`,
      columns: [
        ...list.ordering.columns,
        { column: key, type: 'string', of: (r) => (r as Record<string, unknown>)[key] },
      ],
    };
    byKey.set(key, ordering);
  }
  return ordering as Ordering<Row>;
}

/**
 * One keyset page of the rows of `list` for all of `keys` as one list, in `acrossKeysOrdering`,
 * either way (`seekOf` over that ordering): one statement, reading at most keys × (page + 1) rows
 * (`topOfKeys`, db/sql.ts).
 */
export async function acrossKeysPage<Row>(
  db: Db,
  list: KeyedList<Row>,
  keys: readonly string[],
  args: KeysetArgs,
): Promise<Page<Row>> {
  const { direction } = list;
  const ordering = acrossKeysOrdering(list);
  const seek = seekOf(ordering, direction, args);
  const rows = await topOfKeys<Row & Record<string, unknown>>(db, {
    table: list.table,
    keyColumn: list.keyColumn,
    keys,
    filters: list.filters ?? [],
    orderColumns: list.ordering.columns.map((c) => c.column),
    range: seek,
    limit: seek.limit,
  });
  return toPage<Row>(rows, args, ordering, direction);
}

/**
 * The level of a row tree (db/tree.ts) holding, under each parent row, the page of `list` whose key
 * equals the parent's `parentColumn`: the statement `keysetPages` sends for one key, correlated to
 * the parent. Its rows become a page with `toPage(rows, args, …)`, as keysetPages does.
 */
export function keyedLevel<Row>(
  list: KeyedList<Row>,
  args: KeysetArgs,
  parentColumn: string,
  columns: readonly string[],
  children: readonly TreeLevel[],
): TreeLevel {
  const { ordering, direction } = list;
  const order = ordering.columns.map((c) => c.column);
  const seek = seekOf(ordering, direction, args);
  const extra = keyedConditions(list.filters ?? [], order, seek);
  const by = orderOn(order, seek.direction);
  const carried = [...new Set([...columns, ...order])];
  return {
    table: list.table,
    columns: carried,
    select: (parent) =>
      Prisma.sql`${selectColumns(list.table, carried)} WHERE ${Prisma.raw(`"${list.keyColumn}" = ${parent}."${parentColumn}"`)}${extra} ORDER BY ${by} LIMIT ${seek.limit}`,
    children,
  };
}
