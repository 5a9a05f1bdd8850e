// Snapshots: the state of each symbol's market now (Snapshot in prisma/schema.prisma), one row a
// symbol, read whole by every route and field that answers one (rest/snapshot.ts, schema/snapshot.ts).
//
// Kept in the writers' transactions: writeTrades and writeQuotes (services/trade.ts, quote.ts) call
// `refreshSnapshots` with the symbols their batch touched, after the trade writer has kept its
// bars (services/bar-write.ts), so every instance reads the state of the last commit. A refresh
// reads, for each symbol, the newest trade and quote by their (symbol, sipTimestamp, sequenceNumber)
// index and the latest minute bar and two day bars by their keys: a few index probes a symbol,
// however many ticks it has. Recomputed rather than merged, so there is one rule: a late trade (an
// older sipTimestamp than the last) cannot become the last trade, a correction of the last trade
// shows, and `cli bars rebuild`, the seed and the migration that made the table leave the same
// rows an import would.
//
// The bars are copied into the row, not joined at read time: the all-symbol snapshot then reads one
// table in key order, and the movers one index (bench/snapshots.ts, bench/RESULTS.md).
import type { PoolClient } from 'pg';
import type { Db } from '../db/client.js';
import { dateOfDay } from '../domain/bar-time.js';
import { nyMidnightMs } from '../domain/market-calendar.js';
import type { Bar } from './bar.js';

/** Massive's movers: the top 20 by change since the previous close, among symbols that traded at least 10,000 shares today. */
export const MOVERS = { count: 20, minVolume: 10_000 } as const;

/** Symbols the all-symbol snapshot answers at most: every stock of a market (as the grouped daily). */
export const MAX_ALL_SNAPSHOTS = 20_000;

/** Symbols one refresh statement takes: its arrays stay small enough to plan and send at once. */
const SYMBOLS_PER_STATEMENT = 5_000;

/** A bar some trade could set prices of (`open` and `close` come together, as `high` and `low` do): the grouped day's rule (services/bar-day.ts). */
const priced = (x: string) => `${x}."open" IS NOT NULL AND ${x}."high" IS NOT NULL`;

const bar = (x: string, extra = '') =>
  `jsonb_build_object(${extra}'o', ${x}."open", 'h', ${x}."high", 'l', ${x}."low", 'c', ${x}."close", 'v', ${x}."volume", 'vw', ${x}."vwap", 'n', ${x}."trades")`;

const COLUMNS = [
  '"tradeAt"',
  '"tradeSequence"',
  '"tradeId"',
  '"tradePrice"',
  '"tradeSize"',
  '"tradeExchange"',
  '"tradeConditions"',
  '"quoteAt"',
  '"quoteSequence"',
  '"bidPrice"',
  '"bidSize"',
  '"bidExchange"',
  '"askPrice"',
  '"askSize"',
  '"askExchange"',
  '"minuteBar"',
  '"day"',
  '"dayBar"',
  '"prevDay"',
  '"prevDayBar"',
  '"todaysChange"',
  '"todaysChangePerc"',
  '"moverPerc"',
  '"updated"',
];

/**
 * The snapshot of each symbol of `k` (a relation of "symbol"), recomputed from the stored ticks and
 * bars, and written: $1 is the movers' least day volume. Bars are those with prices (`priced`). The
 * day is the latest minute bar's (else
 * the latest regular-session day bar's); its bar the whole day's (pre-market to after-hours) where
 * minutes made it, else the regular session's; the previous day the last before it with a
 * regular-session bar, whose close the change is from. The price changed is the last trade's, or
 * the day's close where no trade is stored. A symbol left with nothing loses its row.
 */
