// What a user sees of the cost model (issue 28): small, realistic queries answered; every answer
// saying what it cost in `extensions.cost`; hostile ones still refused. The class tests of the
// analysis are in test/graphql/cost.test.ts, the attacks in test/attack/cost.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_PASS_UNITS } from '../../src/domain/limits.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult } from './helpers.js';
import { testDatabases } from '../helpers.js';

/** The first query: 200,803 units when a child list counted at its largest (100). */
const LOGOS_NEWS_RATINGS =
  '{ logos(first: 2) { nodes { symbol securities { symbol news(first: 2) { nodes { newsItemId associatedRatingIds associatedRatings { ratingId firm } } } } } } }';

/** The issue's drill-down: a company, its news, their press releases, those releases' securities, their ratings (6 relations; 7 levels with the leaves). */
const DRILL_DOWN = `{ security(symbol: "NVLX") { name news(first: 2) { nodes { headline associatedPressReleases {
  headline securities { symbol security { symbol ratings(first: 2) { nodes { firm action rating priceTarget } } } } } } } } }`;

describe.each(testDatabases())('the cost model as users meet it on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("answers a logo's securities' news' ratings, which cost 200,803 when child lists counted at 100", async () => {
    const r = await h.gql(LOGOS_NEWS_RATINGS);
    expect(r.errors).toBeUndefined();
    const logos = r.data.logos.nodes;
    expect(logos.map((l: { symbol: string }) => l.symbol)).toEqual(['AMBL', 'ARKN']);
    const news = logos.flatMap((l: any) => l.securities.flatMap((s: any) => s.news.nodes));
    expect(news).toEqual([
      {
        newsItemId: 189,
        associatedRatingIds: [279],
        associatedRatings: [{ ratingId: 279, firm: 'Ironbridge Advisors' }],
      },
      { newsItemId: 188, associatedRatingIds: [], associatedRatings: [] },
      {
        newsItemId: 108,
        associatedRatingIds: [169],
        associatedRatings: [{ ratingId: 169, firm: 'Harrowgate Capital Markets' }],
      },
      {
        newsItemId: 111,
        associatedRatingIds: [169, 170],
        associatedRatings: [
          { ratingId: 169, firm: 'Harrowgate Capital Markets' },
          { ratingId: 170, firm: 'Kestrel Point Capital' },
        ],
      },
    ]);
    // the firms are the ratings' own, asked by id through another path
    const byId = await h.gql(
      '{ a: ratings(filter: { id: 169 }) { nodes { ratingId firm } } b: ratings(filter: { id: 170 }) { nodes { ratingId firm } } }',
    );
    expect([byId.data.a.nodes, byId.data.b.nodes]).toEqual([
      [{ ratingId: 169, firm: 'Harrowgate Capital Markets' }],
      [{ ratingId: 170, firm: 'Kestrel Point Capital' }],
    ]);
    // by hand: logos 1 + 2 × (logo 1 + symbol 4 + 10 securities × (1 + symbol 4 + news 1 + 2 items ×
    // (1 + newsItemId 1 + 10 ids × 1 + 10 ratings × (1 + ratingId 1 + firm 4))))
    const item = 1 + 1 + 10 * 1 + 10 * (1 + 1 + 4);
    expect(r.extensions!.cost!).toEqual({ requested: 1 + 2 * (1 + 4 + 10 * (1 + 4 + 1 + 2 * item)), limit: 200_000 });
  });

  it("answers the drill-down from a company to its news' press releases' securities' ratings (6 relations)", async () => {
    const r = await h.gql(DRILL_DOWN);
    expect(r.errors).toBeUndefined();
    const security = r.data.security;
    expect(security.name).toBe('Novalux Semiconductor Corp.');
    expect(security.news.nodes).toHaveLength(2);
    const releases = security.news.nodes.flatMap((n: any) => n.associatedPressReleases);
    expect(releases.length).toBeGreaterThan(0);
    const listed = releases.flatMap((p: any) => p.securities);
    expect(listed.map((s: any) => s.security.symbol)).toContain('NVLX');
    const nvlx = listed.find((s: any) => s.security.symbol === 'NVLX').security.ratings.nodes;
    // the same ratings as NVLX's own, asked directly
    const direct = await h.gql(
      '{ security(symbol: "NVLX") { ratings(first: 2) { nodes { firm action rating priceTarget } } } }',
    );
    expect(nvlx).toEqual(direct.data.security.ratings.nodes);
    expect(nvlx).toHaveLength(2);
    expect(r.extensions!.cost!.requested).toBeLessThan(r.extensions!.cost!.limit);
  });

  it('says what an answer cost in extensions.cost, counted by hand, search passes included', async () => {
    // security 1 + symbol 4 + ratings 1 + 3 × (rating 1 + firm 4 + isRating 1)
    const ratings = await h.gql(
      '{ security(symbol: "NVLX") { symbol ratings(first: 3) { nodes { firm isRating } } } }',
    );
    expect(ratings.data.security.ratings.nodes).toHaveLength(3);
    expect(ratings.extensions).toEqual({ cost: { requested: 1 + 4 + 1 + 3 * (1 + 4 + 1), limit: 200_000 } });
    // a sorted search passes over the whole master: its pass counts SEARCH_PASS_UNITS beside its answer
    const sorted = await h.gql(
      '{ securities(first: 2, orderBy: [{ field: PE_RATIO, direction: DESC }]) { nodes { symbol } } }',
    );
    expect(sorted.data.securities.nodes).toHaveLength(2);
    expect(sorted.extensions!.cost!.requested).toBe(1 + 2 * (1 + 4) + SEARCH_PASS_UNITS);
    // the limit is the configured one; a variable's page size is counted as sent
    const app = h.appWith({ GRAPHQL_MAX_COST: '1000' });
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({
        query: 'query($n: Int) { security(symbol: "NVLX") { ratings(first: $n) { nodes { firm } } } }',
        variables: { n: 4 },
      }),
    });
    expect(((await res.json()) as any).extensions).toEqual({
      cost: { requested: 1 + 1 + 4 * (1 + 4), limit: 1000 },
    });
  });

  it('says it on an answer from the response cache too, and on a refusal for cost', async () => {
    const query = '{ logos(first: 2) { nodes { symbol securityInfo { figi } } } }';
    // logos 1 + 2 × (logo 1 + symbol 4 + 10 × (info 1 + figi 4))
    const cost = { requested: 1 + 2 * (1 + 4 + 10 * (1 + 4)), limit: 200_000 };
    expect((await h.gql(query)).extensions).toEqual({ cost });
    let cached!: GraphQLResult;
    expect(await h.countStatements(async () => (cached = await h.gql(query)))).toBe(0);
    expect(cached.data.logos.nodes).toHaveLength(2);
    expect(cached.extensions).toEqual({ cost });
    // 100 logos × 10 securities × 100 news × 10 ratings: refused, before anything runs, with its cost
    const refused = await h.gql(
      '{ logos(first: 100) { nodes { securities { news(first: 100) { nodes { associatedRatings { firm story } } } } } } }',
    );
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    const found = Number(/found (\d+)/.exec(refused.errors![0]!.message)![1]);
    expect(refused.extensions).toEqual({ cost: { requested: found, limit: 200_000 } });
    // story is long text (32,768 characters, 512 units)
    expect(found).toBe(1 + 100 * (1 + 10 * (1 + 1 + 100 * (1 + 10 * (1 + 4 + 512)))));
  });
});
