// The bars the trade writer keeps batch by batch (new trades merged into their minutes, changed ones
// recomputed: services/bar-write.ts) against two oracles: a brute-force recomputation in JS from the
// final trades, by the conditions' published rules (domain/conditions.ts `updates`, Form T allowed
// outside the regular session), and `rebuildBars` from scratch. Trades arrive in random batches in
// random order: late trades, ties on the timestamp decided by the sequence number, excluded
// conditions, every session, corrections (one moving a trade to another minute, one emptying a
// minute), re-sent unchanged trades, and a stored bar no trade backs (imported history).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { updates } from '../../src/domain/conditions.js';
import { rebuildBars } from '../../src/services/bar-write.js';
import { writeTrades, type Trade } from '../../src/services/trade.js';
import { testDatabases } from '../helpers.js';

const HOUR_NS = 3_600_000_000_000n;
const MINUTE_NS = 60_000_000_000n;
/** New York midnight of Monday 2026-11-16 and Tuesday 2026-11-17 (EST, UTC-5), typed in, in ns. */
const MIDNIGHTS = [Date.UTC(2026, 10, 16, 5), Date.UTC(2026, 10, 17, 5)].map((ms) => BigInt(ms) * 1_000_000n);
/** The same days as days since 1970-01-01. */
const DAY_NUMBERS = [Date.UTC(2026, 10, 16), Date.UTC(2026, 10, 17)].map((ms) => ms / 86_400_000);
/** Minutes after New York midnight: at night, pre-market, the open, mid-day, the close, after-hours. */
const MINUTES_OF_DAY = [90, 240, 241, 569, 570, 571, 720, 959, 960, 961, 1199, 1200];
const CONDITION_SETS = [[], [], [], [], [12], [37], [12, 37], [14, 41], [15], [16], [38], [2], [60], [13]];

/** A seeded PRNG of the test's own (mulberry32). */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