export const refreshStatement = (k: string) => `WITH k AS (${k}), fresh AS (
    SELECT k."symbol", t.*, q.*, m."minuteBar", m."minute", d."day", d."dayBar", d."dayClose", d."dayVolume",
      p."prevDay", p."prevDayBar", p."prevClose"
    FROM k
    LEFT JOIN LATERAL (
      SELECT x."sipTimestamp" AS "tradeAt", x."sequenceNumber" AS "tradeSequence", x."tradeId", x."price" AS "tradePrice",
        x."size" AS "tradeSize", x."exchange" AS "tradeExchange", x."conditions" AS "tradeConditions"
      FROM "Trade" x WHERE x."symbol" = k."symbol" ORDER BY x."sipTimestamp" DESC, x."sequenceNumber" DESC LIMIT 1
    ) t ON true
    LEFT JOIN LATERAL (
      SELECT x."sipTimestamp" AS "quoteAt", x."sequenceNumber" AS "quoteSequence", x."bidPrice", x."bidSize",
        x."bidExchange", x."askPrice", x."askSize", x."askExchange"
      FROM "Quote" x WHERE x."symbol" = k."symbol" ORDER BY x."sipTimestamp" DESC, x."sequenceNumber" DESC LIMIT 1
    ) q ON true
    LEFT JOIN LATERAL (
      SELECT x."minute", x."day", ${bar('x', `'t', x."minute"::bigint * 60000, `)} AS "minuteBar"
      FROM "MinuteBar" x WHERE x."symbol" = k."symbol" AND ${priced('x')} ORDER BY x."minute" DESC LIMIT 1
    ) m ON true
    LEFT JOIN LATERAL (
      SELECT x."day", ${bar('x')} AS "dayBar", x."close" AS "dayClose", x."volume" AS "dayVolume"
      FROM "DayBar" x
      WHERE x."symbol" = k."symbol" AND ${priced('x')} AND x."day" = COALESCE(m."day",
        (SELECT max(y."day") FROM "DayBar" y WHERE y."symbol" = k."symbol" AND y."extended" = false AND ${priced('y')}))
      ORDER BY x."extended" DESC LIMIT 1
    ) d ON true
    LEFT JOIN LATERAL (
      SELECT x."day" AS "prevDay", ${bar('x')} AS "prevDayBar", x."close" AS "prevClose"
      FROM "DayBar" x WHERE x."symbol" = k."symbol" AND x."extended" = false AND x."day" < d."day" AND ${priced('x')}
      ORDER BY x."day" DESC LIMIT 1
    ) p ON true
  ), priced AS (
    SELECT f.*, COALESCE(f."tradePrice", f."dayClose") - f."prevClose" AS "todaysChange",
      (COALESCE(f."tradePrice", f."dayClose") - f."prevClose") / NULLIF(f."prevClose", 0) * 100 AS "todaysChangePerc"
    FROM fresh f
  ), gone AS (
    DELETE FROM "Snapshot" s USING priced f
    WHERE s."symbol" = f."symbol" AND f."tradeAt" IS NULL AND f."quoteAt" IS NULL AND f."day" IS NULL
  )
  INSERT INTO "Snapshot" ("symbol", ${COLUMNS.join(', ')})
  SELECT "symbol", "tradeAt", "tradeSequence", "tradeId", "tradePrice", "tradeSize", "tradeExchange", "tradeConditions",
    "quoteAt", "quoteSequence", "bidPrice", "bidSize", "bidExchange", "askPrice", "askSize", "askExchange",
    "minuteBar", "day", "dayBar", "prevDay", "prevDayBar", "todaysChange", "todaysChangePerc",
    CASE WHEN "dayVolume" >= $1 THEN "todaysChangePerc" END,
    COALESCE(GREATEST("tradeAt", "quoteAt"), "minute"::bigint * 60000000000, 0)
  FROM priced WHERE "tradeAt" IS NOT NULL OR "quoteAt" IS NOT NULL OR "day" IS NOT NULL
  ON CONFLICT ("symbol") DO UPDATE SET ${COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;

const REFRESH_GIVEN = refreshStatement(`SELECT DISTINCT unnest($2::text[]) AS "symbol"`);

/** Every symbol any source of a snapshot names, each table's read by skipping through its index. */
const skipScan = (table: string) => `(WITH RECURSIVE s AS (
      SELECT min("symbol") AS "symbol" FROM "${table}"
      UNION ALL SELECT (SELECT min(x."symbol") FROM "${table}" x WHERE x."symbol" > s."symbol") FROM s WHERE s."symbol" IS NOT NULL
    ) SELECT "symbol" FROM s WHERE "symbol" IS NOT NULL)`;
export const ALL_SYMBOLS = ['Trade', 'Quote', 'MinuteBar', 'DayBar'].map(skipScan).join(' UNION ');

/**
 * One writer at a time refreshes a symbol's snapshot, until its transaction ends: a trade writer and
 * a quote writer of the same symbol would each miss the other's uncommitted row. In symbol order,
 * so two writers never wait on each other in a circle.
 */
async function lockSnapshots(client: PoolClient, symbols: readonly string[]): Promise<void> {
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('market-data-gateway:snapshot:' || x."symbol", 0))
     FROM (SELECT DISTINCT unnest($1::text[]) AS "symbol" ORDER BY 1) x`,
    [symbols],
  );
}

/** Recomputes the snapshots of `symbols` in the caller's transaction (a writer's `within`, services/tick.ts). */
export async function refreshSnapshots(client: PoolClient, symbols: readonly string[]): Promise<void> {
  const distinct = [...new Set(symbols)].sort();
  for (let i = 0; i < distinct.length; i += SYMBOLS_PER_STATEMENT) {
    const part = distinct.slice(i, i + SYMBOLS_PER_STATEMENT);
    await lockSnapshots(client, part);
    // named: each connection plans the statement once, not once a batch
    await client.query({ name: 'snapshot-refresh', text: REFRESH_GIVEN, values: [MOVERS.minVolume, part] });
  }
}

/** Symbols one transaction of `refreshAllSnapshots` takes: each holds a lock a symbol, and the server's lock table is finite. */
const SYMBOLS_PER_TRANSACTION = 1_000;

