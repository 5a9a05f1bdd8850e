// Base aggregates: the minute and day bars every price-history answer is built from (MinuteBar,
// DayBar in prisma/schema.prisma). They are kept from the trades in the writer's own transaction
// (writeTrades → refreshBars): a batch's new trades are merged into their minutes' stored bars,
// which keep when their open and close were, so no stored trade is read; a minute where a stored
// trade changed is recomputed from its trades, as `cli bars rebuild` recomputes any range of them.
// A merged vwap is a mean of means: it may differ from a recomputed one in its last bits
// (test/services/bar-write.test.ts); every other part is exact.
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
import { refreshSnapshots } from './snapshot.js';

/** The session code of a minute bar (MinuteBar.session): where the market calendar puts its start. */
export const SESSION_CODE = { pre: 0, regular: 1, post: 2, closed: 3 } as const;

/**
 * Which parts trades of `conditions` in a minute of `session` may set: hl (high and low), oc (open
 * and close), vol (volume). The condition lists are parameters (jsonb arrays of one code each)
 * derived from domain/conditions.ts, so the rule exists there alone: $1-$3 within the regular
 * session, $4-$6 outside it.
 */
const partsSet = (conditions: string, session: string) =>
  ['hl', 'oc', 'vol']
    .map(
      (part, i) =>
        `NOT (${conditions} @> ANY (CASE WHEN ${session} = ${SESSION_CODE.regular} THEN $${i + 1}::jsonb[] ELSE $${i + 4}::jsonb[] END)) AS ${part}`,
    )
    .join(', ');

/**
 * Trades `t` as bars of one trade each, from `from`, which gives them with the parts they may set
 * (partsSet): a part a trade may not set is null, and a trade that sets nothing counts as no trade.
 * `carry` are columns of `t` kept in front.
 */
const tradesAsBars = (from: string, carry = '') => `SELECT ${carry}t."sipTimestamp", t."sequenceNumber",
      CASE WHEN oc THEN t."price" END AS "open",
      CASE WHEN hl THEN t."price" END AS "high",
      CASE WHEN hl THEN t."price" END AS "low",
      CASE WHEN oc THEN t."price" END AS "close",
      CASE WHEN vol THEN t."size" ELSE 0 END AS "volume",
      CASE WHEN vol THEN t."price" END AS "vwap",
      CASE WHEN hl OR oc OR vol THEN 1 ELSE 0 END AS "trades"
    FROM ${from} t`;

const BAR_COLUMNS = '"open", "high", "low", "close", "volume", "vwap", "trades"';
/** A minute also keeps the order key its open and close were taken at: what a merge compares. */
const MINUTE_COLUMNS = `${BAR_COLUMNS}, "openAt", "openSequence", "closeAt", "closeSequence"`;
const updateOf = (columns: string) =>
  columns
    .split(', ')
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
/** The one rule (services/bar.ts combine) over trades in their order, with that order's key of open and close. */
const COMBINE_TRADES = combine('b."sipTimestamp", b."sequenceNumber"', ['At', 'Sequence']);
/** The minutes given as $7-$11: symbol, minute, and the minute's day, minute of day and session; numbered "n" when `numbered`. */
const minutesGiven = (numbered = false) =>
  `SELECT * FROM unnest($7::text[], $8::int[], $9::int[], $10::smallint[], $11::smallint[])${numbered ? ' WITH ORDINALITY' : ''}
      AS k("symbol", "minute", "day", "local", "session"${numbered ? ', "n"' : ''})`;
const WRITE_MINUTES = `INSERT INTO "MinuteBar" ("symbol", "minute", "day", "local", "session", ${MINUTE_COLUMNS})
  SELECT "symbol", "minute", "day", "local", "session", ${MINUTE_COLUMNS} FROM fresh WHERE "trades" > 0
  ON CONFLICT ("symbol", "minute") DO UPDATE SET "day" = EXCLUDED."day", "local" = EXCLUDED."local",
    "session" = EXCLUDED."session", ${updateOf(MINUTE_COLUMNS)}`;

