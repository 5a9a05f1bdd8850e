import type { PoolClient } from 'pg';
import type { Db } from '../db/client.js';
import { Prisma, type Quote, type Trade } from '../../generated/prisma/client.js';
import { bulkUpsert } from '../db/bulk.js';
import { EXACT_TICK_COUNT } from '../domain/limits.js';
import { parseSymbol } from '../domain/symbols.js';
import { readSql } from '../db/sql.js';
import {
  keysetPages,
  type Direction,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
} from '../db/keyset.js';

/**
 * Trades and quotes are both "ticks": rows of one symbol ordered by (sipTimestamp, sequenceNumber),
 * served in keyset pages from the (symbol, sipTimestamp, sequenceNumber) index in either order.
 * services/trade.ts and services/quote.ts are this module bound to their table.
 */
export type TickTable = 'Trade' | 'Quote';
export type TickRow<T extends TickTable> = T extends 'Trade' ? Trade : Quote;

/** Nanosecond bounds on sipTimestamp; each optional. */
export interface TimeRange {
  gte?: bigint | undefined;
  gt?: bigint | undefined;
  lte?: bigint | undefined;
  lt?: bigint | undefined;
}

/** A page of ticks: the page request, and the order of the list it pages. */
export type TickPageArgs = KeysetArgs & { direction: Direction };

export function tickOrdering<T extends TickTable>(table: T): Ordering<TickRow<T>> {
  return {
    tag: table.toLowerCase(),
    columns: [
      { column: 'sipTimestamp', type: 'bigint', of: (r) => r.sipTimestamp },
      { column: 'sequenceNumber', type: 'bigint', of: (r) => r.sequenceNumber },
    ],
  };
}

function rangeFilters(range: TimeRange): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (range.gte !== undefined) out.push(Prisma.sql`"sipTimestamp" >= ${range.gte}`);
  if (range.gt !== undefined) out.push(Prisma.sql`"sipTimestamp" > ${range.gt}`);
  if (range.lte !== undefined) out.push(Prisma.sql`"sipTimestamp" <= ${range.lte}`);
  if (range.lt !== undefined) out.push(Prisma.sql`"sipTimestamp" < ${range.lt}`);
  return out;
}

/**
 * One page of one symbol's ticks, `symbol` as a caller gave it: checked here by the symbol rule
 * (domain/symbols.ts), so REST and GraphQL answer a bad one alike, with a BAD_REQUEST naming it.
 */
export async function tickPage<T extends TickTable>(
  db: Db,
  table: T,
  symbol: string,
  range: TimeRange,
  args: TickPageArgs,
): Promise<Page<TickRow<T>>> {
  const checked = parseSymbol(symbol, 'symbol');
  return (await tickPages(db, table, [checked], range, args)).get(checked)!;
}

/** One page per symbol, all in one statement (the same arguments for every symbol): for loaders, whose keys are stored symbols. */
export function tickPages<T extends TickTable>(
  db: Db,
  table: T,
  symbols: readonly string[],
  range: TimeRange,
  args: TickPageArgs,
): Promise<Map<string, Page<TickRow<T>>>> {
  return keysetPages(db, ticksBySymbol(table, range, args.direction), symbols, args);
}

/** Each symbol's ticks in `range`, in `direction`: for `tickPages`, and for a row tree's level (graphql/plan/). */
export function ticksBySymbol<T extends TickTable>(
  table: T,
  range: TimeRange,
  direction: Direction,
): KeyedList<TickRow<T>> {
  return { table, keyColumn: 'symbol', ordering: tickOrdering(table), direction, filters: rangeFilters(range) };
}

/** A count of ticks: exact, or PostgreSQL's planner estimate of it. */
export interface TickCount {
  count: number;
  estimate: boolean;
}

/**
 * How many of one symbol's ticks lie in `range`: exact up to `exactUpTo`, by a count that reads at
 * most `exactUpTo + 1` entries of the (symbol, sipTimestamp, sequenceNumber) index however many the
 * symbol holds; past it, PostgreSQL's planner estimate of the same rows (EXPLAIN: nothing read, and
 * never less than what the count saw). Under the request's deadline as every read is.
 */
export async function tickCount(
  db: Db,
  table: TickTable,
  symbol: string,
  range: TimeRange,
  exactUpTo: number = EXACT_TICK_COUNT,
): Promise<TickCount> {
  const rows = Prisma.sql`FROM ${Prisma.raw(`"${table}"`)} WHERE ${Prisma.join([Prisma.sql`"symbol" = ${symbol}`, ...rangeFilters(range)], ' AND ')}`;
  const [counted] = await readSql<{ n: unknown }>(
    db,
    Prisma.sql`SELECT COUNT(*) AS "n" FROM (SELECT 1 ${rows} LIMIT ${exactUpTo + 1}) t`,
  );
  const count = Number(counted?.n ?? 0);
  if (count <= exactUpTo) return { count, estimate: false };
  // not through Db.read: a request's reads there are combined into one SELECT, which EXPLAIN cannot be part of
  const [explained] = await db.prisma.$queryRaw<{ 'QUERY PLAN': unknown }[]>(
    Prisma.sql`EXPLAIN (FORMAT JSON) SELECT 1 ${rows}`,
  );
  const plan = explained?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: { 'Plan Rows': number } }];
  return { count: Math.max(count, Math.round(parsed[0].Plan['Plan Rows'])), estimate: true };
}

