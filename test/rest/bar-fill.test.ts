// `fill`: a bar at the previous close for each quiet bucket of the sessions, none outside them.
// A few trades by hand; New York is UTC-5 on these November days, and the sessions and holidays
// below are typed in from NYSE's published hours and 2026 calendar, not read from the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTrades, type Trade } from '../../src/services/trade.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

const SYMBOL = 'ZZFILL';
const MINUTE = 60_000;
/** New York wall time on a November 2026 day (EST, UTC-5), epoch ms. */
const ny = (day: number, hour: number, minute: number, second = 0) => Date.UTC(2026, 10, day, hour + 5, minute, second);

const PRICES: [at: number, price: number][] = [
  [ny(13, 15, 59, 30), 50], // Friday's last trade: the close before Monday's first minute
  [ny(16, 9, 31, 10), 51],
  [ny(16, 9, 31, 40), 52],
  [ny(16, 9, 35), 53],
];

interface AggBar {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
}

describe.each(testDatabases())('filled bars on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_PRO: '1000000' });
    const trades: Trade[] = PRICES.map(([at, price], i) => ({
      symbol: SYMBOL,
      sequenceNumber: BigInt(i + 1),
      sipTimestamp: BigInt(at) * 1_000_000n,
      tradeId: String(i + 1),
      price,
      size: 100,
      exchange: 4,
      tape: 3,
      conditions: [],
    }));
    await writeTrades(h.db, trades);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const aggs = async (span: string, from: string, to: string, query = '') =>
    rest(h, `/stocks/v2/aggs/ticker/${SYMBOL}/range/${span}/${from}/${to}?limit=50000&session=regular${query}`, {
      key: 'demo-pro',
    });

  /** What a filled bar of `t` at `close` is. */
  const quiet = (t: number, close: number) => ({ t, o: close, h: close, l: close, c: close, v: 0, n: 0 });
  const pick = (b: AggBar) => ({ t: b.t, o: b.o, h: b.h, l: b.l, c: b.c, v: b.v, n: b.n });

  it('minute bars: every minute of the regular session, quiet ones at the close before them', async () => {
    const plain = await aggs('1/minute', '2026-11-16', '2026-11-16');
    expect(plain.body.results.map((b: AggBar) => b.t)).toEqual([ny(16, 9, 31), ny(16, 9, 35)]);
    const filled = await aggs('1/minute', '2026-11-16', '2026-11-16', '&fill=true');
    expect(filled.status).toBe(200);
    const bars: AggBar[] = filled.body.results;
    // 09:30 to 15:59: 390 minutes
    expect(bars.map((b) => b.t)).toEqual(Array.from({ length: 390 }, (_, i) => ny(16, 9, 30) + i * MINUTE));
    expect(pick(bars[0]!)).toEqual(quiet(ny(16, 9, 30), 50));
    expect(pick(bars[1]!)).toEqual({ t: ny(16, 9, 31), o: 51, h: 52, l: 51, c: 52, v: 200, n: 2 });
    for (const i of [2, 3, 4]) expect(pick(bars[i]!)).toEqual(quiet(ny(16, 9, 30 + i), 52));
    expect(pick(bars[5]!)).toEqual({ t: ny(16, 9, 35), o: 53, h: 53, l: 53, c: 53, v: 100, n: 1 });
    expect(pick(bars[389]!)).toEqual(quiet(ny(16, 15, 59), 53));
    // a filled answer reads the same base bars
    expect(filled.body.queryCount).toBe(plain.body.queryCount);
  });

  it('five-minute bars, and newest first page by page, give the same buckets', async () => {
    const five: AggBar[] = (await aggs('5/minute', '2026-11-16', '2026-11-16', '&fill=true')).body.results;
    expect(five.length).toBe(78);
    expect(pick(five[0]!)).toEqual({ t: ny(16, 9, 30), o: 51, h: 52, l: 51, c: 52, v: 200, n: 2 });
    expect(pick(five[1]!)).toEqual({ t: ny(16, 9, 35), o: 53, h: 53, l: 53, c: 53, v: 100, n: 1 });
    expect(pick(five[2]!)).toEqual(quiet(ny(16, 9, 40), 53));
    const all: AggBar[] = (await aggs('1/minute', '2026-11-16', '2026-11-16', '&fill=true')).body.results;
    const back: AggBar[] = [];
    let url: string | undefined =
      `/stocks/v2/aggs/ticker/${SYMBOL}/range/1/minute/2026-11-16/2026-11-16?limit=1&session=regular&fill=true&sort=desc`;
    let pages = 0;
    for (; url; pages++) {
      const r = await rest(h, url, { key: 'demo-pro' });
      expect(r.status).toBe(200);
      back.push(...r.body.results);
      url = r.body.next_url;
    }
    expect(pages).toBe(2);
    expect(back.map(pick)).toEqual([...all].reverse().map(pick));
  });

  it('day bars: trading days only (no weekend, no Thanksgiving), quiet ones at the close before them', async () => {
    const days: AggBar[] = (await aggs('1/day', '2026-11-13', '2026-11-30', '&fill=true')).body.results;
    // Friday 13, Monday 16 to Wednesday 25, Friday 27 (an early close), Monday 30
    const open = [13, 16, 17, 18, 19, 20, 23, 24, 25, 27, 30];
    expect(days.map((b) => b.t)).toEqual(open.map((d) => ny(d, 0, 0)));
    expect(days[0]!.c).toBe(50);
    expect(pick(days[1]!)).toEqual({ t: ny(16, 0, 0), o: 51, h: 53, l: 51, c: 53, v: 300, n: 3 });
    for (const b of days.slice(2)) expect(pick(b)).toEqual(quiet(b.t, 53));
  });

  it('in the graph too (as REST answers it); a range too long to fill is refused naming fill', async () => {
    // a listed security: the sample's trades stop at the close, so its after-hours minutes are quiet
    const r = await h.gql(
      `{ security(symbol: "NVLX") { bars(timespan: MINUTE, session: EXTENDED, from: "2026-11-16", to: "2026-11-16", fill: true, last: 300) { nodes { start close volume trades } } } }`,
      {},
      { 'x-api-key': 'demo-pro' },
    );
    expect(r.errors).toBeUndefined();
    const nodes = r.data.security.bars.nodes;
    const viaRest = await rest(
      h,
      '/stocks/v2/aggs/ticker/NVLX/range/1/minute/2026-11-16/2026-11-16?limit=50000&session=extended&fill=true',
      { key: 'demo-pro' },
    );
    const want = (viaRest.body.results as AggBar[])
      .slice(-300)
      .map((b) => ({ start: new Date(b.t).toISOString(), close: b.c, volume: b.v, trades: b.n }));
    expect(nodes).toEqual(want);
    expect(nodes.some((n: { trades: number }) => n.trades === 0)).toBe(true);
    expectBadParam(await aggs('1/minute', '2026-01-01', '2026-12-31', '&fill=true'), 'fill');
  });
});
