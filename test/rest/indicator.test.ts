// The indicator routes against an oracle independent of our indicator code: the technicalindicators
// package applied to the bars the aggregates route answers for the same range plus warm-up (each
// answer's underlying.url), to 1e-9 (absolute below 1, relative above); and, for the warm-up, to
// the value the package computes over the whole stored history (two years of the sample's day bars
// of NVLX), within the seed weight the warm-up allows (domain/indicators.ts SEED_WEIGHT; the bounds
// per indicator are those test/domain/indicators.test.ts measures).
//
// The package's conventions, aligned here as in test/domain/indicators.test.ts: it returns only the
// defined outputs (padded at the front here); its RSI is rounded to 2 decimals, so the exact one comes
// from its Wilder averages (AverageGain, AverageLoss); its MACD uses EMA lines only when told to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_WEIGHT } from '../../src/domain/indicators.js';
import { indicatorSeries } from '../../src/services/indicator.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';
import { type AggBar, expectValuesMatch, type Kind, TOLERANCE, type Value } from './indicator-oracle.js';

const SYMBOL = 'NVLX';
const CASES: { kind: Kind; params: Record<string, number>; query: string }[] = [
  { kind: 'sma', params: { window: 20 }, query: 'window=20' },
  { kind: 'ema', params: { window: 20 }, query: 'window=20' },
  { kind: 'rsi', params: { window: 14 }, query: 'window=14' },
  { kind: 'macd', params: { short_window: 12, long_window: 26, signal_window: 9 }, query: '' },
];

