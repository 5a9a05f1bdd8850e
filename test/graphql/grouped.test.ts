// Query.groupedDaily: every symbol's bar of one exchange day, the twin of REST's grouped daily. Its
// pages concatenated are the REST answer; the sample's two splits (QNTR 2-for-1 executed 2025-06-10,
// SLMI 1-for-10 executed 2026-02-18, src/sample/corporate-actions.ts) adjust the days before them by
// the ratios typed in here, against the raw day bars read by Prisma.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_SPLITS } from '../../src/sample/corporate-actions.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const QUERY = `query($date: Date!, $adjusted: Boolean, $first: Int, $after: String, $last: Int, $before: String) {
  groupedDaily(date: $date, adjusted: $adjusted, first: $first, after: $after, last: $last, before: $before) {
    nodes { symbol bar { start startTimestamp open high low close volume vwap trades } }
    edges { cursor node { symbol } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  } }`;

interface Node {
  symbol: string;
  bar: {
    start: string;
    startTimestamp: string;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number;
    vwap: number;
    trades: number;
  };
}

/** A GraphQL node in REST's shape (REST leaves vw out where GraphQL answers 0). */
const asRest = (n: Node, vwGiven: boolean) => ({
  T: n.symbol,
  o: n.bar.open,
  h: n.bar.high,
  l: n.bar.low,
  c: n.bar.close,
  v: n.bar.volume,
  ...(vwGiven ? { vw: n.bar.vwap } : {}),
  t: Date.parse(n.bar.start),
  n: n.bar.trades,
});

const FREE = { 'x-api-key': 'demo-free' };

describe.each(testDatabases())('GraphQL groupedDaily on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** Every page of the day, `first` at a time, on the free tier (day bars are every tier's). */
  async function allPages(vars: Record<string, unknown>, first: number) {
    const nodes: Node[] = [];
    const pages: any[] = [];
    let after: string | null = null;
    for (;;) {
      const r: { errors?: unknown; data?: any } = await h.gql(QUERY, { ...vars, first, after }, FREE);
      expect(r.errors).toBeUndefined();
      const page: any = r.data.groupedDaily;
      pages.push(page);
      nodes.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    return { nodes, pages };
  }

  /** REST's grouped day, and GraphQL's pages of it in REST's shape. */
  async function both(date: string, adjusted: boolean, first: number) {
    const r = await rest(h, `/stocks/v2/aggs/grouped/locale/us/market/stocks/${date}?adjusted=${adjusted}`, {
      key: 'demo-free',
    });
    expect(r.status).toBe(200);
    const { nodes, pages } = await allPages({ date, adjusted }, first);
    const results: any[] = r.body.results;
    return { results, nodes, pages, shaped: nodes.map((n, i) => asRest(n, results[i]?.vw !== undefined)) };
  }

  it('all pages concatenated are the REST answer of the day, by symbol', async () => {
    const { results, shaped, pages, nodes } = await both('2026-11-20', true, 40);
    const stored = await h.db.prisma.dayBar.count({ where: { day: 20777, extended: false } });
    expect(results.length).toBe(stored);
    expect(pages.length).toBe(Math.ceil(stored / 40));
    expect(shaped).toEqual(results);
    expect(nodes.map((n) => n.symbol)).toEqual([...nodes.map((n) => n.symbol)].sort());
    // every node starts at New York's midnight of the day (EST, UTC-5), typed in
    expect(new Set(nodes.map((n) => n.bar.start))).toEqual(new Set(['2026-11-20T05:00:00.000Z']));
    expect(nodes[0]!.bar.startTimestamp).toBe(String(Date.UTC(2026, 10, 20, 5) * 1_000_000));
  });

  it('pages by first/after: no symbol twice, none left out, each page the size asked for', async () => {
    const whole = await h.gql(QUERY, { date: '2026-11-20', first: 5000 }, FREE);
    const all: Node[] = whole.data.groupedDaily.nodes;
    expect(whole.data.groupedDaily.pageInfo.hasNextPage).toBe(false);
    const { pages, nodes } = await allPages({ date: '2026-11-20' }, 7);
    expect(nodes).toEqual(all);
    for (const p of pages.slice(0, -1)) expect(p.nodes).toHaveLength(7);
    expect(pages.at(-1).nodes.length).toBe(all.length % 7 || 7);
    expect(pages.every((p) => p.pageInfo.hasPreviousPage === false)).toBe(true);
    // an edge's cursor pages from that edge
    const second = pages[1];
    const fromEdge = await h.gql(QUERY, { date: '2026-11-20', first: 3, after: second.edges[2].cursor }, FREE);
    expect(fromEdge.data.groupedDaily.nodes).toEqual(all.slice(10, 13));
    // the default page is 100
    const first = await h.gql(QUERY, { date: '2026-11-20' }, FREE);
    expect(first.data.groupedDaily.nodes).toEqual(all.slice(0, 100));
    expect(first.data.groupedDaily.pageInfo.hasNextPage).toBe(all.length > 100);
  });

  it('pages backward by last/before to the same symbols, and a cursor pages either way from its symbol', async () => {
    const all: Node[] = (await h.gql(QUERY, { date: '2026-11-20', first: 5000 }, FREE)).data.groupedDaily.nodes;
    const backward: Node[] = [];
    let before: string | null = null;
    for (;;) {
      const r = await h.gql(QUERY, { date: '2026-11-20', last: 9, before }, FREE);
      expect(r.errors).toBeUndefined();
      const page: any = r.data.groupedDaily;
      expect(page.pageInfo.hasNextPage).toBe(false);
      backward.unshift(...page.nodes);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(all);
    const mid = (await h.gql(QUERY, { date: '2026-11-20', first: 20 }, FREE)).data.groupedDaily.edges[19].cursor;
    const around = await h.gql(QUERY, { date: '2026-11-20', last: 4, before: mid }, FREE);
    expect(around.data.groupedDaily.nodes).toEqual(all.slice(15, 19));
    const between = await h.gql(
      QUERY,
      { date: '2026-11-20', first: 50, after: around.data.groupedDaily.edges[0].cursor, before: mid },
      FREE,
    );
    expect(between.data.groupedDaily.nodes).toEqual(all.slice(16, 19));
    expect((await h.gql(QUERY, { date: '2026-11-20', first: 1, last: 1 }, FREE)).errors?.[0]?.extensions?.code).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('adjusts the days before a split by its ratio (prices and volumes), and REST agrees', async () => {
    // the sample's execution dates, as the ratios below assume them
    expect(SAMPLE_SPLITS.map((x) => [x.ticker, x.executionDate])).toEqual([
      ['QNTR', '2025-06-10'],
      ['SLMI', '2026-02-18'],
    ]);
    const raw = async (symbol: string, date: string) =>
      (await h.db.prisma.dayBar.findUnique({
        where: { symbol_extended_day: { symbol, extended: false, day: Date.parse(date) / 86_400_000 } },
      }))!;
    const check = async (date: string, ratios: Record<string, { price: number; volume: number }>) => {
      const { results, shaped, nodes } = await both(date, true, 500);
      expect(shaped).toEqual(results);
      for (const [symbol, f] of Object.entries(ratios)) {
        const bar = await raw(symbol, date);
        const node = nodes.find((n) => n.symbol === symbol)!;
        expect(node.bar.open).toBeCloseTo(bar.open! * f.price, 10);
        expect(node.bar.high).toBeCloseTo(bar.high! * f.price, 10);
        expect(node.bar.low).toBeCloseTo(bar.low! * f.price, 10);
        expect(node.bar.close).toBeCloseTo(bar.close! * f.price, 10);
        expect(node.bar.vwap).toBeCloseTo((bar.vwap ?? 0) * f.price, 10);
        expect(node.bar.volume).toBeCloseTo(bar.volume * f.volume, 6);
        const r = results.find((b) => b.T === symbol);
        expect(r.c).toBeCloseTo(bar.close! * f.price, 10);
        expect(r.v).toBeCloseTo(bar.volume * f.volume, 6);
      }
      return nodes;
    };
    // the day before both: QNTR's prices halve and volumes double, SLMI's prices times 10, volumes a tenth
    await check('2025-06-09', { QNTR: { price: 0.5, volume: 2 }, SLMI: { price: 10, volume: 0.1 } });
    // QNTR's execution day is in the new terms already; SLMI's reverse split still ahead
    await check('2025-06-10', { QNTR: { price: 1, volume: 1 }, SLMI: { price: 10, volume: 0.1 } });
    await check('2026-02-17', { QNTR: { price: 1, volume: 1 }, SLMI: { price: 10, volume: 0.1 } });
    await check('2026-02-18', { QNTR: { price: 1, volume: 1 }, SLMI: { price: 1, volume: 1 } });
    // adjusted: false is the raw bars, REST and GraphQL alike
    const { results, shaped, nodes } = await both('2025-06-09', false, 500);
    expect(shaped).toEqual(results);
    const qntr = await raw('QNTR', '2025-06-09');
    expect(nodes.find((n) => n.symbol === 'QNTR')!.bar).toMatchObject({ open: qntr.open, volume: qntr.volume });
  });

  it('refuses a date outside the calendar, a malformed date and a bad first or cursor, naming them', async () => {
    const bad = async (vars: Record<string, unknown>, name: string) => {
      const r = await h.gql(QUERY, vars, FREE);
      expect(r.data?.groupedDaily ?? null).toBeNull();
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.errors)).toBe('BAD_USER_INPUT');
      expect(r.errors?.[0]?.message).toContain(name);
      return r.errors![0]!.message;
    };
    expect(await bad({ date: '2200-01-01' }, '"date"')).toContain('2200-01-01');
    expect(await bad({ date: '1999-12-31' }, '"date"')).toContain('1999-12-31');
    await bad({ date: '2026-13-01' }, 'date');
    await bad({ date: '2026-11-20', first: 5001 }, '"first"');
    await bad({ date: '2026-11-20', first: 0 }, '"first"');
    await bad({ date: '2026-11-20', last: 5001 }, '"last"');
    await bad({ date: '2026-11-20', after: 'not-a-cursor' }, 'after');
  });

  it('reads the bars and the splits after the day in one statement, a page and REST alike', async () => {
    const page = () => h.gql(QUERY, { date: '2025-06-09', first: 5 }, FREE);
    expect(await h.countWarmStatements(page)).toBe(1);
    const all = () => rest(h, '/stocks/v2/aggs/grouped/locale/us/market/stocks/2025-06-09', { key: 'demo-free' });
    expect(await h.countWarmStatements(all)).toBe(1);
  });

  it('needs an API key; every tier has it', async () => {
    const anonymous = await h.gql(QUERY, { date: '2026-11-20', first: 1 }, {});
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    for (const key of ['demo-free', 'demo-pro', 'demo-enterprise']) {
      const r = await h.gql(QUERY, { date: '2026-11-20', first: 1 }, { 'x-api-key': key });
      expect(r.errors).toBeUndefined();
      expect(r.data.groupedDaily.nodes).toHaveLength(1);
    }
  });
});