function shuffle<T>(random: () => number, list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

/** Trades in a few minutes of each day, many per minute, some sharing a timestamp; sequence numbers unrelated to time. */
function generate(random: () => number, symbol: string): Trade[] {
  const trades: Trade[] = [];
  const sequences = shuffle(
    random,
    Array.from({ length: 700 }, (_, i) => BigInt(1000 + i * 3)),
  );
  for (const midnight of MIDNIGHTS) {
    for (const minute of MINUTES_OF_DAY) {
      const start = midnight + BigInt(minute) * MINUTE_NS;
      const n = 5 + Math.floor(random() * 25);
      let last = start;
      for (let i = 0; i < n; i++) {
        // a third share the previous trade's timestamp: the sequence number decides their order
        const at = i > 0 && random() < 0.33 ? last : start + BigInt(Math.floor(random() * 59_999_999_999));
        last = at;
        const sequenceNumber = sequences.pop()!;
        trades.push({
          symbol,
          sequenceNumber,
          sipTimestamp: at,
          tradeId: String(sequenceNumber),
          price: Math.round((50 + random() * 10) * 100) / 100,
          size: random() < 0.3 ? 1 + Math.floor(random() * 99) : 100 * (1 + Math.floor(random() * 10)),
          exchange: 4,
          tape: 3,
          conditions: pick(random, CONDITION_SETS),
        });
      }
    }
  }
  return trades;
}

type Session = 'pre' | 'regular' | 'post' | 'closed';
function placeOf(ns: bigint): { day: number; session: Session } {
  const i = MIDNIGHTS.findIndex((m) => ns >= m && ns < m + 24n * HOUR_NS);
  const t = Number((ns - MIDNIGHTS[i]!) / MINUTE_NS);
  const session =
    t >= 570 && t < 960 ? 'regular' : t >= 240 && t < 570 ? 'pre' : t >= 960 && t < 1200 ? 'post' : 'closed';
  return { day: DAY_NUMBERS[i]!, session };
}

interface OracleBar {
  key: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  volume: number;
  vwap: number | null;
  trades: number;
  openAt?: bigint | null;
  openSequence?: bigint | null;
  closeAt?: bigint | null;
  closeSequence?: bigint | null;
}

/** The bar of `trades` by the published rules, in (sipTimestamp, sequenceNumber) order; undefined when no trade counts. */
function barOf(key: string, trades: readonly Trade[], keys: boolean): OracleBar | undefined {
  const ordered = [...trades].sort((a, b) =>
    a.sipTimestamp === b.sipTimestamp
      ? Number(a.sequenceNumber - b.sequenceNumber)
      : Number(a.sipTimestamp - b.sipTimestamp),
  );
  const rules = ordered.map((t) => {
    const regular = placeOf(t.sipTimestamp).session === 'regular';
    return { t, ...updates((t.conditions as number[]).filter((c) => regular || c !== 12)) };
  });
  const counted = rules.filter((r) => r.openClose || r.highLow || r.volume);
  if (counted.length === 0) return undefined;
  const oc = rules.filter((r) => r.openClose).map((r) => r.t);
  const hl = rules.filter((r) => r.highLow).map((r) => r.t.price);
  const vol = rules.filter((r) => r.volume).map((r) => r.t);
  const volume = vol.reduce((s, t) => s + t.size, 0);
  const first = oc[0];
  const last = oc.at(-1);
  return {
    key,
    open: first?.price ?? null,
    high: hl.length ? Math.max(...hl) : null,
    low: hl.length ? Math.min(...hl) : null,
    close: last?.price ?? null,
    volume,
    vwap: volume > 0 ? vol.reduce((s, t) => s + t.price * t.size, 0) / volume : null,
    trades: counted.length,
    ...(keys
      ? {
          openAt: first?.sipTimestamp ?? null,
          openSequence: first?.sequenceNumber ?? null,
          closeAt: last?.sipTimestamp ?? null,
          closeSequence: last?.sequenceNumber ?? null,
        }
      : {}),
  };
}

function group(trades: readonly Trade[], keyOf: (t: Trade) => string | undefined): Map<string, Trade[]> {
  const groups = new Map<string, Trade[]>();
  for (const t of trades) {
    const key = keyOf(t);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return groups;
}

/** Minute bars and day bars (regular and extended) of the trades, brute force. */
function oracle(trades: readonly Trade[]): { minutes: OracleBar[]; days: OracleBar[] } {
  const bars = (groups: Map<string, Trade[]>, keys: boolean) =>
    [...groups]
      .map(([key, ts]) => barOf(key, ts, keys))
      .filter((b): b is OracleBar => b !== undefined)
      .sort((a, b) => (a.key < b.key ? -1 : 1));
  return {
    minutes: bars(
      group(trades, (t) => `${t.symbol} ${t.sipTimestamp / MINUTE_NS}`),
      true,
    ),
    days: bars(
      new Map([
        ...group(trades, (t) => `${t.symbol} ${placeOf(t.sipTimestamp).day} extended`),
        ...group(trades, (t) =>
          placeOf(t.sipTimestamp).session === 'regular'
            ? `${t.symbol} ${placeOf(t.sipTimestamp).day} regular`
            : undefined,
        ),
      ]),
      false,
    ),
  };
}

async function storedBars(db: Db, symbols: string[]): Promise<{ minutes: OracleBar[]; days: OracleBar[] }> {
  const minutes = await db.prisma.minuteBar.findMany({ where: { symbol: { in: symbols } } });
  const days = await db.prisma.dayBar.findMany({ where: { symbol: { in: symbols } } });
  const sorted = (bars: OracleBar[]) => bars.sort((a, b) => (a.key < b.key ? -1 : 1));
  return {
    minutes: sorted(
      minutes.map(({ symbol, minute, day: _d, local: _l, session: _s, ...bar }) => ({
        key: `${symbol} ${minute}`,
        ...bar,
      })),
    ),
    days: sorted(
      days.map(({ symbol, day, extended, ...bar }) => ({
        key: `${symbol} ${day} ${extended ? 'extended' : 'regular'}`,
        ...bar,
      })),
    ),
  };
}

/** Equal bars; the volume-weighted price to 12 significant digits (a merge weighs two means, a recompute sums once). */
function expectSame(got: OracleBar[], want: OracleBar[], what: string) {
  expect(
    got.map((b) => b.key),
    what,
  ).toEqual(want.map((b) => b.key));
  for (const [i, w] of want.entries()) {
    const g = got[i]!;
    expect({ ...g, vwap: 0 }, `${what} ${w.key}`).toEqual({ ...w, vwap: 0 });
    if (w.vwap === null) expect(g.vwap, `${what} ${w.key}`).toBeNull();
    else expect(Math.abs(g.vwap! - w.vwap) / w.vwap, `${what} ${w.key} vwap`).toBeLessThan(1e-12);
  }
}

describe.each(testDatabases())('bars kept batch by batch on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    const database = await tdb.create();
    await migrate(database);
    db = await createDb(database);
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  it.each([1, 2, 3, 4])('equal the brute force and a rebuild after random batches (seed %i)', async (seed) => {
    const random = prng(seed);
    const symbols = [`ZB${seed}A`, `ZB${seed}B`];
    const trades = symbols.flatMap((s) => generate(random, s));
    const stored = new Map(trades.map((t) => [`${t.symbol} ${t.sequenceNumber}`, t]));
    const store = (t: Trade) => stored.set(`${t.symbol} ${t.sequenceNumber}`, t);

    // history imported for a minute before its trades: no order keys, so the writer recomputes it
    const lateMinute = Number((MIDNIGHTS[0]! + 720n * MINUTE_NS) / MINUTE_NS);
    await db.prisma.minuteBar.create({
      data: {
        symbol: symbols[0]!,
        minute: lateMinute,
        day: DAY_NUMBERS[0]!,
        local: 720,
        session: 1,
        open: 1,
        high: 1,
        low: 1,
        close: 1,
        volume: 1,
        vwap: 1,
        trades: 1,
      },
    });

    // a minute of one trade, which a correction later moves away (the minute must go)
    const lone: Trade = { ...trades[0]!, sequenceNumber: 99n, tradeId: '99', conditions: [] };
    lone.sipTimestamp = MIDNIGHTS[1]! + 800n * MINUTE_NS + 5n;
    store(lone);
    const shuffled = shuffle(random, [...trades, lone]);
    let at = 0;
    while (at < shuffled.length) {
      const size = 1 + Math.floor(random() * 300);
      const batch = shuffled.slice(at, at + size);
      at += size;
      const written = await writeTrades(db, batch);
      expect(written.inserted).toBe(batch.length);
    }

    // corrections among new trades and re-sent unchanged ones, in one batch
    const olds = shuffle(
      random,
      [...stored.values()].filter((t) => t !== lone),
    ).slice(0, 12);
    const corrections: Trade[] = olds.slice(0, 6).map((t, i) => ({
      ...t,
      price: i % 2 ? t.price + 3 : t.price,
      conditions: i % 2 ? t.conditions : (t.conditions as number[]).length ? [] : [37],
    }));
    corrections.push({ ...olds[6]!, sipTimestamp: olds[6]!.sipTimestamp + 97n * MINUTE_NS });
    corrections.push({ ...lone, sipTimestamp: lone.sipTimestamp - 3n * MINUTE_NS, price: lone.price + 1 });
    for (const c of corrections) store(c);
    const fresh: Trade[] = Array.from({ length: 20 }, (_, i) => ({
      ...pick(random, trades),
      sequenceNumber: 5000n + BigInt(i),
      tradeId: String(5000 + i),
      price: 55 + i / 100,
    }));
    for (const t of fresh) store(t);
    const last = await writeTrades(db, shuffle(random, [...corrections, ...olds.slice(7), ...fresh]));
    expect(last.inserted).toBe(fresh.length);
    expect([last.updated, last.unchanged]).toEqual([corrections.length, olds.length - 7]);

    const want = oracle([...stored.values()]);
    const kept = await storedBars(db, symbols);
    expect(kept.minutes.some((b) => b.key === `${symbols[0]} ${lateMinute}` && b.open !== 1)).toBe(true);
    expectSame(kept.minutes, want.minutes, 'minute kept');
    expectSame(kept.days, want.days, 'day kept');

    await db.prisma.minuteBar.deleteMany({ where: { symbol: { in: symbols } } });
    await db.prisma.dayBar.deleteMany({ where: { symbol: { in: symbols } } });
    for (const symbol of symbols) await rebuildBars(db, { symbol });
    const rebuilt = await storedBars(db, symbols);
    expectSame(rebuilt.minutes, want.minutes, 'minute rebuilt');
    expectSame(rebuilt.days, want.days, 'day rebuilt');
    expectSame(kept.minutes, rebuilt.minutes, 'kept vs rebuilt minute');
    expectSame(kept.days, rebuilt.days, 'kept vs rebuilt day');
  });

  it('writers of the same new minutes at once: every trade is in the bars (none merged into a bar another could not see)', async () => {
    const symbol = 'ZBRACE';
    const random = prng(99);
    // 16 writers, each one trade in each of 5 new minutes of one symbol, all at once on their own connections
    const minutes = [0, 1, 2, 3, 4].map((i) => MIDNIGHTS[0]! + (600n + BigInt(i)) * MINUTE_NS);
    const batches: Trade[][] = Array.from({ length: 16 }, (_, w) =>
      minutes.map((m, i) => ({
        symbol,
        sequenceNumber: BigInt(w * 10 + i + 1),
        sipTimestamp: m + BigInt(w) * 1_000_000n,
        tradeId: `${w}-${i}`,
        price: Math.round((50 + random() * 5) * 100) / 100,
        size: 100,
        exchange: 4,
        tape: 3,
        conditions: [],
      })),
    );
    await Promise.all(batches.map((b) => writeTrades(db, b)));
    const want = oracle(batches.flat());
    const kept = await storedBars(db, [symbol]);
    expect(kept.minutes.map((b) => b.trades)).toEqual([16, 16, 16, 16, 16]);
    expectSame(kept.minutes, want.minutes, 'minute kept');
    expectSame(kept.days, want.days, 'day kept');
  });
});
