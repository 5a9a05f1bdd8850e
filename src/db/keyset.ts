import { int64, isInt32 } from '../domain/integers.js';
import { AppError } from '../errors.js';

/**
 * Keyset pagination shared by every list. A list is ordered by a fixed tuple of columns, all in one
 * direction, ending in a unique column; a cursor is the tuple of the last row it returned, so the
 * next page is `WHERE (cols) > (cursor) ORDER BY cols LIMIT n`: an index range scan however deep.
 */
export type KeyType = 'string' | 'int' | 'bigint' | 'float' | 'date';

export interface Ordering<Row> {
  /** Names the ordering inside cursors, so a cursor of one list is rejected by another. */
  tag: string;
  columns: readonly { column: string; type: KeyType; of: (row: Row) => unknown }[];
}

export type Direction = 'asc' | 'desc';

export interface Page<Row> {
  nodes: Row[];
  hasNextPage: boolean;
  /** The cursor after node `i`, made when asked for: a 5000-row REST page needs only the last one. */
  cursorAt(i: number): string;
  /** Counts every row the filters match, ignoring paging; only run when asked for. */
  totalCount?: () => Promise<number>;
}

/** A forward page request: how many, and after which cursor. */
export interface KeysetArgs {
  first: number;
  after?: string | undefined;
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
      return d && !Number.isNaN(d.getTime()) && d.toISOString() === v && d.getUTCFullYear() >= FIRST_YEAR ? d : undefined;
    }
  }
}

/**
 * The key tuple inside a cursor, ready to bind (bigints and dates as such). Throws a BAD_REQUEST
 * naming `argument` for anything this list did not issue, and for a key its column cannot hold.
 */
export function decodeCursor<Row>(ordering: Ordering<Row>, direction: Direction, cursor: string, argument = 'after'): unknown[] {
  const bad = (why = 'use a cursor from the same query and order') => new AppError('BAD_REQUEST', `${argument}: ${JSON.stringify(cursor.slice(0, 100))} is not a cursor of this list (${why})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed[0] !== ordering.tag || parsed[1] !== direction || parsed.length !== ordering.columns.length + 2) throw bad();
  return ordering.columns.map((c, i) => {
    const v = keyValue(parsed[i + 2], c.type);
    if (v === undefined) throw bad(`its ${c.column} key is not a value the column holds: ${JSON.stringify(parsed[i + 2])?.slice(0, 60)}`);
    return v;
  });
}

/** Turns `first + 1` fetched rows into a page. */
export function toPage<Row>(rows: Row[], first: number, ordering: Ordering<Row>, direction: Direction, totalCount?: () => Promise<number>): Page<Row> {
  const nodes = rows.length > first ? rows.slice(0, first) : rows;
  return {
    nodes,
    hasNextPage: rows.length > first,
    cursorAt: (i) => encodeCursor(ordering, direction, nodes[i]!),
    ...(totalCount ? { totalCount } : {}),
  };
}

/** A page with nothing on it. */
export function emptyPage<Row>(totalCount?: () => Promise<number>): Page<Row> {
  return { nodes: [], hasNextPage: false, cursorAt: () => { throw new RangeError('an empty page has no cursors'); }, ...(totalCount ? { totalCount } : {}) };
}

/** The cursor after the last node of `page`, if it has nodes. */
export function lastCursor(page: Page<unknown>): string | undefined {
  return page.nodes.length ? page.cursorAt(page.nodes.length - 1) : undefined;
}

/** Prisma `where` for "strictly after this key tuple" in the given direction. */
export function afterWhere(columns: readonly { column: string }[], values: unknown[], direction: Direction): Record<string, unknown> {
  const op = direction === 'asc' ? 'gt' : 'lt';
  const branches = columns.map((c, i) => {
    const branch: Record<string, unknown> = {};
    for (let j = 0; j < i; j++) branch[columns[j]!.column] = values[j];
    branch[c.column] = { [op]: values[i] };
    return branch;
  });
  return branches.length === 1 ? branches[0]! : { OR: branches };
}

export function orderByOf(columns: readonly { column: string }[], direction: Direction): Record<string, Direction>[] {
  return columns.map((c) => ({ [c.column]: direction }));
}
