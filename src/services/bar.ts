// Aggregates of any size, built at query time from the base bars (services/bar-write.ts keeps
// them): minute and hour buckets from MinuteBar, day to year buckets from DayBar, in one statement,
// adjusted by the factors the caller passes (services/adjustments.ts computes them from the
// corporate actions). What a request may read is bounded before it runs: `limit` base bars at most,
// as Massive's aggregates count it (docs/rest.md#aggregates).
import type { Db } from '../db/client.js';
import { decodeCursor, encodeCursor, type Ordering } from '../db/keyset.js';
import { dateOfDay, dayNumber, minuteFacts } from '../domain/bar-time.js';
import { AppError } from '../errors.js';
import { CalendarDay } from '../domain/time.js';
import { CALENDAR_SPAN, nyMidnightMs } from '../domain/market-calendar.js';
import { actionsOf, factorsOf, segmentsOf, type Adjustment, type Segment } from './adjustment.js';
import { checkFill, fillPage } from './bar-fill.js';
import { baseRange, bucketsOf, combine, combineOne, type Buckets, type Timespan } from './bar-bucket.js';

export type Session = 'regular' | 'extended';
export type Sort = 'asc' | 'desc';

/**
 * The session a bar holds when the caller names none: minutes and hours the extended day (Massive's
 * intraday bars cover the pre-market and after-hours), days and longer the regular session (the
 * official open and close, which the consolidated rules give a day: domain/conditions.ts).
 */
export function defaultSession(timespan: Timespan): Session {
  return timespan === 'minute' || timespan === 'hour' ? 'extended' : 'regular';
}

/** Base bars one answer may read (Massive's `limit`: default 5,000, at most 50,000). */
export const BASE_BARS = { default: 5_000, max: 50_000 } as const;
/** The largest multiplier: past it a bucket spans more than any range a request may read. */
export const MAX_MULTIPLIER = 100_000;

/** A factor for the base bars of the exchange days lo..hi (inclusive): prices times `price`, volumes times `volume`. */
export interface Factor {
  lo: number;
  hi: number;
  price: number;
  volume: number;
}

export interface BarQuery {
  /** The security's stretches of history, each under its symbol (services/adjustment.ts segmentsOf). */
  segments: readonly Segment[];
  multiplier: number;
  timespan: Timespan;
  /** Epoch milliseconds, both inclusive: the base bars starting within them are read. */
  from: number;
  to: number;
  session: Session;
  sort: Sort;
  /** Base bars read at most. */
  limit: number;
  /** Adjustment factors by day; none: raw prices. */
  factors: readonly Factor[];
  /**
   * Where buckets of several days, weeks, months... count from (epoch ms; default `from`): reads of
   * one series that start at different places pass the same anchor to get the same buckets.
   */
  anchor?: number;
  /** Read the bucket holding `from` whole, from its start, rather than from `from` (asc only). */
  whole?: boolean;
  /** A bar, from the previous close, for each bucket of the sessions without one (services/bar-fill.ts). */
  fill?: boolean;
}

export interface Bar {
  /** Start of the bucket, epoch milliseconds. */
  t: number;
  o: number | null;
  h: number | null;
  l: number | null;
  c: number | null;
  v: number;
  vw: number | null;
  n: number;
}

export interface BarPage {
  bars: Bar[];
  /** Base bars the answer was built from. */
  queryCount: number;
  /** Where the next page starts (epoch ms, `from` for asc, `to` for desc) when `limit` cut the range. */
  next?: { from: number } | { to: number };
}

/**
 * A range's bound in epoch ms: a date alone (a CalendarDay, or REST's YYYY-MM-DD) is the exchange's
 * day in New York, from its first millisecond (`start`) or through its last (`end`); a time is itself.
 * REST and GraphQL read their bounds here alike.
 */
