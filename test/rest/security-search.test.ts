// Search like Typesense (issue 20): facets over the whole match set, filter_by and sort_by held to
// oracles written here over the sample rows (not the filter code's own evaluator), their errors
// naming the position, free text with typos over names, highlights, and the GraphQL screener over
// the latest metrics — through REST and GraphQL, on each database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Security } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from './helpers.js';

const PATH = '/search/api/v1/securities';
const q = (params: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Latest metrics of a symbol, as the screener defines them: latest period end, the annual record on a tie, then the highest id. */
type Metrics = Record<string, number | null>;

describe.each(testDatabases())('security search and screener on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: Security[];
  let metrics: Map<string, Metrics>;

  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RESPONSE_CACHE_TTL_SECONDS: '0' });
    all = await h.db.prisma.security.findMany();
    const funds = await h.db.prisma.fundamental.findMany({ include: { metrics: true } });
    funds.sort((a, b) =>
      a.endPeriod !== b.endPeriod
        ? a.endPeriod < b.endPeriod
          ? 1
          : -1
        : (a.quarter === 'FY') !== (b.quarter === 'FY')
          ? a.quarter === 'FY'
            ? -1
            : 1
          : b.id - a.id,
    );
    metrics = new Map();
    for (const f of funds)
      if (!metrics.has(f.symbol)) metrics.set(f.symbol, (f.metrics as unknown as Metrics | null) ?? {});
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The ids a REST search returns over all its pages (per_page 250). */
  const allHits = async (params: Record<string, string>) => {
    const ids: string[] = [];
    for (let page = 1; page < 50; page++) {
      const r = await rest(h, q({ ...params, per_page: 250, page }));
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      ids.push(...r.body.data.hits.map((hit: any) => hit.document.id));
      if (ids.length >= r.body.data.found) return { ids, found: r.body.data.found as number };
    }
    throw new Error('too many pages');
  };

  it('facet_by counts every match, not the page: top 10 values by count, exact counts, distinct values, numeric stats', async () => {
    const r = await rest(
      h,
      q({
        q: '*',
        search_type: 'symbol',
        per_page: 1,
        facet_by: 'exchange_info.mic_code,classification.gics,ticker_meta.active,financials.market_cap',
      }),
    );
    expect(r.status).toBe(200);
    const facets = r.body.data.facet_counts as any[];
    expect(facets.map((f) => f.field_name)).toEqual([
      'exchange_info.mic_code',
      'classification.gics',
      'ticker_meta.active',
      'financials.market_cap',
    ]);
    const columns: (keyof Security)[] = ['micCode', 'gics', 'active', 'marketCap'];
    facets.forEach((facet, i) => {
      const oracle = new Map<string, number>();
      for (const s of all)
        if (s[columns[i]!] !== null) oracle.set(String(s[columns[i]!]), (oracle.get(String(s[columns[i]!])) ?? 0) + 1);
      expect(facet.stats.total_values, facet.field_name).toBe(oracle.size);
      expect(facet.counts.length).toBe(Math.min(10, oracle.size));
      for (const c of facet.counts) expect(c.count, `${facet.field_name} ${c.value}`).toBe(oracle.get(c.value));
      const listed = new Set(facet.counts.map((c: any) => c.value));
      const least = Math.min(...facet.counts.map((c: any) => c.count));
      for (const [value, count] of oracle)
        if (!listed.has(value)) expect(count, `${value} left out`).toBeLessThanOrEqual(least);
      expect(facet.counts.map((c: any) => c.count)).toEqual(
        [...facet.counts.map((c: any) => c.count)].sort((a, b) => b - a),
      );
    });
    const caps = all.map((s) => Number(s.marketCap)).filter((n) => !Number.isNaN(n));
    expect(facets[3].stats.min).toBe(Math.min(...caps));
    expect(facets[3].stats.max).toBe(Math.max(...caps));
    expect(facets[3].stats.sum).toBeCloseTo(
      caps.reduce((a, b) => a + b, 0),
      -3,
    );
    // over a filtered set: the counts add up to found, not to the page's one hit
    const mic = facets[0].counts[0].value as string;
    const filtered = await rest(
      h,
      q({
        q: '*',
        search_type: 'symbol',
        per_page: 1,
        filter_by: `exchange_info.mic_code:=${mic}`,
        facet_by: 'classification.gics',
      }),
    );
    const expected = all.filter((s) => s.micCode === mic && s.gics !== null).length;
    expect(filtered.body.data.found).toBe(all.filter((s) => s.micCode === mic).length);
    expect(filtered.body.data.facet_counts[0].counts.reduce((n: number, c: any) => n + c.count, 0)).toBeLessThanOrEqual(
      expected,
    );
    expect(filtered.body.data.hits).toHaveLength(1);
  });

  it('filter_by and sort_by agree with an oracle over the sample rows', async () => {
    const mics = [...new Set(all.map((s) => s.micCode))].sort();
    const sectors = [...new Set(all.map((s) => s.gics).filter(Boolean))].sort() as string[];
    const caps = all.map((s) => Number(s.marketCap)).sort((a, b) => a - b);
    const median = caps[Math.floor(caps.length / 2)]!;
    const cases: [string, (s: Security) => boolean][] = [
      [`exchange_info.mic_code:=${mics[0]}`, (s) => s.micCode === mics[0]],
      [
        `exchange_info.mic_code:!=${mics[0]} && financials.market_cap:>${median}`,
        (s) => s.micCode !== mics[0] && Number(s.marketCap) > median,
      ],
      [
        `classification.gics:=[\`${sectors[0]}\`, \`${sectors[1]}\`]`,
        (s) => s.gics === sectors[0] || s.gics === sectors[1],
      ],
      [
        `ticker_meta.active:false || company_info.total_employees:<1000`,
        (s) => !s.active || (s.totalEmployees !== null && s.totalEmployees < 1000),
      ],
      [
        `financials.market_cap:[${caps[10]}..${median}]`,
        (s) => Number(s.marketCap) >= caps[10]! && Number(s.marketCap) <= median,
      ],
      [
        `(exchange_info.mic_code:=${mics[0]} || exchange_info.mic_code:=${mics[1] ?? mics[0]}) && ticker_meta.active:true`,
        (s) => (s.micCode === mics[0] || s.micCode === mics[1]) && s.active,
      ],
    ];
    for (const [filter_by, keep] of cases) {
      const expected = all
        .filter(keep)
        .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : byId(a, b)));
      const got = await allHits({ q: '*', search_type: 'symbol', filter_by });
      expect(got.found, filter_by).toBe(expected.length);
      expect(got.ids, filter_by).toEqual(expected.map((s) => s.id));
    }
    const sorted = await allHits({ q: '*', search_type: 'symbol', sort_by: 'financials.market_cap:desc' });
    const bySize = [...all].sort((a, b) =>
      a.marketCap === null ? 1 : b.marketCap === null ? -1 : Number(b.marketCap) - Number(a.marketCap) || byId(a, b),
    );
    expect(sorted.ids).toEqual(bySize.map((s) => s.id));
  });

  it('bad filter_by, sort_by, facet_by and query_by are 400s naming the parameter (and the position)', async () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ filter_by: 'exchange_info.mic_code:>' }, /filter_by.*position 24/],
      [{ filter_by: 'nope:=1' }, /filter_by.*position 1.*nope/],
      [{ filter_by: 'financials.market_cap:>abc' }, /filter_by.*position 24/],
      [{ filter_by: '(ticker_meta.active:true' }, /filter_by.*position/],
      [{ sort_by: 'financials.market_cap:sideways' }, /sort_by.*position 23/],
      [{ sort_by: '_text_match:desc' }, /_text_match.*text query/],
      [{ facet_by: 'name' }, /facet_by.*position 1/],
      [{ query_by: 'name' }, /query_by applies to search_type=name/],
      [{ search_type: 'name', query_by: 'description' }, /query_by must be a comma list of symbol, name/],
    ];
    for (const [params, message] of bad) {
      const r = await rest(h, q({ q: 'N', search_type: 'symbol', ...params }));
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.message, JSON.stringify(params)).toMatch(message);
      expect(r.body.error).toBe(r.body.message);
    }
  });

  it('search_type=name finds a company by its name, with typos, and marks the matched words', async () => {
    const nvlx = all.find((s) => s.symbol === 'NVLX')!;
    for (const text of ['novalux', 'Novalux Semi', 'novlux semi', 'novaluks semicondctor', 'nvlx']) {
      const r = await rest(h, q({ q: text, search_type: 'name', per_page: 3 }));
      expect(r.status, text).toBe(200);
      expect(r.body.data.hits[0]?.document.symbol, text).toBe('NVLX');
    }
    const r = await rest(h, q({ q: 'novalux', search_type: 'name', query_by: 'name' }));
    const hit = r.body.data.hits[0];
    expect(hit.highlight.name.snippet).toBe(nvlx.name.replace(/^Novalux/, '<mark>Novalux</mark>'));
    expect(hit.highlight.name.matched_tokens).toEqual(['Novalux']);
    expect(hit.highlights).toEqual([
      { field: 'name', snippet: hit.highlight.name.snippet, matched_tokens: ['Novalux'] },
    ]);
    const every = await rest(h, q({ q: '*', search_type: 'name', per_page: 1 }));
    expect(every.body.data.found).toBe(all.length);
  });

  it('GraphQL: the screener filters and orders by the latest metrics, as the oracle does', async () => {
    const doc = `query ($filter: SecurityFilter, $orderBy: [SecurityOrder!], $after: String) {
      securities(filter: $filter, orderBy: $orderBy, first: 25, after: $after) { totalCount nodes { symbol } pageInfo { hasNextPage endCursor } } }`;
    const screen = async (filter: unknown, orderBy: unknown) => {
      const symbols: string[] = [];
      let after: string | null = null;
      let totalCount = 0;
      for (let i = 0; i < 40; i++) {
        const r: any = await h.gql(doc, { filter, orderBy, after });
        expect(r.errors, JSON.stringify(filter)).toBeUndefined();
        totalCount = r.data.securities.totalCount;
        symbols.push(...r.data.securities.nodes.map((n: any) => n.symbol));
        if (!r.data.securities.pageInfo.hasNextPage) break;
        after = r.data.securities.pageInfo.endCursor;
      }
      expect(totalCount).toBe(symbols.length);
      return symbols;
    };
    const m = (s: Security, k: string) => metrics.get(s.symbol)?.[k] ?? null;
    const pe = (s: Security) => m(s, 'peRatio');
    const oracle = all.filter((s) => pe(s) !== null && pe(s)! < 15 && m(s, 'roic') !== null && m(s, 'roic')! > 0.1);
    const byPe = [...oracle].sort((a, b) => pe(a)! - pe(b)! || byId(a, b)).map((s) => s.symbol);
    expect(oracle.length, 'the sample has cheap profitable companies').toBeGreaterThan(0);
    expect(await screen({ peRatio: { lt: 15 }, roic: { gt: 0.1 } }, [{ field: 'PE_RATIO', direction: 'ASC' }])).toEqual(
      byPe,
    );
    const sector = all[0]!.gics!;
    const tech = all.filter((s) => s.gics === sector && m(s, 'debtToEquity') !== null && m(s, 'debtToEquity')! <= 1);
    const byCap = [...tech]
      .sort((a, b) => Number(b.marketCap) - Number(a.marketCap) || byId(a, b))
      .map((s) => s.symbol);
    expect(
      await screen({ sector: { eq: sector }, debtToEquity: { lte: 1 } }, [{ field: 'MARKET_CAP', direction: 'DESC' }]),
    ).toEqual(byCap);
  });

  it('GraphQL: query ranks names with typos, facets count the match set, highlights mark the words', async () => {
    const r = await h.gql(`{ securities(query: "novlux semi", first: 2) {
      totalCount edges { node { symbol } highlights { field snippet matchedTokens } }
      facets(fields: [MIC_CODE, MARKET_CAP]) { field counts { value count } stats { totalValues min max } } } }`);
    expect(r.errors).toBeUndefined();
    const first = r.data.securities.edges[0];
    expect(first.node.symbol).toBe('NVLX');
    expect(first.highlights.find((x: any) => x.field === 'NAME').snippet).toMatch(
      /^<mark>Novalux<\/mark> <mark>Semiconductor<\/mark>/,
    );
    const total = r.data.securities.facets[0].counts.reduce((n: number, c: any) => n + c.count, 0);
    expect(total).toBe(r.data.securities.totalCount);
    const bad = await h.gql('{ securities(orderBy: [{ field: RELEVANCE }]) { nodes { symbol } } }');
    expect(bad.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringContaining('text query'),
    });
    // the typed filter keeps filter_by's bounds: no empty list, no more than 100 values, no more than 50 comparisons
    const cases: [unknown, string][] = [
      [{ securityType: { notIn: [] } }, 'needs at least one'],
      [{ micCode: { in: Array.from({ length: 101 }, (_, i) => `M${i}`) } }, 'at most 100 values'],
      [{ or: Array.from({ length: 51 }, () => ({ active: true })) }, 'at most 50 comparisons'],
    ];
    // a query is bounded whichever API and argument sends it, as REST's parameter is
    for (const argument of ['search', 'query']) {
      const long = await h.gql(`query ($q: String) { securities(${argument}: $q) { totalCount } }`, {
        q: 'a'.repeat(201),
      });
      expect(long.errors?.[0], argument).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT' },
        message: expect.stringContaining('at most 200 characters; got 201'),
      });
    }
    for (const [filter, message] of cases) {
      const r = await h.gql('query ($f: SecurityFilter) { securities(filter: $f) { totalCount } }', { f: filter });
      expect(r.errors?.[0], message).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT' },
        message: expect.stringContaining(message),
      });
    }
  });
});
