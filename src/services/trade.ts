import type { Db } from '../db/client.js';
import { Prisma, type Trade } from '../../generated/prisma/client.js';
import { AppError } from '../errors.js';
import { latestTicks, tickPage, writeTicks, type TickPageArgs, type TimeRange } from './tick.js';

export type { Trade };

export const tradePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Trade', symbol, range, args);
export const latestTrades = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Trade', symbols);
export const writeTrades = (db: Db, rows: Trade[]) => writeTicks(db, 'Trade', rows);

export const TIMESPANS = { minute: 60_000_000_000n, hour: 3_600_000_000_000n, day: 86_400_000_000_000n } as const;
export type Timespan = keyof typeof TIMESPANS;

/** Bars per symbol one answer holds at most (`first`'s default and largest value). */
export const MAX_BARS = 5_000;
/**
 * Buckets the range from..to may span: 50,000, the most base aggregates Massive answers in one
 * call. A bucket without an eligible trade is left out, so a week of minute bars (10,080 calendar
 * minutes; about 4,800 in the extended sessions of its 5 trading days) is one range and, paged by
 * `first`, one or two answers. The statement reads the trades of the range whatever `first`: the
 * request's deadline bounds that (REQUEST_TIMEOUT_MS, its statement_timeout).
 */
export const MAX_BAR_BUCKETS = 50_000;

export interface Bar {
  symbol: string;
  /** Bucket start, nanoseconds since the epoch (UTC). */
  start: bigint;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Volume-weighted average price. */
  vwap: number;
  trades: number;
}

/**
 * OHLCV bars aggregated from trades in SQL, for several symbols in one statement: buckets are
 * `sipTimestamp / span`; open and close are the first and last trade of a bucket by
 * (sipTimestamp, sequenceNumber). At most `first` bars a symbol, the oldest.
 */
export async function barsFor(
  db: Db,
  symbols: readonly string[],
  timespan: Timespan,
  from: bigint,
  to: bigint,
  first: number,
): Promise<Map<string, Bar[]>> {
  const span = TIMESPANS[timespan];
  if (to < from) throw new AppError('BAD_REQUEST', 'argument "from" is after "to"');
  if ((to - from) / span + 1n > BigInt(MAX_BAR_BUCKETS)) {
    throw new AppError(
      'BAD_REQUEST',
      `the range from..to spans more than ${MAX_BAR_BUCKETS} ${timespan} buckets; narrow it or use a longer timespan`,
    );
  }
  const out = new Map<string, Bar[]>(symbols.map((s) => [s, []]));
  if (symbols.length === 0) return out;
  const rows = await db.prisma.$queryRaw<
    {
      symbol: string;
      bucket: bigint;
      open: number;
      high: number;
      low: number;
      close: number;
      volume: number;
      notional: number;
      trades: bigint;
    }[]
  >(Prisma.sql`
    SELECT * FROM (
    SELECT "symbol", "bucket",
           ROW_NUMBER() OVER (PARTITION BY "symbol" ORDER BY "bucket") AS "n",
           MAX(CASE WHEN "firstRank" = 1 THEN "price" END) AS "open",
           MAX("price") AS "high",
           MIN("price") AS "low",
           MAX(CASE WHEN "lastRank" = 1 THEN "price" END) AS "close",
           SUM("size") AS "volume",
           SUM("price" * "size") AS "notional",
           COUNT(*) AS "trades"
    FROM (
      SELECT "symbol", "price", "size", "sipTimestamp" / ${span} AS "bucket",
             ROW_NUMBER() OVER (PARTITION BY "symbol", "sipTimestamp" / ${span} ORDER BY "sipTimestamp", "sequenceNumber") AS "firstRank",
             ROW_NUMBER() OVER (PARTITION BY "symbol", "sipTimestamp" / ${span} ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC) AS "lastRank"
      FROM "Trade"
      WHERE "symbol" IN (${Prisma.join([...symbols])}) AND "sipTimestamp" >= ${from} AND "sipTimestamp" <= ${to}
    ) ranked
    GROUP BY "symbol", "bucket"
    ) numbered
    WHERE "n" <= ${first}
    ORDER BY "symbol", "bucket"`);
  for (const r of rows) {
    const volume = Number(r.volume);
    out.get(r.symbol)?.push({
      symbol: r.symbol,
      start: BigInt(r.bucket) * span,
      open: Number(r.open),
      high: Number(r.high),
      low: Number(r.low),
      close: Number(r.close),
      volume,
      vwap: volume ? Number(r.notional) / volume : 0,
      trades: Number(r.trades),
    });
  }
  return out;
}
