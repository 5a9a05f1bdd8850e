// Bars against a brute-force recomputation from the trades: generated trades over two exchange days
// in every session (and outside them), with every kind of condition, written in two batches whose
// second holds late trades and a correction of a stored one. The oracle groups the trades itself:
// New York is UTC-5 on these November days (typed in here, not read from the calendar), and a trade
// counts toward a part by the conditions' published rules (domain/conditions.ts `updates`), Form T
// allowed outside the regular session as Massive's minute bars allow it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildBars } from '../../src/services/bar-write.js';
import { updates } from '../../src/domain/conditions.js';
import { writeTrades, type Trade } from '../../src/services/trade.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';
import { SAMPLE_DIVIDENDS, SAMPLE_SPLITS, SAMPLE_TICKER_CHANGES } from '../../src/sample/corporate-actions.js';

const SYMBOL = 'ZZBAR';
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** New York midnight of Monday 2026-11-16 and Tuesday 2026-11-17 (EST, UTC-5), typed in. */
const DAYS = [Date.UTC(2026, 10, 16, 5), Date.UTC(2026, 10, 17, 5)];
const PRE = 4 * HOUR;
const OPEN = 9.5 * HOUR;
const CLOSE = 16 * HOUR;
const POST_END = 20 * HOUR;
const CONDITION_SETS = [[], [], [], [], [12], [37], [12, 37], [14, 41], [15], [16], [38], [2], [60], [999], [13]];

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

function generate(): Trade[] {
  const random = prng(7);
  const trades: Trade[] = [];
  let seq = 1000n;
  for (const midnight of DAYS) {
    for (let i = 0; i < 900; i++) {
      // most in the regular session, some before and after it, a few at night (outside every session)
      const u = random();
      const offset =
        u < 0.6
          ? OPEN + random() * (CLOSE - OPEN)
          : u < 0.75
            ? PRE + random() * (OPEN - PRE)
            : u < 0.95
              ? CLOSE + random() * (POST_END - CLOSE)
              : 1 * HOUR + random() * 2 * HOUR;
      const ms = midnight + Math.floor(offset);
      seq += 1n + BigInt(Math.floor(random() * 3));
      trades.push({
        symbol: SYMBOL,
        sequenceNumber: seq,
        sipTimestamp: BigInt(ms) * 1_000_000n + BigInt(Math.floor(random() * 1_000_000)),
        tradeId: String(seq),
        price: Math.round((50 + 5 * Math.sin(i / 40) + random()) * 100) / 100,
        size: random() < 0.3 ? 1 + Math.floor(random() * 99) : 100 * (1 + Math.floor(random() * 10)),
        exchange: 4,
        tape: 3,
        conditions: CONDITION_SETS[Math.floor(random() * CONDITION_SETS.length)]!,
      });
    }
  }
  return trades;
}

type Session = 'pre' | 'regular' | 'post' | 'closed';
function sessionOf(ms: number): Session {
  const midnight = DAYS.find((d) => ms >= d && ms < d + 24 * HOUR)!;
  const t = ms - midnight;
  return t >= OPEN && t < CLOSE
    ? 'regular'
    : t >= PRE && t < OPEN
      ? 'pre'
      : t >= CLOSE && t < POST_END
        ? 'post'
        : 'closed';
}

interface OracleBar {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  /** Absent when no trade of the bar carried volume (Massive leaves it out). */
  vw?: number | null;
  n: number;
}

