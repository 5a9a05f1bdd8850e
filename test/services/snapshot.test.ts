// Snapshots kept by the trade and quote writers (services/snapshot.ts), against a recomputation in
// JS from the trades and quotes the test wrote: the last trade and quote by (sipTimestamp,
// sequenceNumber) whatever order batches arrive in, late ticks that must not replace them, the
// rollover to a new day (the previous day is the last trading day's regular session: Friday's for a
// Monday), and the movers' rule (day volume >= 10,000, top 20 by change %) against a brute force.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { writeQuotes, type Quote } from '../../src/services/quote.js';
import { movers, snapshotsOf, type Snapshot } from '../../src/services/snapshot.js';
import { writeTrades, type Trade } from '../../src/services/trade.js';
import { testDatabases } from '../helpers.js';

const MINUTE_NS = 60_000_000_000n;
/** New York midnight of Friday 2026-11-13 and Monday 2026-11-16 (EST, UTC-5), typed in, in ns, and their day numbers. */
const FRIDAY = BigInt(Date.UTC(2026, 10, 13, 5)) * 1_000_000n;
const MONDAY = BigInt(Date.UTC(2026, 10, 16, 5)) * 1_000_000n;
const FRIDAY_DAY = Date.UTC(2026, 10, 13) / 86_400_000;
const MONDAY_DAY = Date.UTC(2026, 10, 16) / 86_400_000;
/** 09:30 and 16:00 New York, in minutes after midnight: the regular session. */
const OPEN = 570;
const CLOSE = 960;

function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let sequence = 1n;
const trade = (symbol: string, at: bigint, price: number, size: number, seq = sequence++): Trade => ({
  symbol,
  sequenceNumber: seq,
  sipTimestamp: at,
  tradeId: `t${seq}`,
  price,
  size,
  exchange: 4,
  tape: 3,
  conditions: [],
});
const quote = (symbol: string, at: bigint, bid: number, seq = sequence++): Quote => ({
  symbol,
  sequenceNumber: seq,
  sipTimestamp: at,
  askExchange: 11,
  askPrice: bid + 0.01,
  askSize: 3,
  bidExchange: 12,
  bidPrice: bid,
  bidSize: 2,
  tape: 3,
  conditions: [1],
});
/** At minute `m` after a New York midnight, plus `ns`. */
const at = (midnight: bigint, m: number, ns = 0n) => midnight + BigInt(m) * MINUTE_NS + ns;

/** The newest of `ticks` by (sipTimestamp, sequenceNumber): the oracle of "last". */
const newest = <T extends { sipTimestamp: bigint; sequenceNumber: bigint }>(ticks: readonly T[]): T | undefined =>
  [...ticks].sort((a, b) =>
    a.sipTimestamp === b.sipTimestamp
      ? Number(a.sequenceNumber - b.sequenceNumber)
      : Number(a.sipTimestamp - b.sipTimestamp),
  )[ticks.length - 1];

const between = (ts: readonly Trade[], lo: bigint, hi: bigint) =>
  ts.filter((t) => t.sipTimestamp >= lo && t.sipTimestamp < hi);

