// The routes of one exchange day (rest/bar.ts): the previous close, a day's open and close with its
// pre-market and after-hours prices, and every symbol's bar of a day, from the base bars as the
// aggregates (services/bar.ts) read them.
import type { Db } from '../db/client.js';
import { dateOfDay } from '../domain/bar-time.js';
import { nyMidnightMs } from '../domain/market-calendar.js';
import { seekOf, toPage, type KeysetArgs, type Ordering, type Page } from '../db/keyset.js';
import { factorsOf, segmentsOf, splitAction, type Adjustment } from './adjustment.js';
import { barHistory, type Bar, type Factor, type History } from './bar.js';

const NO_FACTOR = { price: 1, volume: 1 } as const;

/** The price and volume factors `factors` give exchange day `day` (1 where none applies). */
function factorOn(factors: readonly Factor[], day: number): { price: number; volume: number } {
  return factors.find((f) => day >= f.lo && day <= f.hi) ?? NO_FACTOR;
}

/** The price factor `factors` give exchange day `day` (1 where none applies). */
export function priceFactorOn(factors: readonly Factor[], day: number): number {
  return factorOn(factors, day).price;
}

/** The regular-session day bar of the last exchange day before `before`, adjusted to today: Massive's previous close. */
export async function previousDay(
  db: Db,
  symbol: string,
  adjustments: ReadonlySet<Adjustment>,
  before: number,
): Promise<History> {
  const asOf = before;
  return barHistory(db, {
    symbol,
    on: asOf,
    multiplier: 1,
    timespan: 'day',
    from: 0,
    to: nyMidnightMs(dateOfDay(before)) - 1,
    session: 'regular',
    sort: 'desc',
    limit: 1,
    adjustments,
    asOf,
  });
}

export interface DayOpenClose {
  bar: Bar;
  /** The first pre-market price and the last after-hours price of the day, where it traded then. */
  preMarket: number | null;
  afterHours: number | null;
}

/** A day's regular-session bar with its pre-market open and after-hours close (Massive's open-close), or undefined without a bar that day. */
export async function openClose(
  db: Db,
  symbol: string,
  day: number,
  adjustments: ReadonlySet<Adjustment>,
  asOf: number,
): Promise<DayOpenClose | undefined> {
  const start = nyMidnightMs(dateOfDay(day));
  const history = await barHistory(db, {
    symbol,
    on: day,
    multiplier: 1,
    timespan: 'day',
    from: start,
    to: start,
    session: 'regular',
    sort: 'asc',
    limit: 1,
    adjustments,
    asOf,
  });
  const bar = history.bars[0];
  if (!bar) return undefined;
  const segments = await segmentsOf(db, symbol, dateOfDay(day));
  const [edges] = await db.read<{ pre: number | null; post: number | null }>(
    `SELECT
       (SELECT b."open" FROM "MinuteBar" b WHERE b."symbol" = ANY($1::text[]) AND b."day" = $2 AND b."session" = 0
          AND b."open" IS NOT NULL ORDER BY b."minute" LIMIT 1) AS "pre",
       (SELECT b."close" FROM "MinuteBar" b WHERE b."symbol" = ANY($1::text[]) AND b."day" = $2 AND b."session" = 2
          AND b."close" IS NOT NULL ORDER BY b."minute" DESC LIMIT 1) AS "post"`,
    [segments.filter((s) => day >= s.lo && day <= s.hi).map((s) => s.symbol), day],
  );
  const factor = priceFactorOn(history.factors, day);
  return {
    bar,
    preMarket: edges?.pre == null ? null : edges.pre * factor,
    afterHours: edges?.post == null ? null : edges.post * factor,
  };
}

/** Symbols one grouped day answers at most: every stock of a market. */
export const MAX_GROUPED = 20_000;

export interface GroupedBar extends Bar {
  symbol: string;
}

/** Which symbols of a grouped day one read takes: those strictly between `above` and `below`, `limit` of them from one end. */
interface GroupedRange {
  direction: 'asc' | 'desc';
  above?: string | undefined;
  below?: string | undefined;
  limit: number;
}