/** The bars of `trades` grouped by `bucket` (a trade's time → its bucket's start), by the rules above alone. */
function oracle(trades: readonly Trade[], bucket: (ms: number) => number, regularOnly: boolean): OracleBar[] {
  const ordered = [...trades].sort((a, b) =>
    a.sipTimestamp === b.sipTimestamp
      ? Number(a.sequenceNumber - b.sequenceNumber)
      : Number(a.sipTimestamp - b.sipTimestamp),
  );
  const groups = new Map<number, Trade[]>();
  for (const t of ordered) {
    const ms = Number(t.sipTimestamp / 1_000_000n);
    if (regularOnly && sessionOf(ms) !== 'regular') continue;
    const key = bucket(ms);
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const out: OracleBar[] = [];
  for (const [t, ts] of [...groups].sort((a, b) => a[0] - b[0])) {
    const rules = ts.map((x) => {
      const regular = sessionOf(Number(x.sipTimestamp / 1_000_000n)) === 'regular';
      const codes = (x.conditions as number[]).filter((c) => regular || c !== 12);
      return { x, ...updates(codes) };
    });
    const oc = rules.filter((r) => r.openClose).map((r) => r.x.price);
    const hl = rules.filter((r) => r.highLow).map((r) => r.x.price);
    const vol = rules.filter((r) => r.volume);
    if (oc.length === 0 || hl.length === 0) continue;
    const v = vol.reduce((s, r) => s + r.x.size, 0);
    out.push({
      t,
      o: oc[0]!,
      h: Math.max(...hl),
      l: Math.min(...hl),
      c: oc.at(-1)!,
      v,
      ...(v > 0 ? { vw: vol.reduce((s, r) => s + r.x.price * r.x.size, 0) / v } : {}),
      n: rules.filter((r) => r.openClose || r.highLow || r.volume).length,
    });
  }
  return out;
}

/** New York's minutes since midnight on these days (EST). */
const nyMidnightOf = (ms: number) => DAYS.find((d) => ms >= d && ms < d + 24 * HOUR)!;
const intraday = (widthMinutes: number) => (ms: number) => {
  const midnight = nyMidnightOf(ms);
  return midnight + Math.floor((ms - midnight) / (widthMinutes * MINUTE)) * widthMinutes * MINUTE;
};

/** Equal bars, the volume-weighted price to 1e-9 (its sums are added in another order in SQL). */
function expectBars(got: OracleBar[], want: OracleBar[]) {
  expect(got.map((b) => b.t)).toEqual(want.map((b) => b.t));
  for (const [i, w] of want.entries()) {
    const g = got[i]!;
    expect({ ...g, vw: 0 }, new Date(w.t).toISOString()).toEqual({ ...w, vw: 0 });
    if (w.vw === undefined || w.vw === null) expect(g.vw ?? undefined).toBeUndefined();
    else expect(g.vw).toBeCloseTo(w.vw, 9);
  }
}

describe.each(testDatabases())('bars on $name', (tdb) => {
  let h: GraphQLHarness;
  const trades = generate();
  // the stored trades once both batches are in: the late ones, and the correction of one
  const stored = new Map(trades.map((t) => [t.sequenceNumber, t]));
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000', RATE_LIMIT_PRO: '1000000' });
    const random = prng(11);
    const late = trades.filter(() => random() < 0.3);
    const first = trades.filter((t) => !late.includes(t));
    await writeTrades(h.db, first);
    const corrected = { ...first[100]!, price: first[100]!.price + 7, conditions: [] };
    stored.set(corrected.sequenceNumber, corrected);
    await writeTrades(h.db, [...late, corrected]);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const aggs = async (span: string, from: number | string, to: number | string, query = '', key = 'demo-pro') =>
    rest(h, `/stocks/v2/aggs/ticker/${SYMBOL}/range/${span}/${from}/${to}?limit=50000${query}`, { key });

  it('stores minute bars equal to the trades of each minute, late and corrected trades included', async () => {
    const rows = await h.db.prisma.minuteBar.findMany({ where: { symbol: SYMBOL }, orderBy: { minute: 'asc' } });
    const want = oracle([...stored.values()], (ms) => Math.floor(ms / MINUTE) * MINUTE, false);
    // a stored minute with volume and no price (odd lots only) is no bar: the oracle leaves it out too
    const got = rows
      .filter((r) => r.open !== null && r.high !== null)
      .map((r) => ({
        t: r.minute * MINUTE,
        o: r.open!,
        h: r.high!,
        l: r.low!,
        c: r.close!,
        v: r.volume,
        vw: r.vwap,
        n: r.trades,
      }));
    expectBars(got, want);
    expect(
      rows.some((r) => r.open === null && r.volume > 0),
      'a minute of volume only is kept',
    ).toBe(true);
  });

  for (const [span, width] of [
    ['1/minute', 1],
    ['5/minute', 5],
    ['1/hour', 60],
    ['4/hour', 240],
  ] as const) {
    it(`${span} bars equal the brute force over the extended day and the regular session`, async () => {
      for (const session of ['extended', 'regular'] as const) {
        const r = await aggs(span, '2026-11-16', '2026-11-17', `&session=${session}`);
        expect(r.status).toBe(200);
        expect(r.body.next_url).toBeUndefined();
        expectBars(r.body.results, oracle([...stored.values()], intraday(width), session === 'regular'));
        expect(r.body.resultsCount).toBe(r.body.results.length);
      }
    });
  }

  it('7-minute bars (a width that does not divide a day) are counted from the epoch', async () => {
    const r = await aggs('7/minute', '2026-11-16', '2026-11-17');
    expectBars(
      r.body.results,
      oracle([...stored.values()], (ms) => Math.floor(ms / (7 * MINUTE)) * 7 * MINUTE, false),
    );
  });

  it('day and week bars: regular by default, the extended day on request, New York midnights', async () => {
    const day = (ms: number) => nyMidnightOf(ms);
    const regular = await aggs('1/day', '2026-11-16', '2026-11-17');
    expectBars(regular.body.results, oracle([...stored.values()], day, true));
    const extended = await aggs('1/day', '2026-11-16', '2026-11-17', '&session=extended');
    expectBars(extended.body.results, oracle([...stored.values()], day, false));
    expect(extended.body.results.map((b: OracleBar) => new Date(b.t).toISOString())).toEqual([
      '2026-11-16T05:00:00.000Z',
      '2026-11-17T05:00:00.000Z',
    ]);
    // Sunday 2026-11-15 starts the week
    const week = await aggs('1/week', '2026-11-16', '2026-11-17', '&session=extended');
    expectBars(
      week.body.results,
      oracle([...stored.values()], () => Date.UTC(2026, 10, 15, 5), false),
    );
  });

  it('pages by limit (base bars) through next_url, never splitting a bar, to the same bars as one answer', async () => {
    const whole = await aggs('5/minute', '2026-11-16', '2026-11-17');
    const seen: OracleBar[] = [];
    let url: string | undefined = `/stocks/v2/aggs/ticker/${SYMBOL}/range/5/minute/2026-11-16/2026-11-17?limit=37`;
    let pages = 0;
    let queried = 0;
    while (url) {
      const r = await rest(h, url, { key: 'demo-pro' });
      expect(r.status).toBe(200);
      expect(r.body.queryCount).toBeLessThanOrEqual(37);
      queried += r.body.queryCount;
      seen.push(...r.body.results);
      url = r.body.next_url;
      pages++;
    }
    expect(pages).toBeGreaterThan(10);
    expectBars(seen, whole.body.results);
    expect(queried).toBe(whole.body.queryCount);
    // newest first walks the same bars backwards, in one answer and page by page
    const desc = await aggs('5/minute', '2026-11-16', '2026-11-17', '&sort=desc');
    expectBars(desc.body.results, [...whole.body.results].reverse());
    const back: OracleBar[] = [];
    url = `/stocks/v2/aggs/ticker/${SYMBOL}/range/5/minute/2026-11-16/2026-11-17?limit=37&sort=desc`;
    for (pages = 0; url; pages++) {
      const r = await rest(h, url, { key: 'demo-pro' });
      back.push(...r.body.results);
      url = r.body.next_url;
    }
    expect(pages).toBeGreaterThan(10);
    expectBars(back, [...whole.body.results].reverse());
  });

  it('a trade on a day the calendar does not know is stored without a bar (the writer does not fail)', async () => {
    const old = { ...trades[0]!, symbol: 'ZZOLD', sequenceNumber: 1n, sipTimestamp: 631_152_000_000_000_000n };
    const epoch = { ...old, sequenceNumber: 2n, sipTimestamp: 0n };
    const written = await writeTrades(h.db, [old, epoch]);
    expect(written.inserted).toBe(2);
    expect(await h.db.prisma.minuteBar.count({ where: { symbol: 'ZZOLD' } })).toBe(0);
    expect((await rebuildBars(h.db, { symbol: 'ZZOLD' })).minutes).toBe(0);
  });

  it('cli bars rebuild recomputes the same bars from the trades', async () => {
    const before = await h.db.prisma.minuteBar.findMany({ where: { symbol: SYMBOL }, orderBy: { minute: 'asc' } });
    const days = await h.db.prisma.dayBar.findMany({
      where: { symbol: SYMBOL },
      orderBy: [{ extended: 'asc' }, { day: 'asc' }],
    });
    await h.db.prisma.minuteBar.deleteMany({ where: { symbol: SYMBOL } });
    await h.db.prisma.dayBar.deleteMany({ where: { symbol: SYMBOL } });
    const done = await rebuildBars(h.db, { symbol: SYMBOL });
    expect(done.symbols).toBe(1);
    // the volume-weighted price to 12 digits: the writer merged the late batch's mean into the stored one
    const same = <B extends { vwap: number | null }>(got: B[], want: B[]) => {
      expect(got.map((b) => ({ ...b, vwap: b.vwap === null }))).toEqual(
        want.map((b) => ({ ...b, vwap: b.vwap === null })),
      );
      for (const [i, b] of got.entries()) if (b.vwap !== null) expect(b.vwap).toBeCloseTo(want[i]!.vwap!, 10);
    };
    same(await h.db.prisma.minuteBar.findMany({ where: { symbol: SYMBOL }, orderBy: { minute: 'asc' } }), before);
    same(
      await h.db.prisma.dayBar.findMany({ where: { symbol: SYMBOL }, orderBy: [{ extended: 'asc' }, { day: 'asc' }] }),
      days,
    );
  });

  it('GraphQL Security.bars answers the bars REST does (a sample symbol)', async () => {
    const r = await rest(h, '/stocks/v2/aggs/ticker/NVLX/range/1/hour/2026-11-16/2026-11-20', { key: 'demo-pro' });
    expect(r.body.results.length).toBeGreaterThan(20);
    const g = await h.gql(
      '{ security(symbol: "NVLX") { bars(timespan: HOUR, from: "2026-11-16T05:00:00Z", to: "2026-11-21T04:59:59.999Z") { nodes { startTimestamp open high low close volume vwap trades } } } }',
      {},
      { 'x-api-key': 'demo-pro' },
    );
    expect(g.errors).toBeUndefined();
    expect(
      g.data.security.bars.nodes.map((b: Record<string, unknown>) => ({
        o: b.open,
        h: b.high,
        l: b.low,
        c: b.close,
        v: b.volume,
        vw: b.vwap,
        t: Number(BigInt(b.startTimestamp as string) / 1_000_000n),
        n: b.trades,
      })),
    ).toEqual(r.body.results);
  });

  it('a date alone is the exchange day in New York, on GraphQL as on REST', async () => {
    const r = await rest(h, '/stocks/v2/aggs/ticker/NVLX/range/1/day/2026-11-17/2026-11-18', { key: 'demo-free' });
    expect(r.body.results.map((b: OracleBar) => new Date(b.t).toISOString())).toEqual([
      '2026-11-17T05:00:00.000Z',
      '2026-11-18T05:00:00.000Z',
    ]);
    const g = await h.gql(
      '{ security(symbol: "NVLX") { bars(timespan: DAY, from: "2026-11-17", to: "2026-11-18") { nodes { start close } } } }',
      {},
      { 'x-api-key': 'demo-free' },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.security.bars.nodes).toEqual(
      r.body.results.map((b: OracleBar) => ({ start: new Date(b.t).toISOString(), close: b.c })),
    );
  });

  it('GraphQL pages forward by first/after and backward by last/before to the same bars', async () => {
    const q = `query($f: Int, $a: String, $l: Int, $b: String) { security(symbol: "NVLX") {
      bars(timespan: MINUTE, multiplier: 15, from: "2026-11-16", to: "2026-11-20", first: $f, after: $a, last: $l, before: $b) {
        nodes { start close } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    const whole = (await h.gql(q, {}, { 'x-api-key': 'demo-pro' })).data.security.bars;
    expect(whole.nodes.length).toBeGreaterThan(100);
    expect(whole.pageInfo.hasNextPage).toBe(false);
    const forward: unknown[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = (await h.gql(q, { f: 7, a: after }, { 'x-api-key': 'demo-pro' })).data.security.bars;
      forward.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual(whole.nodes);
    const backward: unknown[] = [];
    let before: string | null = null;
    for (;;) {
      const page: any = (await h.gql(q, { l: 9, b: before }, { 'x-api-key': 'demo-pro' })).data.security.bars;
      backward.unshift(...page.nodes);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(whole.nodes);
  });

  it('previous close, grouped daily and open-close answer the day bars the aggregates give', async () => {
    const last = await rest(h, '/stocks/v2/aggs/ticker/NVLX/range/1/day/2026-11-20/2026-11-20', { key: 'demo-free' });
    expect(last.body.results).toHaveLength(1);
    const prev = await rest(h, '/stocks/v2/aggs/ticker/NVLX/prev', { key: 'demo-free' });
    expect(prev.status).toBe(200);
    expect(prev.body.results).toEqual([{ T: 'NVLX', ...last.body.results[0] }]);
    const grouped = await rest(h, '/stocks/v2/aggs/grouped/locale/us/market/stocks/2026-11-20', { key: 'demo-free' });
    expect(grouped.body.results.find((b: { T: string }) => b.T === 'NVLX')).toEqual({
      T: 'NVLX',
      ...last.body.results[0],
    });
    const stored = await h.db.prisma.dayBar.count({ where: { day: 20777, extended: false } });
    expect(grouped.body.resultsCount).toBe(stored);
    expect(grouped.body.results.map((b: { T: string }) => b.T)).toEqual(
      [...grouped.body.results.map((b: { T: string }) => b.T)].sort(),
    );
    const oc = await rest(h, '/stocks/v1/open-close/NVLX/2026-11-20', { key: 'demo-free' });
    const bar = last.body.results[0];
    expect(oc.body).toMatchObject({
      status: 'OK',
      from: '2026-11-20',
      symbol: 'NVLX',
      open: bar.o,
      high: bar.h,
      low: bar.l,
      close: bar.c,
      volume: bar.v,
    });
    expect((await rest(h, '/stocks/v1/open-close/NVLX/2026-11-21', { key: 'demo-free' })).status).toBe(404);
    expectBadParam(await rest(h, '/stocks/v1/open-close/NVLX/2026-13-01', { key: 'demo-free' }), 'date');
    expectBadParam(
      await rest(h, '/stocks/v2/aggs/grouped/locale/us/market/stocks/friday', { key: 'demo-free' }),
      'date',
    );
  });

  it('open-close: the first pre-market and last after-hours prices of the brute force', async () => {
    const all = [...stored.values()];
    const session = (which: Session) =>
      oracle(
        all.filter((t) => {
          const ms = Number(t.sipTimestamp / 1_000_000n);
          return ms >= DAYS[0]! && ms < DAYS[0]! + 24 * HOUR && sessionOf(ms) === which;
        }),
        (ms) => Math.floor(ms / MINUTE) * MINUTE,
        false,
      );
    const oc = await rest(h, `/stocks/v1/open-close/${SYMBOL}/2026-11-16`, { key: 'demo-free' });
    expect(oc.status).toBe(200);
    expect(oc.body.preMarket).toBe(session('pre')[0]!.o);
    expect(oc.body.afterHours).toBe(session('post').at(-1)!.c);
    const regular = oracle(all, nyMidnightOf, true)[0]!;
    expect(oc.body).toMatchObject({
      open: regular.o,
      high: regular.h,
      low: regular.l,
      close: regular.c,
      volume: regular.v,
    });
  });

  it('minute and hour bars need the pro tier; day bars every tier', async () => {
    expect((await aggs('1/minute', '2026-11-16', '2026-11-17', '', 'demo-free')).status).toBe(403);
    expect((await aggs('1/hour', '2026-11-16', '2026-11-17', '', 'demo-free')).status).toBe(403);
    expect((await aggs('1/day', '2026-11-16', '2026-11-17', '', 'demo-free')).status).toBe(200);
  });

  it('refuses bad input with a 400 naming it', async () => {
    const base = `/stocks/v2/aggs/ticker/${SYMBOL}/range`;
    expectBadParam(await rest(h, `${base}/0/day/2026-11-16/2026-11-17`), 'multiplier');
    expectBadParam(await rest(h, `${base}/1/fortnight/2026-11-16/2026-11-17`), 'timespan');
    expectBadParam(await rest(h, `${base}/1/day/yesterday/2026-11-17`), 'from');
    expectBadParam(await rest(h, `${base}/1/day/2026-11-16/2026-11-17?limit=50001`), 'limit');
    expectBadParam(await rest(h, `${base}/1/day/2026-11-16/2026-11-17?session=overnight`), 'session');
    const after = await rest(h, `${base}/1/day/2026-11-18/2026-11-17`);
    expect(after.status).toBe(400);
    expect(after.body.message).toMatch(/from .* is after parameter to/);
    // days the calendar does not know: a range is cut to the days it knows, a day is refused
    expect((await rest(h, `${base}/1/day/1990-01-01/2026-11-17`)).status).toBe(200);
    expect((await rest(h, `${base}/1/day/0/99999999999999`)).status).toBe(200);
    expectBadParam(await rest(h, `/stocks/v1/open-close/${SYMBOL}/1999-12-31`), 'date');
    expectBadParam(await rest(h, '/stocks/v2/aggs/grouped/locale/us/market/stocks/2200-01-01'), 'date');
    const g = await h.gql(
      '{ security(symbol: "NVLX") { bars(timespan: DAY, from: "1900-01-01", to: "2999-01-01", first: 1) { nodes { close } } } }',
    );
    expect(g.errors).toBeUndefined();
    const small = await rest(h, `${base}/2/hour/2026-11-16/2026-11-17?limit=100`);
    expect(small.status).toBe(400);
    expect(small.body.message).toMatch(/limit 100 is fewer than the base bars one 2 hour bar may hold \(120\)/);
  });

  describe('adjustments, by hand around the sample actions', () => {
    // a bar starts at New York midnight: 04:00 or 05:00 UTC of its own date
    const day = (ms: number) => new Date(ms + 12 * HOUR).toISOString().slice(0, 10);
    const days = async (symbol: string, from: string, to: string, query: string, key = 'demo-free') =>
      (await rest(h, `/stocks/v2/aggs/ticker/${symbol}/range/1/day/${from}/${to}?${query}`, { key })).body
        .results as OracleBar[];

    it('a forward split: earlier prices divided by its ratio, volumes multiplied; raw as quoted; asOf before it undoes it after', async () => {
      const split = SAMPLE_SPLITS.find((x) => x.ticker === 'QNTR')!;
      const raw = await days('QNTR', '2025-05-01', '2025-07-31', 'adjustment=raw');
      const adjusted = await days('QNTR', '2025-05-01', '2025-07-31', '');
      const asOfBefore = await days('QNTR', '2025-05-01', '2025-07-31', 'adjustment=split&as_of=2025-05-30');
      const ratio = split.splitTo / split.splitFrom;
      expect(raw.length).toBe(adjusted.length);
      const cut = raw.findIndex((b) => day(b.t) >= split.executionDate);
      expect(cut).toBeGreaterThan(5);
      // the raw series jumps at the split, by about its ratio
      expect(raw[cut - 1]!.c / raw[cut]!.o).toBeGreaterThan(ratio * 0.95);
      for (const [i, r] of raw.entries()) {
        const before = i < cut;
        expect(adjusted[i]!.c).toBeCloseTo(before ? r.c / ratio : r.c, 9);
        expect(adjusted[i]!.o).toBeCloseTo(before ? r.o / ratio : r.o, 9);
        expect(adjusted[i]!.v).toBeCloseTo(before ? r.v * ratio : r.v, 6);
        expect(asOfBefore[i]!.c).toBeCloseTo(before ? r.c : r.c * ratio, 9);
      }
    });

    it('a reverse split is applied as a reverse split (earlier prices multiplied)', async () => {
      const split = SAMPLE_SPLITS.find((x) => x.ticker === 'SLMI')!;
      const raw = await days('SLMI', '2026-01-15', '2026-03-15', 'adjustment=raw');
      const adjusted = await days('SLMI', '2026-01-15', '2026-03-15', 'adjustment=split');
      for (const [i, r] of raw.entries())
        expect(adjusted[i]!.c).toBeCloseTo(
          day(r.t) < split.executionDate ? r.c * (split.splitFrom / split.splitTo) : r.c,
          9,
        );
      expect(split.splitFrom / split.splitTo).toBe(10);
    });

    it('cash dividends: earlier prices times 1 - amount / the close before the ex-date; volumes as quoted', async () => {
      for (const ticker of ['NVLX', 'GRDX']) {
        const raw = await days(ticker, '2025-01-01', '2026-11-13', 'adjustment=raw');
        const adjusted = await days(ticker, '2025-01-01', '2026-11-13', 'adjustment=dividend');
        const dividends = SAMPLE_DIVIDENDS.filter((x) => x.ticker === ticker && x.exDividendDate <= '2026-11-13');
        expect(dividends.length).toBeGreaterThan(0);
        const factors = dividends.map((x) => {
          const prior = raw.filter((b) => day(b.t) < x.exDividendDate).at(-1)!;
          return { ex: x.exDividendDate, factor: 1 - x.cashAmount / prior.c };
        });
        for (const [i, r] of raw.entries()) {
          const factor = factors.filter((f) => day(r.t) < f.ex).reduce((p, f) => p * f.factor, 1);
          expect(adjusted[i]!.c).toBeCloseTo(r.c * factor, 9);
          expect(adjusted[i]!.v).toBe(r.v);
        }
      }
    });

    it('a ticker change: the history runs through the old symbol, found from either symbol', async () => {
      const change = SAMPLE_TICKER_CHANGES[0]!;
      const now = await days(change.symbol, '2025-08-15', '2025-10-15', 'adjustment=raw');
      const then = await days(change.previous, '2025-08-15', '2025-10-15', 'adjustment=raw');
      expect(now.length).toBeGreaterThan(30);
      expect(now.some((b) => day(b.t) < change.startDate)).toBe(true);
      expect(now.some((b) => day(b.t) >= change.startDate)).toBe(true);
      expect(then).toEqual(now);
      const g = await h.gql(
        `{ security(symbol: "${change.symbol}") { bars(timespan: DAY, from: "2025-08-15", to: "2025-10-15", adjustment: [RAW]) { nodes { close } factors { price } } } }`,
        {},
        { 'x-api-key': 'demo-free' },
      );
      expect(g.data.security.bars.nodes.map((b: { close: number }) => b.close)).toEqual(now.map((b) => b.c));
      expect(g.data.security.bars.factors).toEqual([]);
    });

    it('GraphQL gives the factors it applied, so a client can undo them', async () => {
      const g = await h.gql(
        `{ security(symbol: "QNTR") {
          adj: bars(timespan: DAY, from: "2025-06-01", to: "2025-06-30", adjustment: [ALL]) { nodes { start close } factors { from to price volume } }
          raw: bars(timespan: DAY, from: "2025-06-01", to: "2025-06-30", adjustment: [RAW]) { nodes { close } } } }`,
        {},
        { 'x-api-key': 'demo-free' },
      );
      expect(g.errors).toBeUndefined();
      const { adj, raw } = g.data.security;
      const factorOn = (date: string) =>
        adj.factors.find(
          (f: { from: string | null; to: string | null }) => (f.from ?? '') <= date && date <= (f.to ?? '9999'),
        )?.price ?? 1;
      adj.nodes.forEach((b: { start: string; close: number }, i: number) =>
        expect(b.close / factorOn(day(Date.parse(b.start)))).toBeCloseTo(raw.nodes[i].close, 9),
      );
    });
  });
});
