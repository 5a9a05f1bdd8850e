import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_PAGE_QUERY } from '../src/app.js';
import { ROOT } from '../src/config.js';
import { testDatabases } from './helpers.js';
import { graphqlHarness, type GraphQLHarness } from './graphql-helpers.js';

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

describe.each(testDatabases())('company pages on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('5 and 50 securities with logo, latest quote, 5 ratings, 5 news and latest balance sheet cost the same ≤ 10 statements', async () => {
    const counts: number[] = [];
    for (const n of [5, 50]) {
      let result: any;
      counts.push(await h.countStatements(async () => (result = await h.gql(PAGES, { n }))));
      expect(result.errors).toBeUndefined();
      const nodes = result.data.securities.nodes;
      expect(nodes).toHaveLength(n);
      // real data came back for every security, not empty shells
      expect(nodes.every((s: any) => s.logo && s.latestQuote && s.ratings.nodes.length > 0 && s.news.nodes.length > 0 && s.latestBalanceSheet)).toBe(true);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(10);
  });

  it("GraphiQL's default query and every query of the README's GraphQL tour run without errors", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const queries = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(queries.length).toBeGreaterThanOrEqual(3);
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
