// Base aggregates: the minute and day bars every price-history answer is built from (MinuteBar,
// DayBar in prisma/schema.prisma). They are kept from the trades in the writer's own transaction
// (writeTrades → refreshBars), and `cli bars rebuild` recomputes any range of them the same way.
//
// One rule combines bars at every level: a trade is a bar of one price (its own open, high, low and
// close where its conditions let it set them, domain/conditions.ts), minutes combine trades, days
// combine minutes, and a query's buckets combine either: `combine` (services/bar.ts).
import type { PoolClient } from 'pg';
import type { Db } from '../db/client.js';
import { excluded, excludedOutsideRegular } from '../domain/conditions.js';
import { dayMinutes, dayNumber, minuteFacts } from '../domain/bar-time.js';
import { combine } from './bar-bucket.js';
import { CALENDAR_SPAN, nyMidnightMs } from '../domain/market-calendar.js';

/** The session code of a minute bar (MinuteBar.session): where the market calendar puts its start. */
export const SESSION_CODE = { pre: 0, regular: 1, post: 2, closed: 3 } as const;

/**
 * The trades of `t` as bars of one trade each: a part the trade's conditions keep it from setting
 * is null, and a trade that sets nothing counts as no trade. The condition lists are parameters
 * (jsonb arrays of one code each) derived from domain/conditions.ts, so the rule exists there
 * alone: $1-$3 high/low, open/close and volume within the regular session, $9-$11 outside it.
 */
const TRADES_AS_BARS = `SELECT t."sipTimestamp", t."sequenceNumber",
      CASE WHEN oc THEN t."price" END AS "open",
      CASE WHEN hl THEN t."price" END AS "high",
      CASE WHEN hl THEN t."price" END AS "low",
      CASE WHEN oc THEN t."price" END AS "close",
      CASE WHEN vol THEN t."size" ELSE 0 END AS "volume",
      CASE WHEN vol THEN t."price" END AS "vwap",
      CASE WHEN hl OR oc OR vol THEN 1 ELSE 0 END AS "trades"
    FROM (SELECT t.*,
            NOT (t."conditions" @> ANY (CASE WHEN k."session" = 1 THEN $1::jsonb[] ELSE $9::jsonb[] END)) AS hl,
            NOT (t."conditions" @> ANY (CASE WHEN k."session" = 1 THEN $2::jsonb[] ELSE $10::jsonb[] END)) AS oc,
            NOT (t."conditions" @> ANY (CASE WHEN k."session" = 1 THEN $3::jsonb[] ELSE $11::jsonb[] END)) AS vol
          FROM "Trade" t
          WHERE t."symbol" = k."symbol"
            AND t."sipTimestamp" >= k."minute"::bigint * 60000000000
            AND t."sipTimestamp" < (k."minute"::bigint + 1) * 60000000000) t`;

const BAR_COLUMNS = '"open", "high", "low", "close", "volume", "vwap", "trades"';
const UPDATE_BAR = ['open', 'high', 'low', 'close', 'volume', 'vwap', 'trades']
  .map((c) => `"${c}" = EXCLUDED."${c}"`)
  .join(', ');

/** Minutes recomputed from their trades: inserted, updated, or deleted when no trade counts any more. */
const REFRESH_MINUTES = `WITH k AS (
    SELECT * FROM unnest($4::text[], $5::int[], $6::int[], $7::smallint[], $8::smallint[])
      AS k("symbol", "minute", "day", "local", "session")
  ), fresh AS (
    SELECT k.*, a.* FROM k CROSS JOIN LATERAL (
      SELECT ${combine('b."sipTimestamp", b."sequenceNumber"')} FROM (${TRADES_AS_BARS}) b
    ) a
  ), gone AS (
    DELETE FROM "MinuteBar" m USING fresh f
    WHERE m."symbol" = f."symbol" AND m."minute" = f."minute" AND f."trades" = 0
  )
  INSERT INTO "MinuteBar" ("symbol", "minute", "day", "local", "session", ${BAR_COLUMNS})
  SELECT "symbol", "minute", "day", "local", "session", ${BAR_COLUMNS} FROM fresh WHERE "trades" > 0
  ON CONFLICT ("symbol", "minute") DO UPDATE SET "day" = EXCLUDED."day", "local" = EXCLUDED."local",
    "session" = EXCLUDED."session", ${UPDATE_BAR}`;

/**
 * Days recomputed from their minute bars, the regular session (minutes of session 1) and the
 * extended day (every minute of the day); a day left without minutes loses its derived bars.
 */
const REFRESH_DAYS = `WITH k AS (
    SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[]) AS k("symbol", "day", "lo", "hi")
  ), fresh AS (
    SELECT k."symbol", k."day", e."extended", a.* FROM k CROSS JOIN (VALUES (false), (true)) e("extended")
    CROSS JOIN LATERAL (
      SELECT ${combine('b."minute"')} FROM "MinuteBar" b
      WHERE b."symbol" = k."symbol" AND b."minute" >= k."lo" AND b."minute" < k."hi"
        AND (e."extended" OR b."session" = ${SESSION_CODE.regular})
    ) a
  ), gone AS (
    DELETE FROM "DayBar" d USING fresh f
    WHERE d."symbol" = f."symbol" AND d."extended" = f."extended" AND d."day" = f."day" AND f."trades" = 0
  )
  INSERT INTO "DayBar" ("symbol", "extended", "day", ${BAR_COLUMNS})
  SELECT "symbol", "extended", "day", ${BAR_COLUMNS} FROM fresh WHERE "trades" > 0
  ON CONFLICT ("symbol", "extended", "day") DO UPDATE SET ${UPDATE_BAR}`;