/** Recomputes every symbol's snapshot (the seed, after it wrote ticks and bars around the writers), a transaction a slice of symbols. */
export async function refreshAllSnapshots(db: Db): Promise<number> {
  const { rows } = await db.driver.pool.query<{ symbol: string }>(`${ALL_SYMBOLS} ORDER BY 1`);
  const symbols = rows.map((r) => r.symbol);
  const client = await db.driver.pool.connect();
  try {
    for (let i = 0; i < symbols.length; i += SYMBOLS_PER_TRANSACTION) {
      try {
        await client.query('BEGIN');
        await refreshSnapshots(client, symbols.slice(i, i + SYMBOLS_PER_TRANSACTION));
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    }
  } finally {
    client.release();
  }
  return symbols.length;
}

/** A stored bar of a snapshot: services/bar.ts `Bar` without its start, which its day or minute gives. */
type StoredBar = Omit<Bar, 't'> & { t?: number };

/** A snapshot as stored. */
export interface SnapshotRow {
  symbol: string;
  tradeAt: bigint | null;
  tradeSequence: bigint | null;
  tradeId: string | null;
  tradePrice: number | null;
  tradeSize: number | null;
  tradeExchange: number | null;
  tradeConditions: number[] | null;
  quoteAt: bigint | null;
  quoteSequence: bigint | null;
  bidPrice: number | null;
  bidSize: number | null;
  bidExchange: number | null;
  askPrice: number | null;
  askSize: number | null;
  askExchange: number | null;
  minuteBar: StoredBar | null;
  day: number | null;
  dayBar: StoredBar | null;
  prevDay: number | null;
  prevDayBar: StoredBar | null;
  todaysChange: number | null;
  todaysChangePerc: number | null;
  updated: bigint;
}

/** A snapshot with its bars as services/bar.ts `Bar`s, each starting at its minute or its day's New York midnight. */
export interface Snapshot extends Omit<SnapshotRow, 'minuteBar' | 'dayBar' | 'prevDayBar'> {
  minuteBar: Bar | null;
  dayBar: Bar | null;
  prevDayBar: Bar | null;
}

const SELECT = `SELECT "symbol", ${COLUMNS.filter((c) => c !== '"moverPerc"').join(', ')} FROM "Snapshot"`;

const dayStart = (day: number | null) => (day === null ? 0 : nyMidnightMs(dateOfDay(day)));

/** A stored row as the routes and fields read it. */
export function snapshotOf(row: SnapshotRow): Snapshot {
  return {
    ...row,
    minuteBar: row.minuteBar && ({ t: 0, ...row.minuteBar } as Bar),
    dayBar: row.dayBar && { ...row.dayBar, t: dayStart(row.day) },
    prevDayBar: row.prevDayBar && { ...row.prevDayBar, t: dayStart(row.prevDay) },
  };
}

/** The snapshots of `symbols` (stored symbols, upper case), in one statement; a symbol without one has none in the map. */
export async function snapshotsOf(db: Db, symbols: readonly string[]): Promise<Map<string, Snapshot>> {
  const rows = await db.read<SnapshotRow>(`${SELECT} WHERE "symbol" = ANY($1::text[])`, [symbols]);
  return new Map(rows.map((r) => [r.symbol, snapshotOf(r)]));
}

/** Every symbol's snapshot, by symbol, at most `limit` (MAX_ALL_SNAPSHOTS). */
export async function allSnapshots(db: Db, limit: number = MAX_ALL_SNAPSHOTS): Promise<Snapshot[]> {
  const rows = await db.read<SnapshotRow>(`${SELECT} ORDER BY "symbol" LIMIT $1`, [Math.min(limit, MAX_ALL_SNAPSHOTS)]);
  return rows.map(snapshotOf);
}

export type MoverDirection = 'gainers' | 'losers';

/**
 * The top MOVERS.count symbols by todaysChangePerc among those whose day volume qualifies (stored
 * as moverPerc by the refresh) and whose day is the market's (the latest of any snapshot: a symbol
 * that stopped trading, a delisted one, keeps its last day's change but moves no more): gainers up
 * from the previous close, largest first; losers down, largest fall first. Read from the
 * (moverPerc, symbol) index; ties by symbol.
 */
export async function movers(db: Db, direction: MoverDirection): Promise<Snapshot[]> {
  const today = `"day" = (SELECT max("day") FROM "Snapshot")`;
  const rows = await db.read<SnapshotRow>(
    direction === 'gainers'
      ? `${SELECT} WHERE "moverPerc" > 0 AND ${today} ORDER BY "moverPerc" DESC, "symbol" DESC LIMIT $1`
      : `${SELECT} WHERE "moverPerc" < 0 AND ${today} ORDER BY "moverPerc" ASC, "symbol" ASC LIMIT $1`,
    [MOVERS.count],
  );
  return rows.map(snapshotOf);
}