export function barBound(value: Date | string, bound: 'start' | 'end'): number {
  const given = typeof value === 'string' ? value : value instanceof CalendarDay ? value.toJSON() : undefined;
  if (given === undefined) return (value as Date).getTime();
  // a day the calendar does not know holds no bar: the range is cut to the days it knows
  const date = [CALENDAR_SPAN.from, given, CALENDAR_SPAN.to].sort()[1]!;
  if (bound === 'start') return nyMidnightMs(date);
  return date === CALENDAR_SPAN.to ? HISTORY.to : nyMidnightMs(dateOfDay(dayNumber(date) + 1)) - 1;
}

/**
 * The instants a bar may start at: the market calendar's days (domain/market-calendar.ts), but its
 * last, whose instants would need the midnight after it to be placed in their day.
 */
export const HISTORY = { from: nyMidnightMs(CALENDAR_SPAN.from), to: nyMidnightMs(CALENDAR_SPAN.to) - 1 } as const;

/** The exchange day in New York of `now` (epoch ms: the request's clock, ctx.now), the default `asOf`. */
export function today(now: number): number {
  return minuteFacts(Math.floor(Math.min(Math.max(now, HISTORY.from), HISTORY.to) / 60_000)).day;
}

/** The exchange's date of an instant (epoch ms). */
function dateOfDayOf(ms: number): string {
  return dateOfDay(minuteFacts(Math.floor(ms / 60_000)).day);
}

/**
 * One page of `q`'s bars, oldest first (or newest first): at most `q.limit` base bars read, in the
 * order of `q.sort`; when the limit cuts the range, the bucket it cut is left out (it would be
 * partial) and `next` says where the next page starts, as Massive's next_url does.
 */
export async function barPage(db: Db, query: BarQuery): Promise<BarPage> {
  // the calendar knows 2000-2199 (domain/market-calendar.ts): no bar lies outside it
  const q = { ...query, from: Math.max(query.from, HISTORY.from), to: Math.min(query.to, HISTORY.to) };
  if (q.from > q.to) return { bars: [], queryCount: 0 };
  const anchorDay = minuteFacts(Math.floor(Math.max(q.anchor ?? q.from, HISTORY.from) / 60_000)).day;
  const b = bucketsOf(q.timespan, q.multiplier, anchorDay);
  if (q.limit < b.largest)
    throw new AppError(
      'BAD_REQUEST',
      `limit ${q.limit} is fewer than the base bars one ${q.multiplier} ${q.timespan} bar may hold (${b.largest}); raise limit or narrow the bar`,
    );
  if (q.fill) checkFill(b, q.from, q.to, q.session);
  const rows = await db.read<BucketRow>(bucketSql(q, b), bucketParams(q));
  const bars: Bar[] = [];
  const priceless: Bar[] = [];
  let queryCount = 0;
  let next: BarPage['next'];
  let previous: number | undefined;
  // a bucket of one base bar is a row of its own: the row past `limit` is the cut one
  const one = b.largest === 1;
  for (const [i, r] of rows.entries()) {
    const start = b.start(Number(r.key));
    if (one ? i >= q.limit : r.cut) {
      // desc: the cut bucket ends where the newer one read before it starts (no base bar lies between)
      next = q.sort === 'asc' ? { from: start } : { to: previous! - 1 };
      break;
    }
    previous = start;
    queryCount += one ? 1 : r.bases;
    // in the order of Massive's fields: REST writes this very object (rest/bar.ts barRecord)
    const bar = { o: r.open, h: r.high, l: r.low, c: r.close, v: r.volume, vw: r.vwap, t: start, n: r.trades };
    // a bucket whose base bars carry volume but no price (odd lots only) is no bar to draw
    if (r.open === null || r.high === null || r.low === null || r.close === null) priceless.push(bar);
    else bars.push(bar);
  }
  const page: BarPage = next ? { bars, queryCount, next } : { bars, queryCount };
  if (!q.fill) return page;
  return { ...page, bars: await fillPage(db, q, b, page, priceless, (before) => lastClose(db, q, before)) };
}