describe.each(testDatabases())('snapshots kept by the writers on $name', (tdb) => {
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

  const snapshot = async (symbol: string): Promise<Snapshot> => (await snapshotsOf(db, [symbol])).get(symbol)!;

  it('hold the newest trade and quote whatever order batches come in, and late ticks do not replace them', async () => {
    const random = prng(7);
    const trades = Array.from({ length: 300 }, (_, i) =>
      // some share a timestamp: the sequence number decides, unrelated to the time
      trade('LAST', at(FRIDAY, OPEN + (i % 200), BigInt(Math.floor(random() * 3)) * 1000n), 10 + random(), 100),
    );
    const quotes = Array.from({ length: 200 }, (_, i) =>
      quote('LAST', at(FRIDAY, OPEN + (i % 150), BigInt(Math.floor(random() * 3)) * 1000n), 10 + random()),
    );
    const order = trades.map((t) => t).sort(() => random() - 0.5);
    for (let i = 0; i < order.length; i += 37) {
      await writeTrades(db, order.slice(i, i + 37));
      const stored = await snapshot('LAST');
      const want = newest(trades.filter((t) => order.slice(0, i + 37).includes(t)))!;
      expect([stored.tradeAt, stored.tradeSequence, stored.tradePrice]).toEqual([
        want.sipTimestamp,
        want.sequenceNumber,
        want.price,
      ]);
    }
    for (let i = 0; i < quotes.length; i += 50) await writeQuotes(db, quotes.slice(i, i + 50).reverse());
    const last = newest(trades)!;
    const lastQuote = newest(quotes)!;
    const late = [trade('LAST', last.sipTimestamp - 1n, 99, 5), trade('LAST', at(FRIDAY, OPEN), 98, 5)];
    await writeTrades(db, late);
    await writeQuotes(db, [quote('LAST', lastQuote.sipTimestamp - 1n, 97)]);
    const s = await snapshot('LAST');
    expect(s).toMatchObject({
      tradeAt: last.sipTimestamp,
      tradeSequence: last.sequenceNumber,
      tradeId: last.tradeId,
      tradePrice: last.price,
      tradeSize: last.size,
      tradeExchange: 4,
      tradeConditions: [],
      quoteAt: lastQuote.sipTimestamp,
      quoteSequence: lastQuote.sequenceNumber,
      bidPrice: lastQuote.bidPrice,
      askPrice: lastQuote.askPrice,
      updated: [last.sipTimestamp, lastQuote.sipTimestamp].sort((a, b) => Number(a - b))[1],
      day: FRIDAY_DAY,
      prevDay: null,
      todaysChange: null,
    });
    // the day's bar holds every trade of the day, the late ones too
    const all = [...trades, ...late];
    expect(s.dayBar!.v).toBe(all.reduce((v, t) => v + t.size, 0));
    expect(s.dayBar!.h).toBe(Math.max(...all.map((t) => t.price)));
    // a correction of the last trade shows
    await writeTrades(db, [{ ...last, price: 12.5 }]);
    expect((await snapshot('LAST')).tradePrice).toBe(12.5);
  });

  it("roll over to a new day: the previous day is the last trading day's regular session", async () => {
    const friday = [
      trade('ROLL', at(FRIDAY, OPEN - 60), 50, 100), // pre-market: not in the regular bar
      trade('ROLL', at(FRIDAY, OPEN + 1), 51, 100),
      trade('ROLL', at(FRIDAY, CLOSE - 1), 52, 100), // the regular close
      trade('ROLL', at(FRIDAY, CLOSE + 30), 60, 100), // after-hours: not the close
    ];
    await writeTrades(db, friday);
    let s = await snapshot('ROLL');
    expect([s.day, s.prevDay, s.todaysChange]).toEqual([FRIDAY_DAY, null, null]);
    expect(s.dayBar).toMatchObject({ o: 50, c: 60, v: 400 });

    // Monday, pre-market first: the day and its change start with it
    await writeTrades(db, [trade('ROLL', at(MONDAY, OPEN - 30), 54.6, 300)]);
    s = await snapshot('ROLL');
    const regular = between(friday, at(FRIDAY, OPEN), at(FRIDAY, CLOSE));
    const close = newest(regular)!.price;
    expect(close).toBe(52);
    expect([s.day, s.prevDay]).toEqual([MONDAY_DAY, FRIDAY_DAY]);
    expect(s.prevDayBar).toMatchObject({ o: 51, h: 52, l: 51, c: 52, v: 200 });
    expect(s.todaysChange).toBeCloseTo(54.6 - close, 10);
    expect(s.todaysChangePerc).toBeCloseTo(((54.6 - close) / close) * 100, 10);
    expect(s.dayBar).toMatchObject({ o: 54.6, c: 54.6, v: 300 });
    expect(s.minuteBar).toMatchObject({ t: Number(at(MONDAY, OPEN - 30) / 1_000_000n), c: 54.6, n: 1 });
  });

  it('movers: the top 20 by change %, day volume >= 10,000, as a brute force over the stored trades finds them', async () => {
    const random = prng(11);
    const written: Trade[] = [];
    for (let i = 0; i < 70; i++) {
      const symbol = `MV${String(i).padStart(2, '0')}`;
      const base = 20 + Math.floor(random() * 80);
      written.push(trade(symbol, at(FRIDAY, OPEN + 5), base + 1, 500), trade(symbol, at(FRIDAY, CLOSE - 2), base, 500));
      // Monday: volume from 3,000 to 30,000 in a few trades, the last price up to 30% either way
      const n = 1 + Math.floor(random() * 4);
      for (let j = 0; j < n; j++) {
        const price = Math.round(base * (0.7 + random() * 0.6) * 100) / 100;
        written.push(trade(symbol, at(MONDAY, OPEN + 10 + j), price, Math.round((3000 + random() * 27000) / n)));
      }
    }
    await writeTrades(
      db,
      written.sort(() => random() - 0.5),
    );

    const bySymbol = new Map<string, Trade[]>();
    for (const t of written) bySymbol.set(t.symbol, [...(bySymbol.get(t.symbol) ?? []), t]);
    const brute = [...bySymbol].flatMap(([symbol, ts]) => {
      const prevClose = newest(between(ts, at(FRIDAY, OPEN), at(FRIDAY, CLOSE)))!.price;
      const monday = between(ts, MONDAY, MONDAY + 86_400_000_000_000n);
      const volume = monday.reduce((v, t) => v + t.size, 0);
      const perc = ((newest(monday)!.price - prevClose) / prevClose) * 100;
      return volume >= 10_000 ? [{ symbol, perc }] : [];
    });
    expect(brute.length).toBeGreaterThan(40);
    expect(brute.length).toBeLessThan(70);
    const order = (a: { symbol: string; perc: number }, b: { symbol: string; perc: number }) =>
      b.perc - a.perc || (a.symbol < b.symbol ? 1 : -1);
    const gainers = brute.filter((m) => m.perc > 0).sort(order);
    const losers = brute.filter((m) => m.perc < 0).sort((a, b) => -order(a, b));
    const got = await movers(db, 'gainers');
    expect(got.map((s) => s.symbol)).toEqual(gainers.slice(0, 20).map((m) => m.symbol));
    got.forEach((s, i) => expect(s.todaysChangePerc).toBeCloseTo(gainers[i]!.perc, 9));
    expect((await movers(db, 'losers')).map((s) => s.symbol)).toEqual(losers.slice(0, 20).map((m) => m.symbol));
  });
});
