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

export const TIMESPANS = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Timespan = (typeof TIMESPANS)[number];
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

/** The most base bars one bar of `multiplier` × `timespan` holds: `first` bars need at most that many times as many. */
export function basesPerBar(timespan: Timespan, multiplier: number): number {
  switch (timespan) {
    case 'minute':
      return multiplier;
    case 'hour':
      return multiplier * 60;
    case 'day':
      return multiplier;
    case 'week':
      return multiplier * 7;
    default:
      return multiplier * 31 * { month: 1, quarter: 3, year: 12 }[timespan];
  }
}

/** Base bars one answer may read (Massive's `limit`: default 5,000, at most 50,000). */
export const BASE_BARS = { default: 5_000, max: 50_000 } as const;
/** The largest multiplier: past it a bucket spans more than any range a request may read. */
export const MAX_MULTIPLIER = 100_000;

/**
 * The SQL aggregate of the bars `b` (columns open, high, low, close, volume, vwap, trades) into one:
 * open the first non-null open and close the last non-null close by `order` (`b.` columns,
 * ascending), high the highest, low the lowest, volume and trades summed, vwap weighted by volume.
 * A part no bar sets stays null (a minute of odd lots only has volume and no price). The one rule
 * that combines bars, at every level: trades into minutes and minutes into days (bar-write.ts),
 * and base bars into a query's buckets (below). With `names` (one per `order` column, all of one
 * type) it also gives the order key the open and the close were taken at, as "open<name>" and
 * "close<name>".
 */
export function combine(order: string, names: readonly string[] = []): string {
  const columns = order.split(',').map((c) => c.trim());
  const desc = columns.map((c) => `${c} DESC`).join(', ');
  // the least (greatest) key as an array, which compares column by column as ORDER BY does; the
  // same aggregate named once per column is computed once
  const at = (part: 'open' | 'close', extreme: 'min' | 'max') =>
    names.map(
      (name, i) =>
        `(${extreme}(ARRAY[${columns.join(', ')}]) FILTER (WHERE b."${part}" IS NOT NULL))[${i + 1}] AS "${part}${name}",
    `,
    );
  return `${[...at('open', 'min'), ...at('close', 'max')].join('')}(array_agg(b."open" ORDER BY ${order}) FILTER (WHERE b."open" IS NOT NULL))[1] AS "open",
    max(b."high") AS "high",
    min(b."low") AS "low",
    (array_agg(b."close" ORDER BY ${desc}) FILTER (WHERE b."close" IS NOT NULL))[1] AS "close",
    coalesce(sum(b."volume"), 0)::float8 AS "volume",
    (sum(b."vwap" * b."volume") FILTER (WHERE b."vwap" IS NOT NULL)
      / nullif(sum(b."volume") FILTER (WHERE b."vwap" IS NOT NULL), 0))::float8 AS "vwap",
    coalesce(sum(b."trades"), 0)::int AS "trades"`;
}

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

/** How a timespan's buckets are keyed: SQL over base bar `b` giving an integer key, and back to time. */
interface Buckets {
  base: 'MinuteBar' | 'DayBar';
  key: string;
  /** The bucket's start and the start of the bucket after it, epoch ms. */
  span(key: number): { start: number; end: number };
  /** The most base bars one bucket holds. */
  largest: number;
}

/** Keys apart per New York day, more than its minutes (1,500 on the day clocks fall back). */
const DAY_KEY = 2_000;

