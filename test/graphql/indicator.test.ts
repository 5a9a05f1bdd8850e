// Indicators as fields of a page of bars (BarConnection.sma, .ema, .rsi, .macd) against the
// technicalindicators package over the whole history the aggregates route answers, within the seed
// weight the warm-up allows (domain/indicators.ts SEED_WEIGHT; as test/rest/indicator.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_WEIGHT } from '../../src/domain/indicators.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';
import { type AggBar, expectValuesMatch, type Kind, TOLERANCE } from '../rest/indicator-oracle.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const SYMBOL = 'NVLX';

const QUERY = `query ($from: DateTime!, $to: DateTime!, $multiplier: Int, $first: Int, $last: Int) {
  security(symbol: "${SYMBOL}") {
    bars(timespan: DAY, multiplier: $multiplier, from: $from, to: $to, first: $first, last: $last, adjustment: [RAW]) {
      nodes { start open close }
      sma(window: 20) { start value }
      ema(window: 10, seriesType: OPEN) { start value }
      rsi(window: 14) { start value }
      macd { start value signal histogram }
    }
  }
}`;

interface Page {
  nodes: { start: string; open: number; close: number }[];
  sma: { start: string; value: number }[];
  ema: { start: string; value: number }[];
  rsi: { start: string; value: number }[];
  macd: { start: string; value: number; signal: number; histogram: number }[];
}

describe.each(testDatabases())('indicators of a page of bars on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The aggregates from far before `from`, on the grid of `from` (multiplier days back by whole buckets). */
  async function history(multiplier: number, from: string, to: string): Promise<AggBar[]> {
    const start = new Date(Date.parse(`${from}T12:00:00Z`) - multiplier * 400 * 86_400_000).toISOString().slice(0, 10);
    const r = await rest(
      h,
      `/stocks/v2/aggs/ticker/${SYMBOL}/range/${multiplier}/day/${start}/${to}?limit=50000&adjusted=false`,
      { key: 'demo-free' },
    );
    expect(r.status).toBe(200);
    return r.body.results;
  }

  function expectPage(page: Page, bars: AggBar[]) {
    const starts = page.nodes.map((n) => n.start);
    const closes = bars.map((b) => b.c);
    const range = Math.max(...closes) - Math.min(...closes);
    for (const [kind, values, params, series] of [
      ['sma', page.sma, { window: 20 }, 'close'],
      ['ema', page.ema, { window: 10 }, 'open'],
      ['rsi', page.rsi, { window: 14 }, 'close'],
      ['macd', page.macd, { short_window: 12, long_window: 26, signal_window: 9 }, 'close'],
    ] as const) {
      // every bar of the page has enough history before it: a value each, in the page's order
      expect(
        values.map((v) => v.start),
        kind,
      ).toEqual(starts);
      const bound = { sma: 0, ema: 1, rsi: 0, macd: 2 }[kind as Kind] * SEED_WEIGHT * range;
      expectValuesMatch(
        values.map((v) => ({ ...v, timestamp: Date.parse(v.start) })),
        bars,
        kind,
        params,
        series,
        (field) => (a, b) =>
          kind === 'rsi'
            ? Math.abs(a - b) < 1e-6
            : Math.abs(a - b) <= (field === 'value' ? 1 : 13.5) * bound + TOLERANCE * Math.max(1, Math.abs(b)),
      );
    }
  }

  it('day bars: each value is the package over the whole history at that bar, forward and backward pages alike', async () => {
    const bars = await history(1, '2026-03-02', '2026-06-30');
    for (const paging of [{ first: 40 }, { last: 25 }]) {
      const r = await h.gql(QUERY, { from: '2026-03-02', to: '2026-06-30', ...paging });
      expect(r.errors).toBeUndefined();
      const page: Page = r.data.security.bars;
      expect(page.nodes.length).toBe(paging.first ?? paging.last);
      expectPage(page, bars);
    }
  });

  it('bars of three days: the warm-up is read on the page grid, so the values are those of its buckets', async () => {
    const bars = await history(3, '2026-03-02', '2026-10-30');
    const r = await h.gql(QUERY, { from: '2026-03-02', to: '2026-10-30', multiplier: 3, first: 30 });
    expect(r.errors).toBeUndefined();
    const page: Page = r.data.security.bars;
    // the page's buckets are those of the aggregates on the same grid
    const starts = new Set(bars.map((b) => b.t));
    expect(page.nodes.every((n) => starts.has(Date.parse(n.start)))).toBe(true);
    expectPage(page, bars);
  });

  it('a bad window is a BAD_USER_INPUT naming it; the free tier has the indicators', async () => {
    const r = await h.gql(
      `{ security(symbol: "${SYMBOL}") { bars(timespan: DAY, from: "2026-03-02", to: "2026-03-31") { sma(window: 0) { value } } } }`,
      {},
      { 'x-api-key': 'demo-free' },
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).toContain('"window"');
    const ok = await h.gql(
      `{ security(symbol: "${SYMBOL}") { bars(timespan: DAY, from: "2026-03-02", to: "2026-03-31") { sma(window: 3) { value } } } }`,
      {},
      { 'x-api-key': 'demo-free' },
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.security.bars.sma.length).toBeGreaterThan(15);
  });
});
