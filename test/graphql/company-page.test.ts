import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_PAGE_QUERY } from '../../src/graphql/yoga.js';
import { SAMPLE_DELISTINGS } from '../../src/sample/corporate-actions.js';
import { ROOT } from '../../src/config.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const PAGES = `query Pages($n: Int!) {
  securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $n) {
    nodes {
      symbol
      logo { png { url } }
      latestQuote { bidPrice askPrice }
      ratings(first: 5) { nodes { firm rating } }
      news(first: 5) { nodes { headline } }
      latestBalanceSheet { totalAssets }
    }
  }
}`;

/** The answer of `app` (one of h.appWith's) to a query, as h.gql gives it. */
async function gqlOn(
  app: ReturnType<GraphQLHarness['appWith']>,
  query: string,
  variables?: Record<string, unknown>,
): Promise<any> {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, ...((await res.json()) as object) };
}

describe.each(testDatabases())('company pages on $name', (tdb) => {
  let h: GraphQLHarness;
  // the same database and Db without planned execution (graphql/plan/): resolvers and combined reads
  let resolved: ReturnType<GraphQLHarness['appWith']>;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    resolved = h.appWith({ GRAPHQL_PLANNED: 'false' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('5 and 50 securities with logo, latest quote, 5 ratings, 5 news and latest balance sheet cost the same statements: 1 planned, 2 resolved', async () => {
    const counts: number[] = [];
    const resolvedCounts: number[] = [];
    for (const n of [5, 50]) {
      let result: any;
      counts.push(await h.countWarmStatements(async () => (result = await h.gql(PAGES, { n }))));
      resolvedCounts.push(await h.countWarmStatements(() => gqlOn(resolved, PAGES, { n })));
      expect(result.errors).toBeUndefined();
      const nodes = result.data.securities.nodes;
      expect(nodes).toHaveLength(n);
      // real data came back for every security, not empty shells (a listing that ended has no quote)
      const ended = new Set(SAMPLE_DELISTINGS.map((d) => d.ticker));
      expect(
        nodes.every(
          (s: any) =>
            s.logo &&
            (s.latestQuote || ended.has(s.symbol)) &&
            s.ratings.nodes.length > 0 &&
            s.news.nodes.length > 0 &&
            s.latestBalanceSheet,
        ),
      ).toBe(true);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(resolvedCounts[1]).toBe(resolvedCounts[0]);
    // planned, the whole page as one tree of rows (db/tree.ts); resolved, the list, then every
    // child of every security in one statement (Db.forRequest)
    expect([counts[0], resolvedCounts[0]]).toEqual([1, 2]);
  });

  it('the company page costs 1 statement planned, 2 resolved (the security, then all it links to)', async () => {
    let result: any;
    const count = await h.countWarmStatements(async () => (result = await h.gql(COMPANY_PAGE_QUERY)));
    expect(result.errors).toBeUndefined();
    const s = result.data.security;
    expect(
      s.logo &&
        s.latestQuote &&
        s.latestBalanceSheet &&
        s.ratings.nodes.length &&
        s.news.nodes.length &&
        s.trades.nodes.length,
    ).toBeTruthy();
    expect(count).toBe(1);
    let other: any;
    expect(await h.countWarmStatements(async () => (other = await gqlOn(resolved, COMPANY_PAGE_QUERY)))).toBe(2);
    expect(JSON.stringify(other)).toBe(JSON.stringify(result));
  });

  // a read of logos that fails as a query does (division by zero), not as a database without its
  // tables (a table gone is 503 DATABASE_UNAVAILABLE: db/unavailable.ts)
  const breakLogos = async () => {
    await h.db.prisma.$executeRawUnsafe('ALTER TABLE "Logo" RENAME TO "LogoAway"');
    await h.db.prisma.$executeRawUnsafe('CREATE VIEW "Logo" AS SELECT * FROM "LogoAway" WHERE 1 / ("id" - "id") = 0');
  };
  const mendLogos = async () => {
    await h.db.prisma.$executeRawUnsafe('DROP VIEW "Logo"');
    await h.db.prisma.$executeRawUnsafe('ALTER TABLE "LogoAway" RENAME TO "Logo"');
  };

  it('resolved: a statement that fails fails the reads sent with it, coded as any database error, and the next page is whole again', async () => {
    expect((await gqlOn(resolved, COMPANY_PAGE_QUERY)).errors).toBeUndefined(); // every statement of the page taught
    await breakLogos();
    let broken: any;
    try {
      broken = await gqlOn(resolved, COMPANY_PAGE_QUERY);
    } finally {
      await mendLogos();
    }
    expect(broken.status).toBe(200);
    expect(broken.data.security.symbol).toBe('NVLX'); // its own statement, before the children's
    expect(broken.data.security.latestQuote).toBeNull(); // sent with the logo's statement
    const failed = broken.errors.map((e: any) => [e.path.at(-1), e.extensions?.code, e.message]);
    expect(failed).toEqual(
      expect.arrayContaining([
        ['logo', 'INTERNAL_SERVER_ERROR', 'Unexpected error.'],
        ['latestQuote', 'INTERNAL_SERVER_ERROR', 'Unexpected error.'],
      ]),
    );
    const again = await gqlOn(resolved, COMPANY_PAGE_QUERY);
    expect(again.errors).toBeUndefined();
    expect(again.data.security.logo.png.url).toBeTruthy();
  });

  it('planned: a tree that fails to read goes to graphql-js, whose resolvers fail alone; the next page is planned again', async () => {
    expect((await h.gql(COMPANY_PAGE_QUERY)).errors).toBeUndefined();
    await breakLogos();
    let broken: any;
    try {
      broken = await h.gql(COMPANY_PAGE_QUERY);
    } finally {
      await mendLogos();
    }
    expect(broken.status).toBe(200);
    expect(broken.data.security.symbol).toBe('NVLX'); // graphql-js's own first statement
    expect(broken.data.security.logo).toBeNull();
    expect(broken.errors.map((e: any) => [e.path.join('.'), e.extensions?.code])).toContainEqual([
      'security.logo',
      'INTERNAL_SERVER_ERROR',
    ]);
    let again: any;
    expect(await h.countWarmStatements(async () => (again = await h.gql(COMPANY_PAGE_QUERY)))).toBe(1);
    expect(again.errors).toBeUndefined();
  });

  it('loads the child lists a page leaves out only when a query reads them: batched, equal to the stored rows', async () => {
    const WITH_CHILDREN = `query Children($n: Int!) {
      securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $n) {
        nodes { symbol logo { securityInfo { figi } } latestBalanceSheet { symbols } news(first: 5) { nodes { newsId securities { figi } } } }
      }
    }`;
    const counts: number[] = [];
    // 30 × 5 news items stay within one batch of 200 keys (a loader's batch size)
    for (const n of [5, 30]) {
      let result: any;
      counts.push(await h.countWarmStatements(async () => (result = await h.gql(WITH_CHILDREN, { n }))));
      expect(result.errors).toBeUndefined();
      for (const s of result.data.securities.nodes) {
        const logo = await h.db.prisma.logo.findUnique({
          where: { symbol: s.symbol },
          include: { securityInfo: { orderBy: { position: 'asc' } } },
        });
        expect(s.logo?.securityInfo.map((i: any) => i.figi) ?? null, s.symbol).toEqual(
          logo ? logo.securityInfo.map((i) => i.figi) : null,
        );
        if (s.latestBalanceSheet) expect(s.latestBalanceSheet.symbols).toContain(s.symbol);
        for (const item of s.news.nodes) {
          const stored = await h.db.prisma.newsItem.findFirst({
            where: { newsId: item.newsId },
            include: { securities: { orderBy: { position: 'asc' } } },
          });
          expect(item.securities.map((x: any) => x.figi)).toEqual(stored!.securities.map((x) => x.figi));
        }
      }
      expect(
        result.data.securities.nodes.some(
          (s: any) => s.logo?.securityInfo.length && s.news.nodes.some((i: any) => i.securities.length),
        ),
      ).toBe(true);
    }
    // one batched statement per loader (search, logo, balance sheet, news, and the three child
    // lists), whatever the number of securities; on PostgreSQL one per level (Db.forRequest)
    expect(counts).toEqual([3, 3]);
  });

  it("GraphiQL's default query and every query of the tours in README.md and docs/graphql.md run without errors", async () => {
    const tours = ['README.md', 'docs/graphql.md'].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
    // queries: a subscription of the tours (a resumed stream) runs in test/graphql/subscriptions-resume.test.ts
    const queries = [...tours.matchAll(/```graphql\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((q) => !/^(\s*#.*\n)*\s*subscription\b/.test(q));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const query of [COMPANY_PAGE_QUERY, ...queries]) {
      const r = await h.gql(query);
      expect(r.errors, query).toBeUndefined();
      expect(JSON.stringify(r.data)).not.toMatch(/^\{"[a-z]+":null\}$/);
    }
    const page = await h.gql(COMPANY_PAGE_QUERY);
    expect(page.data.security.symbol).toBe('NVLX');
    expect(page.data.security.ratings.nodes.length).toBeGreaterThan(0);
  });
});
