import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult, expectBadUserInput } from './helpers.js';
import { testDatabases } from '../helpers.js';

const FIELDS = `
  id newsItemId newsId headline catalyst catalystCreated associatedPressReleaseIds associatedRatingIds associatedTranscripts
  logoExists logoThumbnailUrl onAllTickers onEntities shareClassFigi ticker type createdAt updatedAt
  securities { figi name mic exchCode ticker compositeFigi securityType marketSector shareClassFigi security { identifiers { figi } } }
`;
const NEWEST_FIRST = [
  { createdAt: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.NewsItemOrderByWithRelationInput[];
const WITH_SECURITIES = { securities: { orderBy: { position: 'asc' } } } as const satisfies Prisma.NewsItemInclude;
type StoredNews = Prisma.NewsItemGetPayload<{ include: typeof WITH_SECURITIES }>;

interface Node {
  newsItemId: number;
  ticker: string;
  type: string;
}

/** A stored news item in the shape the API answers with. */
function answer(n: StoredNews) {
  return {
    id: expect.any(String),
    newsItemId: n.id,
    newsId: n.newsId,
    headline: n.headline,
    catalyst: n.catalyst,
    catalystCreated: n.catalystCreated,
    associatedPressReleaseIds: n.associatedPressReleases,
    associatedRatingIds: n.associatedRatings,
    associatedTranscripts: n.associatedTranscripts,
    logoExists: n.logoExists,
    logoThumbnailUrl: n.logoThumbnailUrl,
    onAllTickers: n.onAllTickers,
    onEntities: n.onEntities,
    shareClassFigi: n.shareClassFigi,
    ticker: n.ticker,
    type: n.type.toUpperCase(),
    createdAt: n.createdAt.toISOString(),
    updatedAt: n.updatedAt.toISOString(),
    securities: n.securities.map((s) => ({
      figi: s.figi,
      name: s.name,
      mic: s.mic,
      exchCode: s.exchcode,
      ticker: s.ticker,
      compositeFigi: s.compositefigi,
      securityType: s.securitytype,
      marketSector: s.marketsector,
      shareClassFigi: s.shareclassfigi,
      security: { identifiers: { figi: s.figi } },
    })),
  };
}

describe.each(testDatabases())('GraphQL news on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The ticker with the most news items, and its items newest first. */
  async function busiest() {
    const counts = await h.db.prisma.newsItem.groupBy({
      by: ['ticker'],
      _count: { _all: true },
      orderBy: [{ _count: { ticker: 'desc' } }, { ticker: 'asc' }],
      take: 1,
    });
    const symbol = counts[0]!.ticker;
    return {
      symbol,
      items: await h.db.prisma.newsItem.findMany({
        where: { ticker: symbol },
        orderBy: NEWEST_FIRST,
        include: WITH_SECURITIES,
      }),
    };
  }

  async function newsQuery(args: { s: string; type?: string; figi?: string; id?: number; n?: number }) {
    const res = await h.gql(
      `query($s: String!, $type: NewsType, $figi: String, $id: Int, $n: Int) {
        news(symbol: $s, type: $type, shareClassFigi: $figi, id: $id, first: $n) { totalCount nodes { ${FIELDS} } } }`,
      args,
    );
    expect(res.errors).toBeUndefined();
    return res.data.news as { totalCount: number; nodes: Node[] };
  }

  it("lists a symbol's newest items first with every field as stored, and counts them", async () => {
    const { symbol, items } = await busiest();
    expect(items.length).toBeGreaterThan(3);
    const got = await newsQuery({ s: symbol.toLowerCase(), n: 3 });
    expect(got.totalCount).toBe(items.length);
    expect(got.nodes).toEqual(items.slice(0, 3).map(answer));
  });

  it('filters by type, share-class FIGI and id', async () => {
    const { symbol, items } = await busiest();
    for (const type of ['gainers', 'losers'] as const) {
      const got = await newsQuery({ s: symbol, type: type.toUpperCase() });
      expect(got.nodes.map((n) => n.newsItemId)).toEqual(items.filter((i) => i.type === type).map((i) => i.id));
      expect(got.totalCount).toBe(got.nodes.length);
    }
    const byFigi = await newsQuery({ s: symbol, figi: items[0]!.shareClassFigi });
    expect(byFigi.totalCount).toBe(items.length);
    // any case, as the REST share_class_figi takes it
    expect(await newsQuery({ s: symbol, figi: items[0]!.shareClassFigi.toLowerCase() })).toEqual(byFigi);
    expect(await newsQuery({ s: symbol, figi: 'BBG000000000' })).toEqual({ totalCount: 0, nodes: [] });
    expect(await newsQuery({ s: symbol, id: items[1]!.id })).toEqual({ totalCount: 1, nodes: [answer(items[1]!)] });
    // an id of another symbol's item does not match
    const other = await h.db.prisma.newsItem.findFirstOrThrow({ where: { ticker: { not: symbol } } });
    expect(await newsQuery({ s: symbol, id: other.id })).toEqual({ totalCount: 0, nodes: [] });
  });

  it("resolves associations to the symbol's own press releases and ratings, in the order of the ids", async () => {
    const items = await h.db.prisma.newsItem.findMany({ orderBy: { id: 'asc' } });
    const withBoth = items.find(
      (n) => (n.associatedPressReleases as number[]).length > 0 && (n.associatedRatings as number[]).length > 1,
    );
    expect(withBoth).toBeDefined();
    const res = await h.gql(
      `query($s: String!, $id: Int) { news(symbol: $s, id: $id, first: 1) { nodes {
      ticker associatedPressReleaseIds associatedRatingIds
      associatedPressReleases { pressReleaseId headline tickers } associatedRatings { ratingId firm ticker } } } }`,
      { s: withBoth!.ticker, id: withBoth!.id },
    );
    expect(res.errors).toBeUndefined();
    const [node] = res.data.news.nodes;
    const releases = await h.db.prisma.pressRelease.findMany({
      where: { id: { in: node.associatedPressReleaseIds } },
      include: { tickers: { orderBy: { position: 'asc' } } },
    });
    const ratings = await h.db.prisma.rating.findMany({ where: { id: { in: node.associatedRatingIds } } });
    const releaseById = new Map(releases.map((r) => [r.id, r]));
    const ratingById = new Map(ratings.map((r) => [r.id, r]));
    expect(node.associatedPressReleases).toEqual(
      node.associatedPressReleaseIds.map((id: number) => ({
        pressReleaseId: id,
        headline: releaseById.get(id)!.headline,
        tickers: releaseById.get(id)!.tickers.map((t) => t.ticker),
      })),
    );
    expect(node.associatedRatings).toEqual(
      node.associatedRatingIds.map((id: number) => ({
        ratingId: id,
        firm: ratingById.get(id)!.firm,
        ticker: withBoth!.ticker,
      })),
    );
    for (const r of node.associatedPressReleases) expect(r.tickers).toContain(withBoth!.ticker);
  });

  it('keeps the order of associated ids and skips ids without a record', async () => {
    const item = await h.db.prisma.newsItem.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const [a, b] = await h.db.prisma.pressRelease.findMany({
      where: { tickers: { some: { ticker: item.ticker } } },
      orderBy: { id: 'asc' },
      take: 2,
    });
    const [r1, r2] = await h.db.prisma.rating.findMany({
      where: { ticker: item.ticker },
      orderBy: { id: 'asc' },
      take: 2,
    });
    await h.db.prisma.newsItem.update({
      where: { id: item.id },
      data: { associatedPressReleases: [b!.id, 999_999, a!.id], associatedRatings: [r2!.id, 888_888, r1!.id] },
    });
    const res = await h.gql(
      `query($s: String!, $id: Int) { news(symbol: $s, id: $id) { nodes {
      associatedPressReleaseIds associatedPressReleases { pressReleaseId } associatedRatingIds associatedRatings { ratingId } } } }`,
      { s: item.ticker, id: item.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.news.nodes).toEqual([
      {
        associatedPressReleaseIds: [b!.id, 999_999, a!.id],
        associatedPressReleases: [{ pressReleaseId: b!.id }, { pressReleaseId: a!.id }],
        associatedRatingIds: [r2!.id, 888_888, r1!.id],
        associatedRatings: [{ ratingId: r2!.id }, { ratingId: r1!.id }],
      },
    ]);
  });

  it("pages through a symbol's news: `after` continues without overlap and the last page ends", async () => {
    const { symbol, items } = await busiest();
    const seen: number[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(items.length);
      const res: GraphQLResult = await h.gql(
        `query($s: String!, $after: String) { news(symbol: $s, first: 2, after: $after) { nodes { newsItemId } pageInfo { hasNextPage endCursor } } }`,
        {
          s: symbol,
          after,
        },
      );
      expect(res.errors).toBeUndefined();
      const page: { nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string } } = res.data.news;
      seen.push(...page.nodes.map((n) => n.newsItemId));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(items.map((i) => i.id));
  });

  it("a security's news are its symbol's newest, filtered by type, and page with `after`", async () => {
    const { symbol, items } = await busiest();
    const query = `query($s: String, $after: String) { security(symbol: $s) { news(first: 2, after: $after) { totalCount nodes { ${FIELDS} } pageInfo { hasNextPage endCursor } } } }`;
    const first = await h.gql(query, { s: symbol });
    expect(first.errors).toBeUndefined();
    expect(first.data.security.news.totalCount).toBeNull();
    expect(first.data.security.news.nodes).toEqual(items.slice(0, 2).map(answer));
    const second = await h.gql(query, { s: symbol, after: first.data.security.news.pageInfo.endCursor });
    expect(second.data.security.news.nodes).toEqual(items.slice(2, 4).map(answer));

    const typed = await h.gql(
      `query($s: String) { security(symbol: $s) { news(type: LOSERS, first: 100) { nodes { newsItemId type } } } }`,
      { s: symbol },
    );
    expect(typed.errors).toBeUndefined();
    expect(typed.data.security.news.nodes).toEqual(
      items.filter((i) => i.type === 'losers').map((i) => ({ newsItemId: i.id, type: 'LOSERS' })),
    );
  });

  it('node(id) answers the same news item', async () => {
    const { symbol, items } = await busiest();
    const list = await h.gql(`query($s: String!) { news(symbol: $s, first: 1) { nodes { id } } }`, { s: symbol });
    const { id } = list.data.news.nodes[0];
    const res = await h.gql(`query($id: ID!) { node(id: $id) { __typename ... on NewsItem { ${FIELDS} } } }`, { id });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual({ __typename: 'NewsItem', ...answer(items[0]!), id });
  });

  it.each([
    ['symbol: "AB C"', /"symbol".*got "AB C"/],
    ['symbol: "AAPL,MSFT"', /"symbol".*got "AAPL,MSFT"/],
    ['symbol: "ABC", first: 0', /"first" must be an integer from 1 to 100; got 0/],
    ['symbol: "ABC", first: 101', /"first" must be an integer from 1 to 100; got 101/],
    ['symbol: "ABC", after: "Zm9yZ2Vk"', /after: "Zm9yZ2Vk" is not a cursor of this list/],
  ])('rejects %s with BAD_USER_INPUT naming the argument', async (args, message) => {
    const res = await h.gql(`{ news(${args}) { nodes { headline } } }`);
    expect(res.data?.news ?? null).toBeNull();
    expectBadUserInput(res, message);
  });

  it('an unknown symbol is an empty list, not an error', async () => {
    expect(await newsQuery({ s: 'NOSUCH' })).toEqual({ totalCount: 0, nodes: [] });
  });

  it('costs as many SQL statements for 20 securities with ratings, news and press releases as for 2: one per level on PostgreSQL', async () => {
    const query = `query($n: Int!) { securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $n) { nodes {
      symbol
      ratings(first: 5) { nodes { firm ticker } }
      news(first: 5) { nodes { ticker associatedPressReleases { headline } associatedRatings { firm } securities { figi } } }
      pressReleases(first: 3) { nodes { headline tickers } }
    } } }`;
    const counts: number[] = [];
    for (const n of [2, 20]) {
      let res: GraphQLResult | undefined;
      counts.push(await h.countWarmStatements(async () => (res = await h.gql(query, { n }))));
      expect(res!.errors).toBeUndefined();
      const nodes = res!.data.securities.nodes as {
        symbol: string;
        ratings: { nodes: Node[] };
        news: { nodes: { ticker: string; associatedPressReleases: unknown[] }[] };
        pressReleases: { nodes: { tickers: string[] }[] };
      }[];
      expect(nodes).toHaveLength(n);
      for (const s of nodes) {
        expect(s.ratings.nodes.length).toBeGreaterThan(0);
        expect(s.ratings.nodes.every((r) => r.ticker === s.symbol)).toBe(true);
        expect(s.news.nodes.every((i) => i.ticker === s.symbol)).toBe(true);
        expect(s.pressReleases.nodes.every((p) => p.tickers.includes(s.symbol))).toBe(true);
      }
      expect(nodes.some((s) => s.news.nodes.some((i) => i.associatedPressReleases.length > 0))).toBe(true);
    }
    expect(counts[1]).toBe(counts[0]);
    // the securities; their ratings, news and press-release ids; the releases, their tickers, the
    // news items' releases, ratings and securities (Db.forRequest)
    expect(counts[0]).toBe(3);
  });
});