/** The close of the last base bar before `before` (epoch ms) that has one, adjusted as `q`'s bars are. */
async function lastClose(db: Db, q: BarQuery, before: number): Promise<number | undefined> {
  const base = q.timespan === 'minute' || q.timespan === 'hour' ? 'minute' : 'day';
  const last = await barPage(db, {
    segments: q.segments,
    factors: q.factors,
    session: q.session,
    timespan: base,
    multiplier: 1,
    from: HISTORY.from,
    to: before - 1,
    sort: 'desc',
    limit: LAST_CLOSE_BASES,
  });
  return last.bars[0]?.c ?? undefined;
}

/** Base bars read back for the previous close: past a run of buckets without a price (odd lots only). */
const LAST_CLOSE_BASES = 100;

/** A bucket's row; `bases` and `cut` only where a bucket may hold several base bars. */
interface BucketRow {
  key: string | number | bigint;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  volume: number;
  vwap: number | null;
  trades: number;
  bases: number;
  cut: boolean;
}

type PageQuery = BarQuery & { from: number; to: number };

/** $1 the limit + 1, then per stretch its symbol and days, then the factors' arrays (factorSteps). */
function bucketParams(q: PageQuery): unknown[] {
  const params: unknown[] = [q.limit + 1];
  for (const s of q.segments) params.push(s.symbol, s.lo, s.hi);
  if (q.factors.length > 0) {
    const steps = factorSteps(q.factors);
    params.push(
      steps.map((f) => f.lo),
      steps.map((f) => f.price),
      steps.map((f) => f.volume),
    );
  }
  return params;
}

/**
 * The factors as steps from their first day on, a stretch without a factor between two with one
 * given its own step of 1: so SQL finds a day's step by a binary search of the steps' first days
 * (width_bucket), not by a range join of every bar with every factor.
 */
function factorSteps(factors: readonly Factor[]): Omit<Factor, 'hi'>[] {
  const steps: Omit<Factor, 'hi'>[] = [];
  const sorted = [...factors].sort((a, b) => a.lo - b.lo);
  for (const [i, f] of sorted.entries()) {
    steps.push({ lo: f.lo, price: f.price, volume: f.volume });
    const next = sorted[i + 1];
    if (!next || next.lo > f.hi + 1) steps.push({ lo: f.hi + 1, price: 1, volume: 1 });
  }
  return steps;
}

/**
 * The statement of a page: each stretch of history read by its own index range scan in the
 * page's order (its symbol a parameter of its own, so the planner knows how many rows it holds,
 * and stops after `limit` + 1), the stretches in order, numbered, adjusted, then combined by
 * bucket; a bucket of one base bar is its bar (combineOne), with no aggregate to build.
 */
