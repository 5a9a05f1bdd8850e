// Prices adjusted for corporate actions at query time: the factors of one security's bars, from its
// splits and cash dividends as stored (Split, Dividend), across the symbols it has traded under
// (SymbolHistory). Nothing adjusted is stored, so a late-reported action corrects every answer at
// once, and `asOf` gives the prices as they were quoted on any day (docs/graphql.md#price-history).
import type { Db } from '../db/client.js';
import { dateOfDay, dayNumber } from '../domain/bar-time.js';
import type { Factor } from './bar.js';

export type Adjustment = 'split' | 'dividend';

/** The most splits, and the most dividends, one security's adjustment reads (the latest): a century of quarterly dividends. */
const MAX_ACTIONS = 400;
/** The most factors an answer holds: one per stretch between the actions' days. */
export const MAX_FACTORS = 2 * MAX_ACTIONS + 1;

/** One stretch of a security's history under one symbol: exchange days lo..hi, inclusive. */
export interface Segment {
  symbol: string;
  lo: number;
  hi: number;
}

/** Days before any bar and after any: the open ends of a security's first and last stretch. */
export const FIRST_DAY = -1_000_000;
export const LAST_DAY = 1_000_000;

/**
 * The stretches of history of the security that traded as `symbol` on `date` (its exchange day):
 * each of its symbols from its start date to the day before the next one's. A symbol no history
 * names is one stretch, all days; a symbol another issuer used before is found under the security
 * that had it on `date`, never the other one: a stretch ends the day before another security takes
 * its symbol (a delisted issuer's symbol reused by a new listing), and starts no earlier than its
 * own start date when another security had the symbol before it.
 */
export async function segmentsOf(db: Db, symbol: string, date: string): Promise<Segment[]> {
  const rows = await db.read<{ symbol: string; startDate: string; reusedFrom: string | null; usedBefore: boolean }>(
    `WITH owner AS (
       SELECT h."securityId" FROM "SymbolHistory" h
       WHERE h."symbol" = $1 AND h."startDate" <= $2
         AND NOT EXISTS (SELECT 1 FROM "SymbolHistory" n WHERE n."securityId" = h."securityId"
                         AND n."startDate" > h."startDate" AND n."startDate" <= $2)
       ORDER BY h."startDate" DESC LIMIT 1
     ), current AS (
       SELECT s."id" AS "securityId" FROM "Security" s
       WHERE s."symbol" = $1 AND NOT EXISTS (SELECT 1 FROM owner) LIMIT 1
     )
     SELECT h."symbol", h."startDate",
       (SELECT min(o."startDate") FROM "SymbolHistory" o WHERE o."symbol" = h."symbol"
          AND o."securityId" <> h."securityId" AND o."startDate" > h."startDate") AS "reusedFrom",
       EXISTS (SELECT 1 FROM "SymbolHistory" o WHERE o."symbol" = h."symbol"
          AND o."securityId" <> h."securityId" AND o."startDate" < h."startDate") AS "usedBefore"
     FROM "SymbolHistory" h
     WHERE h."securityId" IN (SELECT "securityId" FROM owner UNION ALL SELECT "securityId" FROM current)
     ORDER BY h."startDate"`,
    [symbol, date],
  );
  if (rows.length === 0) return [{ symbol, lo: FIRST_DAY, hi: LAST_DAY }];
  return rows.map((r, i) => {
    const next = i + 1 < rows.length ? dayNumber(rows[i + 1]!.startDate) - 1 : LAST_DAY;
    return {
      symbol: r.symbol,
      lo: i === 0 && !r.usedBefore ? FIRST_DAY : dayNumber(r.startDate),
      hi: r.reusedFrom === null ? next : Math.min(next, dayNumber(r.reusedFrom) - 1),
    };
  });
}

/** An action as adjustments use it: the day it takes effect, and what it does to prices and volumes before it. */
export interface Action {
  kind: Adjustment;
  day: number;
  /** Prices before `day` times this to be in the terms of `day` and after. */
  price: number;
  /** Volumes before `day` times this. */
  volume: number;
}

/**
 * The security's actions that `adjustments` name, in its stretches: a split of `splitFrom` to
 * `splitTo` multiplies earlier prices by from/to and volumes by to/from; a cash dividend of D
 * multiplies earlier prices by 1 - D/C, C the regular-session close of the last day before the
 * ex-date (the CRSP method; a dividend with no earlier close, or one not below it, is left out).
 */