/**
 * A page's lazy `totalCount` and `totalCountIsEstimate` (db/keyset.ts Page) for one symbol's ticks
 * in `range`: one `tickCount`, run when either is first asked for.
 */
export function tickTotals(
  db: Db,
  table: TickTable,
  symbol: string,
  range: TimeRange,
): { totalCount: () => Promise<number>; totalCountIsEstimate: () => Promise<boolean> } {
  let counted: Promise<TickCount> | undefined;
  const count = () => (counted ??= tickCount(db, table, symbol, range));
  return {
    totalCount: async () => (await count()).count,
    totalCountIsEstimate: async () => (await count()).estimate,
  };
}

/** The newest tick of each symbol, in one statement. */
export async function latestTicks<T extends TickTable>(
  db: Db,
  table: T,
  symbols: readonly string[],
): Promise<Map<string, TickRow<T> | null>> {
  const pages = await tickPages(db, table, symbols, {}, { direction: 'desc', first: 1 });
  return new Map([...pages].map(([s, p]) => [s, p.nodes[0] ?? null]));
}

export async function symbolHasTicks(db: Db, table: TickTable, symbol: string): Promise<boolean> {
  const row =
    table === 'Trade'
      ? await db.prisma.trade.findFirst({ where: { symbol }, select: { symbol: true } })
      : await db.prisma.quote.findFirst({ where: { symbol }, select: { symbol: true } });
  return row !== null;
}

export interface TickWrite<Row> {
  inserted: number;
  updated: number;
  unchanged: number;
  /** The rows that did not exist before, in input order: what a feed of new ticks publishes. */
  insertedRows: Row[];
}

/** What a write changed, for what is derived from the ticks (services/bar-write.ts). */
export interface TickChange<Row> {
  /** The rows that did not exist before. */
  inserted: Row[];
  /** The rows that replaced stored ones with other values, and the sipTimestamp each had before. */
  updated: { row: Row; sipTimestampBefore: bigint }[];
}

/**
 * What a writer's caller runs as the LAST work of the write's transaction, on the rows it inserted:
 * the importers append their live events here (ingest/importer.ts), under a lock held to commit.
 */
export type LastInTransaction<Row> = (client: PoolClient, inserted: Row[]) => Promise<void>;

/**
 * Stores ticks by their natural key (symbol, sequenceNumber) in one transaction: new ones are
 * inserted, stored ones with other values updated, equal ones left alone. Keys must be distinct.
 */
export async function writeTicks<T extends TickTable>(
  db: Db,
  table: T,
  rows: TickRow<T>[],
  within?: (client: PoolClient, change: TickChange<TickRow<T>>) => Promise<void>,
): Promise<TickWrite<TickRow<T>>> {
  const r = await bulkUpsert(db, table, ['symbol', 'sequenceNumber'], rows as unknown as Record<string, unknown>[], {
    replaced: within ? ['sipTimestamp'] : [],
    within:
      within &&
      ((client, r) =>
        within(client, {
          inserted: rows.filter((_, i) => r.wasInserted[i]),
          updated: rows.flatMap((row, i) => {
            const before = r.replaced[i];
            return before ? [{ row, sipTimestampBefore: BigInt(before.sipTimestamp as string) }] : [];
          }),
        })),
  });
  return {
    inserted: r.inserted,
    updated: r.updated,
    unchanged: r.unchanged,
    insertedRows: rows.filter((_, i) => r.wasInserted[i]),
  };
}

const MAX_NANOS = 2n ** 63n - 1n;
const MIN_NANOS = -(2n ** 63n);

/**
 * Nanoseconds, held to what a 64-bit column can store: a bound past 2262-04-11 (or before 1677)
 * matches the same rows as the column's own limit would, and the database never sees an overflow.
 */
export function clampNanos(ns: bigint): bigint {
  return ns > MAX_NANOS ? MAX_NANOS : ns < MIN_NANOS ? MIN_NANOS : ns;
}

/** Milliseconds-precision Date to nanoseconds since the epoch (clamped to 64 bits). */
export function toNanos(d: Date): bigint {
  return clampNanos(BigInt(d.getTime()) * 1_000_000n);
}

/** Nanoseconds since the epoch to a Date (milliseconds precision). */
export function fromNanos(ns: bigint): Date {
  return new Date(Number(ns / 1_000_000n));
}