function bucketsOf(q: BarQuery): Buckets {
  const m = q.multiplier;
  const fromDay = dayNumber(dateOfDayOf(q.from));
  const dayStartMs = (day: number) => nyMidnightMs(dateOfDay(day));
  if (q.timespan === 'minute' || q.timespan === 'hour') {
    const width = q.timespan === 'hour' ? m * 60 : m;
    if (1440 % width === 0)
      // aligned to New York's clock: minutes since its midnight (buckets of whole hours stay on the
      // hour across a change of clocks, which moves midnight by whole hours)
      return {
        base: 'MinuteBar',
        key: `b."day" * ${DAY_KEY} + (b."local" / ${width}) * ${width}`,
        span: (key) => {
          const start = dayStartMs(Math.floor(key / DAY_KEY)) + (key % DAY_KEY) * 60_000;
          return { start, end: start + width * 60_000 };
        },
        largest: basesPerBar(q.timespan, m),
      };
    // a width that does not divide a day: buckets from the epoch
    return {
      base: 'MinuteBar',
      key: `(b."minute"::bigint / ${width}) * ${width}`,
      span: (key) => ({ start: key * 60_000, end: (key + width) * 60_000 }),
      largest: basesPerBar(q.timespan, m),
    };
  }
  if (q.timespan === 'day')
    return {
      base: 'DayBar',
      key: `${fromDay} + ((b."day" - ${fromDay}) / ${m}) * ${m}`,
      span: (key) => ({ start: dayStartMs(key), end: dayStartMs(key + m) }),
      largest: basesPerBar(q.timespan, m),
    };
  if (q.timespan === 'week') {
    // weeks start on Sunday (1970-01-04 was one: day 3); the first bucket holds `from`'s week
    const week0 = Math.floor((fromDay - 3) / 7);
    return {
      base: 'DayBar',
      key: `${week0} + (((b."day" - 3) / 7 - ${week0}) / ${m}) * ${m}`,
      span: (key) => ({ start: dayStartMs(key * 7 + 3), end: dayStartMs((key + m) * 7 + 3) }),
      largest: basesPerBar(q.timespan, m),
    };
  }
  // months, quarters, years: counted in months from 1970-01
  const months = { month: 1, quarter: 3, year: 12 }[q.timespan] * m;
  const unit = { month: 1, quarter: 3, year: 12 }[q.timespan];
  const fromDate = dateOfDay(fromDay);
  const month0 =
    Math.floor(((Number(fromDate.slice(0, 4)) - 1970) * 12 + Number(fromDate.slice(5, 7)) - 1) / unit) * unit;
  const monthOf = `((extract(year FROM DATE '1970-01-01' + b."day")::int - 1970) * 12 + extract(month FROM DATE '1970-01-01' + b."day")::int - 1)`;
  const monthStart = (index: number) =>
    dayNumber(`${1970 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`);
  return {
    base: 'DayBar',
    key: `${month0} + ((${monthOf} - ${month0}) / ${months}) * ${months}`,
    span: (key) => ({ start: dayStartMs(monthStart(key)), end: dayStartMs(monthStart(key + months)) }),
    largest: basesPerBar(q.timespan, m),
  };
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
  const b = bucketsOf(q);
  if (q.limit < b.largest)
    throw new AppError(
      'BAD_REQUEST',
      `limit ${q.limit} is fewer than the base bars one ${q.multiplier} ${q.timespan} bar may hold (${b.largest}); raise limit or narrow the bar`,
    );
  const minuteBased = b.base === 'MinuteBar';
  const lo = minuteBased ? Math.ceil(q.from / 60_000) : dayNumber(dateOfDayOf(q.from));
  const hi = minuteBased ? Math.floor(q.to / 60_000) : dayNumber(dateOfDayOf(q.to));
  const order = minuteBased ? 'minute' : 'day';
  const dir = q.sort === 'asc' ? 'ASC' : 'DESC';
  const params: unknown[] = [
    q.segments.map((s) => s.symbol),
    lo,
    hi,
    q.limit + 1,
    q.segments.map((s) => s.lo),
    q.segments.map((s) => s.hi),
  ];
  const session = minuteBased
    ? q.session === 'regular'
      ? ' AND b."session" = 1'
      : ''
    : ` AND b."extended" = ${q.session === 'extended'}`;
  let adjusted = 'b."open", b."high", b."low", b."close", b."volume", b."vwap"';
  let join = '';
  if (q.factors.length > 0) {
    params.push(
      q.factors.map((f) => f.lo),
      q.factors.map((f) => f.hi),
      q.factors.map((f) => f.price),
      q.factors.map((f) => f.volume),
    );
    join = ` LEFT JOIN unnest($7::int[], $8::int[], $9::float8[], $10::float8[]) f("lo", "hi", "price", "volume")
      ON b."day" >= f."lo" AND b."day" <= f."hi"`;
    const p = 'coalesce(f."price", 1)';
    adjusted = `b."open" * ${p} AS "open", b."high" * ${p} AS "high", b."low" * ${p} AS "low", b."close" * ${p} AS "close",
      b."volume" * coalesce(f."volume", 1) AS "volume", b."vwap" * ${p} AS "vwap"`;
  }
  const sql = `SELECT "key", ${combine('b."ord"')}, count(*) FILTER (WHERE b."rn" <= $4 - 1)::int AS "bases",
      bool_or(b."rn" > $4 - 1) AS "cut"
    FROM (
      SELECT (${b.key})::bigint AS "key", b."${order}" AS "ord", ${adjusted}, b."trades",
             row_number() OVER (ORDER BY b."${order}" ${dir}) AS "rn"
      FROM unnest($1::text[], $5::int[], $6::int[]) s("symbol", "lo", "hi")
      JOIN "${b.base}" b ON b."symbol" = s."symbol" AND b."day" >= s."lo" AND b."day" <= s."hi"${join}
      WHERE b."${order}" >= $2 AND b."${order}" <= $3${session}
      ORDER BY b."${order}" ${dir} LIMIT $4
    ) b
    GROUP BY "key" ORDER BY "key" ${dir}`;
  const rows = await db.read<{
    key: string | number;
    open: number | null;
    high: number | null;
    low: number | null;
    close: number | null;
    volume: number;
    vwap: number | null;
    trades: number;
    bases: number;
    cut: boolean;
  }>(sql, params);
  const bars: Bar[] = [];
  let queryCount = 0;
  let next: BarPage['next'];
  for (const r of rows) {
    const span = b.span(Number(r.key));
    if (r.cut) {
      next = q.sort === 'asc' ? { from: span.start } : { to: span.end - 1 };
      break;
    }
    queryCount += r.bases;
    // a bucket whose base bars carry volume but no price (odd lots only) is no bar to draw
    if (r.open === null || r.high === null || r.low === null || r.close === null) continue;
    bars.push({ t: span.start, o: r.open, h: r.high, l: r.low, c: r.close, v: r.volume, vw: r.vwap, n: r.trades });
  }
  return next ? { bars, queryCount, next } : { bars, queryCount };
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
  return { ...page, factors };
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
