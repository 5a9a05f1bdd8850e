// The routes of one exchange day (rest/bar.ts): the previous close, a day's open and close with its
// pre-market and after-hours prices, and every symbol's bar of a day, from the base bars as the
// aggregates (services/bar.ts) read them.
import type { Db } from '../db/client.js';
import { dateOfDay } from '../domain/bar-time.js';
import { nyMidnightMs } from '../domain/market-calendar.js';
import { segmentsOf, type Adjustment } from './adjustment.js';
import { barHistory, type Bar, type Factor, type History } from './bar.js';

/** The price factor `factors` give exchange day `day` (1 where none applies). */
export function priceFactorOn(factors: readonly Factor[], day: number): number {
  return factors.find((f) => day >= f.lo && day <= f.hi)?.price ?? 1;
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

/**
 * Every symbol's regular-session bar of exchange day `day` (Massive's grouped daily), each under the
 * symbol it traded as that day, adjusted for the splits after it up to today when `adjusted`
 * (Massive's `adjusted` is splits only: a dividend's factor needs each symbol's own history).
 */
export async function groupedDay(db: Db, day: number, adjusted: boolean, asOf: number): Promise<GroupedBar[]> {
  const rows = await db.read<{
    symbol: string;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number;
    vwap: number | null;
    trades: number;
    price: number;
    volumeFactor: number;
  }>(
    `SELECT b."symbol", b."open", b."high", b."low", b."close", b."volume", b."vwap", b."trades",
       coalesce(f."price", 1) AS "price", coalesce(f."volume", 1) AS "volumeFactor"
     FROM "DayBar" b
     LEFT JOIN LATERAL (
       SELECT exp(sum(ln(x."splitFrom" / x."splitTo"))) AS "price", exp(sum(ln(x."splitTo" / x."splitFrom"))) AS "volume"
       FROM "Split" x
       WHERE $2 AND x."ticker" = b."symbol" AND x."executionDate" > $3 AND x."executionDate" <= $4
         AND x."splitFrom" > 0 AND x."splitTo" > 0
     ) f ON true
     WHERE b."day" = $1 AND b."extended" = false AND b."open" IS NOT NULL AND b."high" IS NOT NULL
     ORDER BY b."symbol" LIMIT ${MAX_GROUPED}`,
    [day, adjusted, dateOfDay(day), dateOfDay(asOf)],
  );
  const t = nyMidnightMs(dateOfDay(day));
  return rows.map((r) => ({
    symbol: r.symbol,
    t,
    o: r.open * r.price,
    h: r.high * r.price,
    l: r.low * r.price,
    c: r.close * r.price,
    v: r.volume * r.volumeFactor,
    vw: r.vwap === null ? null : r.vwap * r.price,
    n: r.trades,
  }));
}
