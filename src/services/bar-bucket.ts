// How base bars combine into one, and which bucket of a query each base bar falls in: the SQL that
// services/bar.ts reads aggregates with and services/bar-write.ts keeps the base bars with.
import { dayMinutes, minuteFacts } from '../domain/bar-time.js';

export const TIMESPANS = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Timespan = (typeof TIMESPANS)[number];

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
      return multiplier * 31 * MONTHS[timespan];
  }
}

const MONTHS = { month: 1, quarter: 3, year: 12 } as const;

/**
 * The parts of a bar and how bars combine into one: open the first non-null open and close the last
 * non-null close in time, high the highest, low the lowest, volume and trades summed, vwap weighted
 * by volume. A part no bar sets stays null (a minute of odd lots only has volume and no price).
 * The one rule that combines bars, at every level: trades into minutes and minutes into days
 * (bar-write.ts), and base bars into a query's buckets (bar.ts).
 */
const PARTS = [
  { column: 'open', rule: 'first' },
  { column: 'high', rule: 'max' },
  { column: 'low', rule: 'min' },
  { column: 'close', rule: 'last' },
  { column: 'volume', rule: 'sum', cast: 'float8' },
  { column: 'vwap', rule: 'volumeWeighted' },
  { column: 'trades', rule: 'sum', cast: 'int' },
] as const;

/**
 * The rule's SQL aggregate over the bars `b` (`order`: `b.` columns, ascending in time). With `names`
 * (one per `order` column, all of one type) it also gives the order key the open and the close were
 * taken at, as "open<name>" and "close<name>" (bar-write.ts merges new trades into a minute by them).
 */
export function combine(order: string, names: readonly string[] = []): string {
  const columns = order.split(',').map((c) => c.trim());
  const desc = columns.map((c) => `${c} DESC`).join(', ');
  // the least (greatest) key as an array, which compares column by column as ORDER BY does; the
  // same aggregate named once per column is computed once
  const at = (part: 'open' | 'close', extreme: 'min' | 'max') =>
    names.map(
      (name, i) =>
        `(${extreme}(ARRAY[${columns.join(', ')}]) FILTER (WHERE b."${part}" IS NOT NULL))[${i + 1}] AS "${part}${name}"`,
    );
  const keys = [...at('open', 'min'), ...at('close', 'max')];
  const parts = PARTS.map((p) => {
    const c = `b."${p.column}"`;
    switch (p.rule) {
      case 'first':
        return `(array_agg(${c} ORDER BY ${order}) FILTER (WHERE ${c} IS NOT NULL))[1] AS "${p.column}"`;
      case 'last':
        return `(array_agg(${c} ORDER BY ${desc}) FILTER (WHERE ${c} IS NOT NULL))[1] AS "${p.column}"`;
      case 'max':
      case 'min':
        return `${p.rule}(${c}) AS "${p.column}"`;
      case 'sum':
        return `coalesce(sum(${c}), 0)::${p.cast} AS "${p.column}"`;
      case 'volumeWeighted':
        return `(sum(${c} * b."volume") FILTER (WHERE ${c} IS NOT NULL)
          / nullif(sum(b."volume") FILTER (WHERE ${c} IS NOT NULL), 0))::float8 AS "${p.column}"`;
    }
  });
  return [...keys, ...parts].join(',\n    ');
}

/**
 * The same rule over one bar `b`, without a GROUP BY: each part is what `combine` makes of a group of
 * that bar alone (test/services/bar-bucket.test.ts runs both over the same rows), for buckets of one
 * base bar (minute and day bars), whose aggregate state per group costs ten times the rows' reading.
 */
export function combineOne(): string {
  return PARTS.map((p) => {
    const c = `b."${p.column}"`;
    switch (p.rule) {
      case 'first':
      case 'last':
      case 'max':
      case 'min':
        return `${c} AS "${p.column}"`;
      case 'sum':
        return `coalesce(${c}, 0)::${p.cast} AS "${p.column}"`;
      case 'volumeWeighted':
        return `(${c} * b."volume" / nullif(b."volume", 0))::float8 AS "${p.column}"`;
    }
  }).join(', ');
}

/** SQL expressions of a base bar's place in time: its day, and for minute bars its minute and minute of that day. */
export interface BaseColumns {
  day: string;
  local: string;
  minute: string;
}

/**
 * How a query's buckets are keyed: `key` gives, in SQL, the bucket of a base bar (an integer that
 * grows with time), `start` that bucket's first instant. Buckets of days and longer are keyed by
 * their first day, counted from the anchor's bucket; minutes and hours by their first minute.
 */