function bucketSql(q: PageQuery, b: Buckets): string {
  const minuteBased = b.base === 'MinuteBar';
  const { lo, hi } = baseRange(b, q.from, q.to);
  const ord = minuteBased ? 'minute' : 'day';
  const dir = q.sort === 'asc' ? 'ASC' : 'DESC';
  const session = minuteBased
    ? q.session === 'regular'
      ? ' AND b."session" = 1'
      : ''
    : ` AND b."extended" = ${q.session === 'extended'}`;
  const columns = { day: 'b."day"', local: minuteBased ? 'b."local"' : '0', minute: minuteBased ? 'b."minute"' : '0' };
  // the bucket holding `from`, whole: from its first base bar (at most `largest` before `from`)
  const lower =
    q.whole && q.sort === 'asc'
      ? `b."${ord}" >= ${lo - b.largest} AND ${b.key(columns)} >= ${b.keyAt(lo)}`
      : `b."${ord}" >= ${lo}`;
  const f = q.factors.length > 0 ? q.segments.length * 3 + 2 : 0;
  const stretches = q.segments.map(
    (
      _,
      i,
    ) => `(SELECT ${b.key(columns)} AS "key", b."${ord}" AS "ord", b."day", b."open", b."high", b."low", b."close", b."volume", b."vwap", b."trades"
      FROM "${b.base}" b
      WHERE b."symbol" = $${i * 3 + 2} AND b."day" >= $${i * 3 + 3} AND b."day" <= $${i * 3 + 4}
        AND ${lower} AND b."${ord}" <= ${hi}${session}
      ORDER BY b."${ord}" ${dir} LIMIT $1)`,
  );
  const adjusted =
    f === 0
      ? 'b."open", b."high", b."low", b."close", b."volume", b."vwap"'
      : `b."open" * coalesce(b."price", 1) AS "open", b."high" * coalesce(b."price", 1) AS "high",
         b."low" * coalesce(b."price", 1) AS "low", b."close" * coalesce(b."price", 1) AS "close",
         b."volume" * coalesce(b."volumeFactor", 1) AS "volume", b."vwap" * coalesce(b."price", 1) AS "vwap"`;
  const page = `SELECT * FROM (${stretches.join(' UNION ALL ')}) b ORDER BY b."ord" ${dir} LIMIT $1`;
  // a day's factor by a binary search of the steps' first days (inline: a lateral join of
  // width_bucket cost a third of a ten-year page's statement)
  const factored =
    f === 0
      ? page
      : `SELECT b.*, ($${f + 1}::float8[])[width_bucket(b."day", $${f}::int[])] AS "price",
           ($${f + 2}::float8[])[width_bucket(b."day", $${f}::int[])] AS "volumeFactor"
         FROM (${page}) b`;
  const read = (numbered: string) => `SELECT b."key", b."ord", ${adjusted}, b."trades"${numbered} FROM (${factored}) b`;
  // one base bar a bucket: the rows in the page's order, the cut one the last (barPage counts them)
  if (b.largest === 1) return `SELECT b."key", ${combineOne()} FROM (${read('')}) b ORDER BY b."ord" ${dir}`;
  return `SELECT "key", ${combine('b."ord"')}, count(*) FILTER (WHERE b."rn" <= $1 - 1)::int AS "bases",
      bool_or(b."rn" > $1 - 1) AS "cut"
    FROM (${read(`, row_number() OVER (ORDER BY b."ord" ${dir}) AS "rn"`)}) b
    GROUP BY "key" ORDER BY "key" ${dir}`;
}

export interface HistoryQuery extends Omit<BarQuery, 'segments' | 'factors'> {
  /** The symbol asked for: the security that traded under it on `on` (default: the range's first day) is the one read. */
  symbol: string;
  on?: number | undefined;
  adjustments: ReadonlySet<Adjustment>;
  /** The exchange day whose quoted prices the answer is in (days since 1970-01-01). */
  asOf: number;
}

export interface History extends BarPage {
  /** The factors applied, by exchange day: a client divides by them to undo the adjustment. */
  factors: Factor[];
  /** The stretches of history read: with the factors, where more bars of the same series come from. */
  segments: Segment[];
}

/**
 * A page of a security's bars across the symbols it has traded under, adjusted by `adjustments`
 * to the prices quoted on `asOf`: what REST's aggregates and GraphQL's bars both answer.
 */
export async function barHistory(db: Db, q: HistoryQuery): Promise<History> {
  const on = q.on === undefined ? dateOfDayOf(Math.min(Math.max(q.from, HISTORY.from), HISTORY.to)) : dateOfDay(q.on);
  const segments = await segmentsOf(db, q.symbol, on);
  const factors = factorsOf(await actionsOf(db, segments, q.adjustments), q.asOf);
  const page = await barPage(db, { ...q, segments, factors });
  return { ...page, factors, segments };
}

/** A bar's cursor: its start, in the keyset cursors every list of the graph gives (db/keyset.ts). */
const BAR_ORDERING: Ordering<Bar> = { tag: 'bar', columns: [{ column: 't', type: 'bigint', of: (b) => BigInt(b.t) }] };

export function barCursor(t: number): string {
  return encodeCursor(BAR_ORDERING, 'asc', { t } as Bar);
}

/** The start a bar cursor carries; a BAD_REQUEST naming `argument` for anything else. */
export function barCursorStart(cursor: string, argument: 'after' | 'before'): number {
  return Number(decodeCursor(BAR_ORDERING, 'asc', cursor, argument)[0] as bigint);
}