/** The nanoseconds of the calendar's first day and of the day after its last. */
const FIRST_NS = BigInt(nyMidnightMs(CALENDAR_SPAN.from)) * 1_000_000n;
const END_NS = BigInt(nyMidnightMs(CALENDAR_SPAN.to)) * 1_000_000n;

const KINDS = ['highLow', 'openClose', 'volume'] as const;
const asJsonb = (ids: readonly number[]) => ids.map((id) => `[${id}]`);
/** The condition codes that keep a trade from setting each part, as jsonb arrays `[code]` (for `@>`): in the regular session, then outside it. */
const CONDITION_PARAMS = {
  regular: KINDS.map((kind) => asJsonb(excluded(kind))),
  outside: KINDS.map((kind) => asJsonb(excludedOutsideRegular(kind))),
};

/** How many minutes one statement recomputes: its arrays stay small enough to plan and send at once. */
const MINUTES_PER_STATEMENT = 20_000;

/**
 * Recomputes the minute and day bars of every (symbol, minute) the trades `touched` fall in, on
 * `client` (inside the writer's transaction: the bars commit with the trades or not at all). Each
 * minute is recomputed from all its stored trades, so a late or corrected trade corrects its minute
 * and its day.
 */
export async function refreshBars(
  client: PoolClient,
  touched: Iterable<{ symbol: string; sipTimestamp: bigint }>,
): Promise<void> {
  const minutes = new Map<string, { symbol: string; minute: number }>();
  for (const t of touched) {
    // the market calendar knows 2000-2199 (domain/market-calendar.ts): a trade outside it has no bar
    if (t.sipTimestamp < FIRST_NS || t.sipTimestamp >= END_NS) continue;
    // trades are after 1970: division truncates as SQL's does in rebuildBars
    const minute = Number(t.sipTimestamp / 60_000_000_000n);
    minutes.set(`${t.symbol}\u0000${minute}`, { symbol: t.symbol, minute });
  }
  await refreshMinutes(client, [...minutes.values()]);
}

async function refreshMinutes(client: PoolClient, minutes: { symbol: string; minute: number }[]): Promise<void> {
  if (minutes.length === 0) return;
  const days = new Map<string, { symbol: string; day: number; lo: number; hi: number }>();
  for (let i = 0; i < minutes.length; i += MINUTES_PER_STATEMENT) {
    const part = minutes.slice(i, i + MINUTES_PER_STATEMENT);
    const columns = {
      symbol: [] as string[],
      minute: [] as number[],
      day: [] as number[],
      local: [] as number[],
      session: [] as number[],
    };
    for (const { symbol, minute } of part) {
      const facts = minuteFacts(minute);
      columns.symbol.push(symbol);
      columns.minute.push(minute);
      columns.day.push(facts.day);
      columns.local.push(facts.local);
      columns.session.push(SESSION_CODE[facts.session]);
      const { first, end } = dayMinutes(facts.day);
      days.set(`${symbol}\u0000${facts.day}`, { symbol, day: facts.day, lo: first, hi: end });
    }
    await client.query(REFRESH_MINUTES, [
      ...CONDITION_PARAMS.regular,
      columns.symbol,
      columns.minute,
      columns.day,
      columns.local,
      columns.session,
      ...CONDITION_PARAMS.outside,
    ]);
  }
  const list = [...days.values()];
  await client.query(REFRESH_DAYS, [
    list.map((d) => d.symbol),
    list.map((d) => d.day),
    list.map((d) => d.lo),
    list.map((d) => d.hi),
  ]);
}

export interface RebuildRange {
  symbol?: string | undefined;
  /** Exchange days 'YYYY-MM-DD', inclusive; the whole history when absent. */
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * `cli bars rebuild`: the minute bars of `range` that stored trades fall in, and their days,
 * recomputed from the trades by the rule the writer keeps them with (refreshBars), one transaction
 * per symbol. Bars no stored trade backs are left alone: imported history, or minutes whose ticks
 * retention dropped (bars outlive ticks). Returns the symbols and minutes recomputed.
 */
export async function rebuildBars(db: Db, range: RebuildRange): Promise<{ symbols: number; minutes: number }> {
  const lo = range.from === undefined ? null : dayMinutes(dayNumber(range.from)).first;
  const hi = range.to === undefined ? null : dayMinutes(dayNumber(range.to)).end;
  const pool = db.driver.pool;
  const { rows: symbols } = await pool.query<{ symbol: string }>(
    `SELECT DISTINCT "symbol" FROM "Trade" WHERE ($1::text IS NULL OR "symbol" = $1) ORDER BY 1`,
    [range.symbol ?? null],
  );
  let minutes = 0;
  for (const { symbol } of symbols) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ minute: number }>(
        `SELECT DISTINCT ("sipTimestamp" / 60000000000)::int AS "minute" FROM "Trade"
         WHERE "symbol" = $1 AND "sipTimestamp" >= $2::bigint * 60000000000 AND "sipTimestamp" < $3::bigint * 60000000000`,
        [symbol, lo ?? Number(FIRST_NS / 60_000_000_000n), hi ?? Number(END_NS / 60_000_000_000n)],
      );
      await refreshMinutes(
        client,
        rows.map((r) => ({ symbol, minute: r.minute })),
      );
      await client.query('COMMIT');
      minutes += rows.length;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }
  return { symbols: symbols.length, minutes };
}