export interface Buckets {
  base: 'MinuteBar' | 'DayBar';
  key(c: BaseColumns): string;
  /** The bucket's start, epoch ms. */
  start(key: number): number;
  /** The most base bars one bucket holds. */
  largest: number;
  /** The SQL of `key` for the base bar at `position` (an epoch minute, or a day): where a read's first bucket starts. */
  keyAt(position: number): string;
}

/** Keys apart per New York day, more than its minutes (1,500 on the day clocks fall back). */
const DAY_KEY = 2_000;

/** a ÷ m rounded down, for any sign of a (SQL's `/` rounds toward zero). */
const floorDiv = (a: string, m: number) => `(((${a}) - (((${a}) % ${m}) + ${m}) % ${m}) / ${m})`;

/** New York midnight starting `day`, epoch ms (kept per day: a page's bars fall on few days, many times over). */
const dayStartMs = (day: number) => dayMinutes(day).first * 60_000;

/**
 * The buckets of `multiplier` × `timespan`. Minute and hour buckets that divide a day align to New
 * York midnight (buckets of whole hours stay on the hour across a change of clocks, which moves
 * midnight by whole hours); other widths count from the epoch. Buckets of several days, weeks
 * (Sunday to Saturday), months, quarters or years count from the bucket holding `anchorDay`.
 */
export function bucketsOf(timespan: Timespan, multiplier: number, anchorDay: number): Buckets {
  const m = multiplier;
  const largest = basesPerBar(timespan, m);
  if (timespan === 'minute' || timespan === 'hour') {
    const width = largest;
    const at = (minute: number) => {
      const facts = minuteFacts(minute);
      return { day: String(facts.day), local: String(facts.local), minute: String(minute) };
    };
    const minuteBuckets = (key: Buckets['key'], start: Buckets['start']): Buckets => ({
      base: 'MinuteBar',
      key,
      start,
      largest,
      keyAt: (minute) => key(at(minute)),
    });
    // a minute's own bucket: its minute (an int, where the keys below need a bigint)
    if (width === 1)
      return minuteBuckets(
        (c) => c.minute,
        (key) => key * 60_000,
      );
    if (1440 % width === 0)
      return minuteBuckets(
        (c) => `(${c.day}::bigint * ${DAY_KEY} + (${c.local} / ${width}) * ${width})`,
        (key) => dayStartMs(Math.floor(key / DAY_KEY)) + (key % DAY_KEY) * 60_000,
      );
    return minuteBuckets(
      (c) => `((${c.minute}::bigint / ${width}) * ${width})`,
      (key) => key * 60_000,
    );
  }
  const days = (c: Pick<BaseColumns, 'day'>): string => {
    if (timespan === 'day') return `(${anchorDay} + ${floorDiv(`${c.day} - ${anchorDay}`, m)} * ${m})`;
    if (timespan === 'week') {
      // weeks start on Sunday; 1970-01-04 was one (day 3)
      const week = (day: string) => floorDiv(`${day} - 3`, 7);
      const first = week(String(anchorDay));
      return `((${first} + ${floorDiv(`${week(c.day)} - ${first}`, m)} * ${m}) * 7 + 3)`;
    }
    // months since 1970-01, the anchor's bucket starting on a multiple of the unit (quarters in
    // January, April, July and October, years in January)
    const unit = MONTHS[timespan];
    const month = (day: string) =>
      `((extract(year FROM DATE '1970-01-01' + ${day})::int - 1970) * 12 + extract(month FROM DATE '1970-01-01' + ${day})::int - 1)`;
    const first = `${floorDiv(month(String(anchorDay)), unit)} * ${unit}`;
    const k = `(${first} + ${floorDiv(`${month(c.day)} - ${first}`, unit * m)} * ${unit * m})`;
    return `(make_date(1970 + ${k} / 12, ${k} % 12 + 1, 1) - DATE '1970-01-01')`;
  };
  return {
    base: 'DayBar',
    key: days,
    start: (key) => dayStartMs(key),
    largest,
    keyAt: (day) => days({ day: String(day) }),
  };
}

/** The first and last base-bar positions (minutes, or days) of the instants from..to (epoch ms). */
export function baseRange(buckets: Buckets, from: number, to: number): { lo: number; hi: number } {
  if (buckets.base === 'MinuteBar') return { lo: Math.ceil(from / 60_000), hi: Math.floor(to / 60_000) };
  return { lo: minuteFacts(Math.floor(from / 60_000)).day, hi: minuteFacts(Math.floor(to / 60_000)).day };
}