describe.each(testDatabases())('technical indicators on $name', (tdb) => {
  let h: GraphQLHarness;
  /** Every regular-session day bar of the symbol, oldest first, as the aggregates route answers them. */
  let history: AggBar[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000', RATE_LIMIT_PRO: '1000000' });
    const all = await rest(h, `/stocks/v2/aggs/ticker/${SYMBOL}/range/1/day/2000-01-01/2100-01-01?limit=50000`, {
      key: 'demo-free',
    });
    expect(all.status).toBe(200);
    history = all.body.results;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const get = (kind: Kind, query: string, key = 'demo-free', symbol = SYMBOL) =>
    rest(h, `/stocks/v1/indicators/${kind}/${symbol}?${query}`, { key });

  /** The bars of an answer's underlying.url, oldest first. */
  async function underlying(url: string, key = 'demo-free'): Promise<AggBar[]> {
    const r = await rest(h, url, { key });
    expect(r.status).toBe(200);
    expect(r.body.next_url).toBeUndefined();
    return [...r.body.results].sort((a: AggBar, b: AggBar) => a.t - b.t);
  }

  it('the sample holds two years of day bars: enough that a warm-up starts after the first', () => {
    expect(history.length).toBeGreaterThan(480);
  });

  for (const { kind, params, query } of CASES) {
    for (const [order, series] of [
      ['desc', 'close'],
      ['asc', 'open'],
      ['desc', 'high'],
      ['asc', 'low'],
    ] as const) {
      it(`${kind} (${order}, ${series}): the package over the bars of underlying.url, which are those of the range and its warm-up`, async () => {
        const r = await get(
          kind,
          `${query}&series_type=${series}&order=${order}&limit=40&timestamp.gte=2026-03-02&timestamp.lt=2026-07-01`,
        );
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const values: Value[] = r.body.results.values;
        // every bar of the range has a value, in order
        // New York midnights, typed in: 2026-03-02 in EST (UTC-5), 2026-07-01 in EDT (UTC-4)
        const inRange = history.filter((b) => b.t >= Date.UTC(2026, 2, 2, 5) && b.t < Date.UTC(2026, 6, 1, 4));
        const want = (order === 'asc' ? inRange : [...inRange].reverse()).slice(0, 40).map((b) => b.t);
        expect(values.map((v) => v.timestamp)).toEqual(want);
        expect(Object.keys(values[0]!).sort()).toEqual(
          kind === 'macd' ? ['histogram', 'signal', 'timestamp', 'value'] : ['timestamp', 'value'],
        );
        const bars = await underlying(r.body.results.underlying.url);
        expectValuesMatch(values, bars, kind, params, series);
        // the url reads the warm-up before the values, and nothing of the whole history before it
        expect(bars[0]!.t).toBeGreaterThan(history[0]!.t);
        expect(bars.at(-1)!.t).toBe(Math.max(...values.map((v) => v.timestamp)));
      });
    }

    it(`${kind}: the first requested value is the one the whole stored history gives`, async () => {
      // late in the history, where the warm-up starts well after the first stored bar
      const i = history.length - 20;
      const r = await get(kind, `${query}&timestamp=${history[i]!.t}`);
      expect(r.status).toBe(200);
      const [value] = r.body.results.values as Value[];
      expect(r.body.results.values).toHaveLength(1);
      expect(value!.timestamp).toBe(history[i]!.t);
      const bars = await underlying(r.body.results.underlying.url);
      expect(bars[0]!.t, 'the warm-up does not read the whole history').toBeGreaterThan(history[0]!.t);
      const closes = history.map((b) => b.c);
      const range = Math.max(...closes) - Math.min(...closes);
      // what the warm-up allows (test/domain/indicators.test.ts, "stable"): none for an SMA
      const bound = { sma: 0, ema: 1, rsi: 0, macd: 2 }[kind] * SEED_WEIGHT * range;
      const within = (extra: number) => (a: number, b: number) =>
        kind === 'rsi'
          ? Math.abs(a - b) < 1e-6
          : Math.abs(a - b) <= extra * bound + TOLERANCE * Math.max(1, Math.abs(b));
      expectValuesMatch([value!], history, kind, params, 'close', (field) => within(field === 'value' ? 1 : 13.5));
    });
  }

  it('pages by limit through next_url, in both orders, to the values of one answer; a followed page keeps no key', async () => {
    const range = 'timestamp.gte=2025-01-01&timestamp.lte=2025-06-30';
    for (const order of ['asc', 'desc'] as const) {
      const whole = await get('ema', `window=10&order=${order}&limit=5000&${range}`);
      expect(whole.body.next_url).toBeUndefined();
      const all: Value[] = whole.body.results.values;
      expect(all.length).toBeGreaterThan(100);
      const seen: Value[] = [];
      let url: string | undefined =
        `/stocks/v1/indicators/ema/${SYMBOL}?window=10&order=${order}&limit=7&${range}&apiKey=demo-free`;
      let pages = 0;
      while (url) {
        const r = await rest(h, url, { key: 'demo-free' });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.results.values.length).toBeLessThanOrEqual(7);
        seen.push(...r.body.results.values);
        url = r.body.next_url;
        if (url) {
          expect(url).toMatch(/^http:\/\/test\/stocks\/v1\/indicators\/ema\/NVLX\?/);
          expect(url.toLowerCase()).not.toContain('apikey');
        }
        pages++;
      }
      expect(pages).toBe(Math.ceil(all.length / 7));
      expect(seen.map((v) => v.timestamp)).toEqual(all.map((v) => v.timestamp));
      // each page computed its own warm-up: the same values within what the warm-up allows
      const closes = history.map((b) => b.c);
      const bound = SEED_WEIGHT * (Math.max(...closes) - Math.min(...closes)) + TOLERANCE * Math.max(...closes);
      for (const [i, v] of seen.entries()) expect(Math.abs(v.value - all[i]!.value)).toBeLessThanOrEqual(bound);
    }
  });

  it('answers the newest 10 by default; from the start of history the first value is the first defined bar', async () => {
    const newest = await get('sma', '');
    expect(newest.body.results.values.map((v: Value) => v.timestamp)).toEqual(
      history
        .slice(-10)
        .reverse()
        .map((b) => b.t),
    );
    expect(newest.body.next_url).toMatch(/timestamp\.lt=/);
    const oldest = await get('sma', 'window=5&order=asc&limit=3');
    expect(oldest.body.results.values.map((v: Value) => v.timestamp)).toEqual(history.slice(4, 7).map((b) => b.t));
    const rsi = await get('rsi', 'order=asc&limit=2');
    expect(rsi.body.results.values.map((v: Value) => v.timestamp)).toEqual(history.slice(14, 16).map((b) => b.t));
    // newest first down to the start of history: the last page ends at the first defined bar, with no next_url
    const last = await get('sma', `window=5&order=desc&limit=5&timestamp.lte=${history[8]!.t}`);
    expect(last.body.results.values.map((v: Value) => v.timestamp)).toEqual(
      history
        .slice(4, 9)
        .reverse()
        .map((b) => b.t),
    );
    expect(last.body.next_url).toBeUndefined();
    // a range without bars, and an unknown symbol: no values
    for (const r of [await get('ema', 'timestamp.lt=2001-01-01'), await get('ema', '', 'demo-free', 'ZZNONE')]) {
      expect(r.status).toBe(200);
      expect(r.body.results.values).toEqual([]);
      expect(r.body.next_url).toBeUndefined();
    }
  });

  it('expand_underlying: the bars used, in the order of the values, as the aggregates route answers them', async () => {
    const at = history[300]!.t;
    const plain = await get('sma', `window=5&limit=3&order=asc&timestamp.gte=${at}`);
    expect(plain.body.results.underlying).toEqual({ url: expect.any(String) });
    expect(plain.body.results.underlying.url).toMatch(
      new RegExp(
        `^http://test/stocks/v2/aggs/ticker/NVLX/range/1/day/${history[296]!.t}/\\d+\\?adjusted=true&sort=asc&limit=50000$`,
      ),
    );
    for (const order of ['asc', 'desc'] as const) {
      const r = await get(
        'sma',
        `window=5&limit=3&order=${order}&timestamp.gte=${at}&timestamp.lte=${history[302]!.t}&expand_underlying=true`,
      );
      const aggregates: AggBar[] = r.body.results.underlying.aggregates;
      // the 4 bars before the first value, and the 3 of the values (desc: and the one before them, which says the range holds no more)
      const used = history.slice(296, 303);
      expect(aggregates).toEqual(order === 'asc' ? used : [...history.slice(295, 303)].reverse());
      const viaUrl = await rest(h, r.body.results.underlying.url, { key: 'demo-free' });
      expect(viaUrl.body.results).toEqual(aggregates);
      expect(r.body.next_url).toBeUndefined();
    }
  });

  it('minute and hour indicators need the pro tier, and equal the package over their minute and hour bars', async () => {
    for (const timespan of ['minute', 'hour']) {
      const free = await get('ema', `timespan=${timespan}&window=10`, 'demo-free');
      expect(free.status).toBe(403);
      expect(free.body.message).toBe("bars needs the pro tier or higher; this caller's tier is free");
      const r = await get('ema', `timespan=${timespan}&window=10&order=asc&limit=500&timestamp=2026-11-19`, 'demo-pro');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // every bar of the day has a value: the day before is its warm-up
      const ofDay = await rest(
        h,
        `/stocks/v2/aggs/ticker/${SYMBOL}/range/1/${timespan}/2026-11-19/2026-11-19?limit=50000`,
        {
          key: 'demo-pro',
        },
      );
      expect(r.body.results.values.map((v: Value) => v.timestamp)).toEqual(ofDay.body.results.map((b: AggBar) => b.t));
      expect(r.body.results.values.length).toBeGreaterThanOrEqual(timespan === 'hour' ? 7 : 300);
      const bars = await underlying(r.body.results.underlying.url, 'demo-pro');
      expectValuesMatch(r.body.results.values, bars, 'ema', { window: 10 }, 'close');
      if (timespan === 'hour') {
        // bounds inside an hour: its bar is read whole, and counts where it starts
        const day: Value[] = r.body.results.values;
        const tenThirty = Date.UTC(2026, 10, 19, 15, 30); // 10:30 in New York (EST, UTC-5)
        // the same bars' values, each read from its own warm-up: equal within the seed's weight
        const closes = bars.map((b) => b.c);
        const bound = SEED_WEIGHT * (Math.max(...closes) - Math.min(...closes)) + TOLERANCE * Math.max(...closes);
        const expectValue = (got: Value[], at: number) => {
          const want = day.find((v) => v.timestamp === at)!;
          expect(got.map((v) => v.timestamp)).toEqual([at]);
          expect(Math.abs(got[0]!.value - want.value)).toBeLessThanOrEqual(bound);
        };
        const upTo = await get('ema', `timespan=hour&window=10&limit=1&timestamp.lte=${tenThirty}`, 'demo-pro');
        expectValue(upTo.body.results.values, Date.UTC(2026, 10, 19, 15));
        const from = await get(
          'ema',
          `timespan=hour&window=10&limit=1&order=asc&timestamp.gte=${tenThirty}`,
          'demo-pro',
        );
        expectValue(from.body.results.values, Date.UTC(2026, 10, 19, 16));
      }
      const regular = await get(
        'rsi',
        `timespan=${timespan}&window=5&session=regular&timestamp=2026-11-17&limit=500`,
        'demo-pro',
      );
      const regularBars = await underlying(regular.body.results.underlying.url, 'demo-pro');
      expect(regular.body.results.underlying.url).toContain('session=regular');
      expectValuesMatch(regular.body.results.values, regularBars, 'rsi', { window: 5 }, 'close');
    }
    for (const timespan of ['day', 'week', 'month'])
      expect((await get('sma', `timespan=${timespan}&window=3`)).status).toBe(200);
  });

  it('indicatorSeries with plain arguments: buckets of several days or weeks on one grid, however the read starts', async () => {
    for (const [timespan, multiplier] of [
      ['day', 3],
      ['week', 2],
      ['month', 2],
    ] as const) {
      const query = {
        symbol: SYMBOL,
        indicator: { kind: 'ema', window: 4 },
        timespan,
        multiplier,
        session: 'regular',
        seriesType: 'close',
        from: Date.UTC(2025, 10, 3),
        to: Date.UTC(2026, 8, 30),
        limit: 200,
        // raw prices: no adjustment, so the day they are quoted on changes nothing
        asOf: 20_777,
      } as const;
      const asc = await indicatorSeries(h.db, { ...query, order: 'asc' });
      const desc = await indicatorSeries(h.db, { ...query, order: 'desc' });
      expect(asc.values.length, `${multiplier} ${timespan}`).toBeGreaterThan(3);
      expect(asc.next).toBeUndefined();
      expect(desc.values.map((v) => v.t)).toEqual(asc.values.map((v) => v.t).reverse());
      for (const page of [asc, desc]) {
        // the aggregates of the same size from the oldest bar used are the bars used: one grid
        const r = await rest(
          h,
          `/stocks/v2/aggs/ticker/${SYMBOL}/range/${multiplier}/${timespan}/${page.span.from}/${page.span.to}?limit=50000`,
          { key: 'demo-free' },
        );
        expect(r.body.results.map((b: AggBar) => b.t)).toEqual(page.bars.map((b) => b.t).sort((a, b) => a - b));
        expectValuesMatch(
          page.values.map((v) => ({ timestamp: v.t, value: v.value })),
          r.body.results,
          'ema',
          { window: 4 },
          'close',
        );
      }
    }
  });

  it('refuses bad input with a 400 naming it', async () => {
    expectBadParam(await get('sma', 'window=0'), 'window', '0');
    expectBadParam(await get('sma', 'window=1001'), 'window', '1001');
    expectBadParam(await get('rsi', 'window=ten'), 'window', 'ten');
    expectBadParam(await get('macd', 'short_window=0'), 'short_window', '0');
    expectBadParam(await get('macd', 'long_window=1001'), 'long_window', '1001');
    expectBadParam(await get('macd', 'signal_window=-1'), 'signal_window', '-1');
    const crossed = await get('macd', 'short_window=30&long_window=20');
    expectBadParam(crossed, 'short_window', '30');
    expect(crossed.body.message).toContain('long_window (20)');
    expectBadParam(await get('ema', 'series_type=median'), 'series_type', 'median');
    expectBadParam(await get('ema', 'timespan=fortnight'), 'timespan', 'fortnight');
    expectBadParam(await get('ema', 'order=sideways'), 'order', 'sideways');
    expectBadParam(await get('ema', 'limit=0'), 'limit', '0');
    expectBadParam(await get('ema', 'limit=5001'), 'limit', '5001');
    expectBadParam(await get('ema', 'expand_underlying=maybe'), 'expand_underlying', 'maybe');
    expectBadParam(await get('ema', 'adjusted=perhaps'), 'adjusted', 'perhaps');
    expectBadParam(await get('ema', 'session=overnight'), 'session', 'overnight');
    expectBadParam(await get('ema', 'timestamp=yesterday'), 'timestamp', 'yesterday');
    expectBadParam(await get('ema', 'timestamp.gte=2026-13-45'), 'timestamp.gte', '2026-13-45');
    expectBadParam(await get('ema', 'timestamp.lt=12:00'), 'timestamp.lt', '12:00');
    // a date JavaScript would read as March 2
    expectBadParam(await get('ema', 'timestamp.lte=2026-02-30'), 'timestamp.lte', '2026-02-30');
    expectBadParam(await get('ema', '', 'demo-free', 'NV$LX'), 'ticker');
    // the work is bounded before it runs: too many hour values, a window too long for month bars
    const many = await get('sma', 'timespan=hour&limit=5000', 'demo-pro');
    expectBadParam(many, 'limit', '5000');
    expect(many.body.message).toMatch(/at most \d+ for this indicator on 1 hour bars/);
    expectBadParam(await get('rsi', 'timespan=month&window=1000'), 'window', '1000');
  });
});