export async function actionsOf(
  db: Db,
  segments: readonly Segment[],
  adjustments: ReadonlySet<Adjustment>,
): Promise<Action[]> {
  if (adjustments.size === 0) return [];
  const params = [
    segments.map((s) => s.symbol),
    segments.map((s) => dateOfDay(Math.max(s.lo, FIRST_DAY_DATE))),
    segments.map((s) => dateOfDay(Math.min(s.hi, LAST_DAY_DATE))),
  ];
  const [splits, dividends] = await Promise.all([
    adjustments.has('split')
      ? db.read<{ executionDate: string; splitFrom: number; splitTo: number }>(
          `SELECT x."executionDate", x."splitFrom", x."splitTo"
           FROM unnest($1::text[], $2::text[], $3::text[]) s("symbol", "lo", "hi")
           JOIN "Split" x ON x."ticker" = s."symbol" AND x."executionDate" >= s."lo" AND x."executionDate" <= s."hi"
           WHERE x."splitFrom" > 0 AND x."splitTo" > 0
           ORDER BY x."executionDate" DESC LIMIT ${MAX_ACTIONS}`,
          params,
        )
      : [],
    adjustments.has('dividend')
      ? db.read<{ exDividendDate: string; cashAmount: number; close: number | null }>(
          `SELECT x."exDividendDate", x."cashAmount",
             (SELECT c."close" FROM unnest($1::text[], $4::int[], $5::int[]) t("symbol", "lo", "hi")
              CROSS JOIN LATERAL (SELECT d."day", d."close" FROM "DayBar" d
                WHERE d."symbol" = t."symbol" AND d."extended" = false AND d."day" >= t."lo" AND d."day" <= t."hi"
                  AND d."day" < x."exDividendDate"::date - DATE '1970-01-01' AND d."close" IS NOT NULL
                ORDER BY d."day" DESC LIMIT 1) c
              ORDER BY c."day" DESC LIMIT 1) AS "close"
           FROM unnest($1::text[], $2::text[], $3::text[]) s("symbol", "lo", "hi")
           JOIN "Dividend" x ON x."ticker" = s."symbol" AND x."exDividendDate" >= s."lo" AND x."exDividendDate" <= s."hi"
           WHERE x."cashAmount" > 0
           ORDER BY x."exDividendDate" DESC LIMIT ${MAX_ACTIONS}`,
          [...params, segments.map((s) => s.lo), segments.map((s) => s.hi)],
        )
      : [],
  ]);
  const out: Action[] = splits.map(splitAction);
  for (const x of dividends)
    if (x.close !== null && x.cashAmount < x.close)
      out.push({ kind: 'dividend', day: dayNumber(x.exDividendDate), price: 1 - x.cashAmount / x.close, volume: 1 });
  return out.sort((a, b) => a.day - b.day);
}

/** A stored split as an action: `splitFrom` shares became `splitTo`, so earlier prices times from/to, volumes times to/from. */
export function splitAction(x: { executionDate: string; splitFrom: number; splitTo: number }): Action {
  return {
    kind: 'split',
    day: dayNumber(x.executionDate),
    price: x.splitFrom / x.splitTo,
    volume: x.splitTo / x.splitFrom,
  };
}

/** The dates the day sentinels stand for in text comparisons (any date before or after every action). */
const FIRST_DAY_DATE = dayNumber('1900-01-01');
const LAST_DAY_DATE = dayNumber('2999-12-31');

/**
 * The factors of `actions` for prices as quoted on `asOf` (an exchange day): an action on or before
 * `asOf` applies to the bars before it; one after `asOf` is undone on the bars from its day on. One
 * factor per stretch between action days where prices change; none where they stay as quoted.
 */
export function factorsOf(actions: readonly Action[], asOf: number): Factor[] {
  const days = [...new Set(actions.map((a) => a.day))].sort((a, b) => a - b);
  const bounds = [FIRST_DAY, ...days];
  const out: Factor[] = [];
  for (const [i, lo] of bounds.entries()) {
    const hi = i + 1 < bounds.length ? bounds[i + 1]! - 1 : LAST_DAY;
    let price = 1;
    let volume = 1;
    for (const a of actions) {
      if (a.day <= asOf && lo < a.day) {
        price *= a.price;
        volume *= a.volume;
      } else if (a.day > asOf && lo >= a.day) {
        price /= a.price;
        volume /= a.volume;
      }
    }
    if (price !== 1 || volume !== 1) out.push({ lo, hi, price, volume });
  }
  return out;
}

/** How a caller names the adjustments: `raw` (none), `split`, `dividend`, or `all` (both). */
export const ADJUSTMENT_NAMES = ['raw', 'split', 'dividend', 'all'] as const;
export type AdjustmentName = (typeof ADJUSTMENT_NAMES)[number];

/**
 * The adjustments a list of names asks for (REST `adjustment=split,dividend`, GraphQL
 * `adjustment: [SPLIT, DIVIDEND]`, as Alpaca takes them). `raw` beside another name contradicts
 * it: undefined, which the caller refuses naming its argument.
 */
export function adjustmentSet(names: readonly AdjustmentName[]): Set<Adjustment> | undefined {
  if (names.includes('raw')) return names.every((n) => n === 'raw') ? new Set() : undefined;
  const out = new Set<Adjustment>();
  for (const n of names) {
    if (n === 'all' || n === 'split') out.add('split');
    if (n === 'all' || n === 'dividend') out.add('dividend');
  }
  return out;
}