/** Minutes recomputed from their stored trades: inserted, updated, or deleted when no trade counts any more. */
const REFRESH_MINUTES = `WITH k AS (${minutesGiven()}), fresh AS (
    SELECT k.*, a.* FROM k CROSS JOIN LATERAL (
      SELECT ${COMBINE_TRADES} FROM (${tradesAsBars(`(
          SELECT t.*, ${partsSet('t."conditions"', 'k."session"')} FROM "Trade" t
          WHERE t."symbol" = k."symbol"
            AND t."sipTimestamp" >= k."minute"::bigint * 60000000000
            AND t."sipTimestamp" < (k."minute"::bigint + 1) * 60000000000
        )`)}) b
    ) a
  ), gone AS (
    DELETE FROM "MinuteBar" m USING fresh f
    WHERE m."symbol" = f."symbol" AND m."minute" = f."minute" AND f."trades" = 0
  )
  ${WRITE_MINUTES}`;

/** A stored minute that cannot say when its open or close was (imported, or kept before it could). */
const UNORDERED = `(m."open" IS NOT NULL AND m."openAt" IS NULL) OR (m."close" IS NOT NULL AND m."closeAt" IS NULL)`;

/**
 * New trades ($12-$17: their minute's place "n" among those given, sipTimestamp, sequenceNumber,
 * price, size, and which of the condition lists $18 they have) merged into their minutes' bars
 * without reading a stored trade: the one rule (combine) over the new trades and the stored bar, as
 * its open at the order key it was taken at and its close at its own. What a list of conditions
 * lets a trade set is found once per list and session. The stored bars are locked (FOR UPDATE)
 * before they are read. Returns the minutes given that it left alone because their stored bar has
 * no such keys: the caller recomputes those from their trades.
 */