/**
 * Every symbol's regular-session bar of exchange day `day` (Massive's grouped daily), by symbol,
 * each under the symbol it traded as that day, adjusted for the splits after it up to today when
 * `adjusted` (Massive's `adjusted` is splits only: a dividend's factor needs each symbol's own history).
 */
export function groupedDay(db: Db, day: number, adjusted: boolean, asOf: number): Promise<GroupedBar[]> {
  return groupedBars(db, day, adjusted, asOf, { direction: 'asc', limit: MAX_GROUPED });
}

/** The grouped day's keyset order: by symbol, one bar each. */
const GROUPED_ORDERING: Ordering<GroupedBar> = {
  tag: 'grouped',
  columns: [{ column: 'symbol', type: 'string', of: (b) => b.symbol }],
};

/** A page of `groupedDay`: `first` symbols' bars after `after`, or `last` before `before` (db/keyset.ts). */
export async function groupedPage(
  db: Db,
  day: number,
  adjusted: boolean,
  asOf: number,
  args: KeysetArgs,
): Promise<Page<GroupedBar>> {
  const seek = seekOf(GROUPED_ORDERING, 'asc', args);
  // a backward read runs in the reverse order: what it reads after lies below its start
  const [start, end] = [seek.after?.[0], seek.before?.[0]] as (string | undefined)[];
  const rows = await groupedBars(db, day, adjusted, asOf, {
    direction: seek.direction,
    ...(seek.direction === 'asc' ? { above: start, below: end } : { above: end, below: start }),
    limit: seek.limit,
  });
  return toPage(rows, args, GROUPED_ORDERING, 'asc');
}

/**
 * The bars of a grouped day, each with its splits after the day in the same statement; its factor by the
 * adjustment rule of services/adjustment.ts (`splitAction`, `factorsOf`), as its own bars get it.
 */
async function groupedBars(
  db: Db,
  day: number,
  adjusted: boolean,
  asOf: number,
  range: GroupedRange,
): Promise<GroupedBar[]> {
  const params = [day, range.above ?? null, range.below ?? null, Math.min(range.limit, MAX_GROUPED)];
  // the page's day bars; the splits are read of the page's symbols only, so their rows follow the page's size
  const page = `FROM "DayBar" b
       WHERE b."day" = $1 AND b."extended" = false AND b."open" IS NOT NULL AND b."high" IS NOT NULL
         AND ($2::text IS NULL OR b."symbol" > $2::text) AND ($3::text IS NULL OR b."symbol" < $3::text)
       ORDER BY b."symbol" ${range.direction === 'asc' ? 'ASC' : 'DESC'} LIMIT $4`;
  // each symbol's splits after the day up to asOf, beside its bar: one index probe a row, no second read of the page
  const rows = await db.read<{
    symbol: string;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number;
    vwap: number | null;
    trades: number;
    splits: { executionDate: string; splitFrom: number; splitTo: number }[] | null;
  }>(
    `SELECT b."symbol", b."open", b."high", b."low", b."close", b."volume", b."vwap", b."trades", ${
      adjusted
        ? `(SELECT json_agg(json_build_object('executionDate', x."executionDate", 'splitFrom', x."splitFrom", 'splitTo', x."splitTo"))
            FROM "Split" x WHERE x."ticker" = b."symbol" AND x."executionDate" > $5 AND x."executionDate" <= $6
              AND x."splitFrom" > 0 AND x."splitTo" > 0)`
        : 'NULL::json'
    } AS "splits" ${page}`,
    adjusted ? [...params, dateOfDay(day), dateOfDay(asOf)] : params,
  );
  const t = nyMidnightMs(dateOfDay(day));
  return rows.map((r) => {
    const f = r.splits ? factorOn(factorsOf(r.splits.map(splitAction), asOf), day) : NO_FACTOR;
    return {
      symbol: r.symbol,
      t,
      o: r.open * f.price,
      h: r.high * f.price,
      l: r.low * f.price,
      c: r.close * f.price,
      v: r.volume * f.volume,
      vw: r.vwap === null ? null : r.vwap * f.price,
      n: r.trades,
    };
  });
}