const MERGE_MINUTES = `WITH given AS (${minutesGiven(true)}), unordered AS (
    SELECT g."symbol", g."minute" FROM given g JOIN "MinuteBar" m ON m."symbol" = g."symbol" AND m."minute" = g."minute"
    WHERE ${UNORDERED}
  ), k AS (
    SELECT g.* FROM given g
    WHERE NOT EXISTS (SELECT FROM unordered u WHERE u."symbol" = g."symbol" AND u."minute" = g."minute")
  ), t AS (
    SELECT * FROM unnest($12::int[], $13::bigint[], $14::bigint[], $15::float8[], $16::float8[], $17::int[])
      AS t("n", "sipTimestamp", "sequenceNumber", "price", "size", "conditions")
  ), rules AS MATERIALIZED (
    SELECT c."i", s."session", ${partsSet('c."conditions"', 's."session"')}
    FROM unnest($18::jsonb[]) WITH ORDINALITY c("conditions", "i")
    CROSS JOIN (VALUES ${Object.values(SESSION_CODE)
      .map((code) => `(${code})`)
      .join(', ')}) s("session")
  ), stored AS (
    SELECT k."n", m.* FROM "MinuteBar" m JOIN k ON m."symbol" = k."symbol" AND m."minute" = k."minute" FOR UPDATE OF m
  ), parts AS (
    ${tradesAsBars(
      `(SELECT t.*, r."hl", r."oc", r."vol" FROM t JOIN k ON k."n" = t."n"
          JOIN rules r ON r."i" = t."conditions" AND r."session" = k."session")`,
      't."n", ',
    )}
    UNION ALL SELECT "n", "openAt", "openSequence", "open", "high", "low", NULL, "volume", "vwap", "trades" FROM stored
    UNION ALL SELECT "n", "closeAt", "closeSequence", NULL, NULL, NULL, "close", 0, NULL, 0 FROM stored
  ), fresh AS (
    SELECT k.*, a.* FROM k JOIN (
      -- grouped by the minute's place among those given: an integer sorts faster than (symbol, minute)
      SELECT b."n" AS "at", ${COMBINE_TRADES} FROM parts b GROUP BY b."n"
    ) a ON a."at" = k."n"
  ), written AS (
    ${WRITE_MINUTES}
  )
  SELECT "symbol", "minute" FROM unordered`;

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
  ON CONFLICT ("symbol", "extended", "day") DO UPDATE SET ${updateOf(BAR_COLUMNS)}`;

/** The nanoseconds of the calendar's first day and of the day after its last. */
const FIRST_NS = BigInt(nyMidnightMs(CALENDAR_SPAN.from)) * 1_000_000n;
const END_NS = BigInt(nyMidnightMs(CALENDAR_SPAN.to)) * 1_000_000n;

const KINDS = ['highLow', 'openClose', 'volume'] as const;
const asJsonb = (ids: readonly number[]) => ids.map((id) => `[${id}]`);
/** The condition codes that keep a trade from setting each part, as jsonb arrays `[code]` (for `@>`): in the regular session, then outside it ($1-$6). */
const CONDITION_PARAMS = [
  ...KINDS.map((kind) => asJsonb(excluded(kind))),
  ...KINDS.map((kind) => asJsonb(excludedOutsideRegular(kind))),
];

/** How many minutes one statement recomputes: its arrays stay small enough to plan and send at once. */
const MINUTES_PER_STATEMENT = 20_000;

/** A trade's place: the minute its bar is. */
export interface TradeAt {
  symbol: string;
  sipTimestamp: bigint;
}

/** A trade as its bar reads it. */
export interface BarTrade extends TradeAt {
  sequenceNumber: bigint;
  price: number;
  size: number;
  conditions: unknown;
}

export interface BarChange {
  /** Trades new to the table: merged into their minutes' bars. */
  inserted: readonly BarTrade[];
  /** Where stored trades changed (an update's place, and its place before): recomputed from the trades. */
  recompute: readonly TradeAt[];
}

type Minute = { symbol: string; minute: number };
const minuteKey = (m: Minute) => `${m.symbol}\u0000${m.minute}`;

/** The minute of a trade, or undefined outside the market calendar (2000-2199, domain/market-calendar.ts): no bar. */
function minuteOf(t: TradeAt): number | undefined {
  if (t.sipTimestamp < FIRST_NS || t.sipTimestamp >= END_NS) return undefined;
  // trades are after 1970: division truncates as SQL's does
  return Number(t.sipTimestamp / 60_000_000_000n);
}

/**
 * Keeps the minute and day bars of a write on `client` (inside the writer's transaction: the bars
 * commit with the trades or not at all). New trades are merged into their minutes' stored bars;
 * a minute where a stored trade changed, or whose bar cannot be merged into, is recomputed from
 * all its stored trades; then each touched day is recomputed from its minutes.
 */
export async function refreshBars(client: PoolClient, change: BarChange): Promise<void> {
  await lockSymbols(
    client,
    [...change.recompute, ...change.inserted].map((t) => t.symbol),
  );
  const recompute = new Map<string, Minute>();
  for (const t of change.recompute) {
    const minute = minuteOf(t);
    if (minute !== undefined) recompute.set(minuteKey({ symbol: t.symbol, minute }), { symbol: t.symbol, minute });
  }
  const merge = new Map<string, Minute & { n: number }>();
  const trades: { trade: BarTrade; n: number }[] = [];
  for (const t of change.inserted) {
    const minute = minuteOf(t);
    if (minute === undefined) continue;
    const key = minuteKey({ symbol: t.symbol, minute });
    if (recompute.has(key)) continue;
    let m = merge.get(key);
    if (!m) merge.set(key, (m = { symbol: t.symbol, minute, n: merge.size + 1 }));
    trades.push({ trade: t, n: m.n });
  }
  const unordered = await mergeMinutes(client, [...merge.values()], trades);
  for (const m of unordered) recompute.set(minuteKey(m), m);
  for (const part of chunks([...recompute.values()], MINUTES_PER_STATEMENT))
    await client.query(REFRESH_MINUTES, [...CONDITION_PARAMS, ...minuteColumns(part)]);
  await refreshDays(client, [...merge.values(), ...recompute.values()]);
}

/**
 * One writer at a time keeps a symbol's bars, until its transaction ends: two writers of the same
 * new minute would each merge into a bar the other's uncommitted one cannot see, and one side's
 * trades would be lost. Taken in symbol order, so two writers never wait on each other in a circle.
 */
async function lockSymbols(client: PoolClient, symbols: string[]): Promise<void> {
  if (symbols.length === 0) return;
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('market-data-gateway:bars:' || x."symbol", 0))
     FROM (SELECT DISTINCT unnest($1::text[]) AS "symbol" ORDER BY 1) x`,
    [symbols],
  );
}

function* chunks<T>(list: T[], size: number): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}

/** $7-$11 of a minutes statement. */
function minuteColumns(minutes: Minute[]): [string[], number[], number[], number[], number[]] {
  const columns: [string[], number[], number[], number[], number[]] = [[], [], [], [], []];
  for (const { symbol, minute } of minutes) {
    const facts = minuteFacts(minute);
    columns[0].push(symbol);
    columns[1].push(minute);
    columns[2].push(facts.day);
    columns[3].push(facts.local);
    columns[4].push(SESSION_CODE[facts.session]);
  }
  return columns;
}

/** PostgreSQL array literals: pg would quote element by element, a few times slower. */
const textArray = (values: readonly string[]) => `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
const numberArray = (values: readonly (number | bigint)[]) => `{${values.join(',')}}`;

/**
 * Merges `trades` into the bars of `minutes`, each trade's numbered `n` (from 1, in order); returns
 * the minutes that must be recomputed instead.
 */
async function mergeMinutes(
  client: PoolClient,
  minutes: Minute[],
  trades: { trade: BarTrade; n: number }[],
): Promise<Minute[]> {
  if (minutes.length === 0) return [];
  // the trades' lists of conditions, each once (a feed has few), and each trade's place among them (from 1)
  const lists = new Map<string, number>();
  const listOf = (t: BarTrade) => {
    const text = Array.isArray(t.conditions) ? `[${t.conditions.join(',')}]` : JSON.stringify(t.conditions);
    let at = lists.get(text);
    if (at === undefined) lists.set(text, (at = lists.size + 1));
    return at;
  };
  const { rows } = await client.query<Minute>(MERGE_MINUTES, [
    ...CONDITION_PARAMS,
    ...minuteColumns(minutes),
    numberArray(trades.map((t) => t.n)),
    numberArray(trades.map((t) => t.trade.sipTimestamp)),
    numberArray(trades.map((t) => t.trade.sequenceNumber)),
    numberArray(trades.map((t) => t.trade.price)),
    numberArray(trades.map((t) => t.trade.size)),
    numberArray(trades.map((t) => listOf(t.trade))),
    textArray([...lists.keys()]),
  ]);
  return rows;
}

async function refreshDays(client: PoolClient, minutes: Minute[]): Promise<void> {
  if (minutes.length === 0) return;
  const days = new Map<string, { symbol: string; day: number; lo: number; hi: number }>();
  for (const { symbol, minute } of minutes) {
    const { day } = minuteFacts(minute);
    const { first, end } = dayMinutes(day);
    days.set(`${symbol}\u0000${day}`, { symbol, day, lo: first, hi: end });
  }
  const list = [...days.values()];
  await client.query(REFRESH_DAYS, [
    list.map((d) => d.symbol),
    list.map((d) => d.day),
    list.map((d) => d.lo),
    list.map((d) => d.hi),
  ]);
}

/**
 * The day bars of the days of `minutes` made again from their minute bars, in one transaction: for
 * minute bars written without trades (the sample's history, sample/seed.ts), by the rule the writer
 * keeps days with.
 */
export async function refreshDaysOf(db: Db, minutes: Minute[]): Promise<void> {
  const client = await db.driver.pool.connect();
  try {
    await client.query('BEGIN');
    await lockSymbols(
      client,
      minutes.map((m) => m.symbol),
    );
    await refreshDays(client, minutes);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
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
 * per symbol, with the symbol's snapshot. Bars no stored trade backs are left alone: imported history, or minutes whose ticks
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
      await lockSymbols(client, [symbol]);
      const { rows } = await client.query<{ minute: number }>(
        `SELECT DISTINCT ("sipTimestamp" / 60000000000)::int AS "minute" FROM "Trade"
         WHERE "symbol" = $1 AND "sipTimestamp" >= $2::bigint * 60000000000 AND "sipTimestamp" < $3::bigint * 60000000000`,
        [symbol, lo ?? Number(FIRST_NS / 60_000_000_000n), hi ?? Number(END_NS / 60_000_000_000n)],
      );
      const touched = rows.map((r) => ({ symbol, minute: r.minute }));
      for (const part of chunks(touched, MINUTES_PER_STATEMENT))
        await client.query(REFRESH_MINUTES, [...CONDITION_PARAMS, ...minuteColumns(part)]);
      await refreshDays(client, touched);
      await refreshSnapshots(client, [symbol]);
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
