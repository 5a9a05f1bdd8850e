// Planned execution (src/graphql/plan/) promises an answer byte for byte graphql-js's, for any
// document, variables and caller. Here apps over one seeded database, the planner on and off, with
// the response cache and without, answer the same requests and must agree on status, content type,
// ETag and body: a couple of hundred documents from a seeded generator (plan-documents.ts) and a
// fixed list of edges, for an enterprise caller and a free one (no `trades`,
// src/domain/entitlements.ts). Statement counts witness that the planner answered at all;
// planDocument's reasons, what it refuses.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { planDocument } from '../../src/graphql/plan/compile.js';
import { schema } from '../../src/schema/index.js';
import { testDatabases, type TestDatabase } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';
import { CURSOR, fixedCases, randomCases, type PlanCase } from './plan-documents.js';

const CALLERS = { enterprise: 'demo-enterprise', free: 'demo-free' } as const;
const CASES: PlanCase[] = [...randomCases(20261125, 180), ...fixedCases()];

interface Answer {
  status: number;
  /** The headers a client acts on; Last-Modified is the time of the answer, not a property of it. */
  contentType: string | null;
  etag: string | null;
  body: string;
}

async function post(app: App, c: PlanCase, key: string): Promise<Answer> {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: c.query, variables: c.variables, operationName: c.operationName }),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    body: await res.text(),
  };
}

type Cursors = Record<keyof typeof CURSOR, string>;

/** `c` with each cursor stand-in replaced by the cursor an earlier answer gave. */
function withCursors(c: PlanCase, cursors: Cursors): PlanCase {
  const swap = (text: string) =>
    Object.entries(CURSOR).reduce((t, [k, token]) => t.split(token).join(cursors[k as keyof Cursors]), text);
  return {
    ...c,
    query: swap(c.query),
    ...(c.variables ? { variables: JSON.parse(swap(JSON.stringify(c.variables))) as Record<string, unknown> } : {}),
  };
}

/** The `endCursor`s of a securities page and of one security's ratings, news and trades, as graphql-js answers them. */
async function cursorsOf(app: App): Promise<Cursors> {
  const end = 'pageInfo { endCursor }';
  const query = `{ securities(search: "N", first: 2) { ${end} nodes { ratings(first: 2) { ${end} } news(first: 1) { ${end} } trades(first: 3) { ${end} } } } }`;
  const answer = await post(app, { name: 'cursors', query }, CALLERS.enterprise);
  const page = (JSON.parse(answer.body) as { data: { securities: any } }).data.securities;
  const first = page.nodes[0];
  const cursors = {
    security: page.pageInfo.endCursor,
    rating: first.ratings.pageInfo.endCursor,
    news: first.news.pageInfo.endCursor,
    trade: first.trades.pageInfo.endCursor,
  };
  for (const [k, v] of Object.entries(cursors))
    if (typeof v !== 'string') throw new Error(`no ${k} cursor in ${answer.body}`);
  return cursors as Cursors;
}

/** The planner on and off, otherwise alike. */
interface Pair {
  planned: App;
  resolved: App;
}

interface Apps {
  h: GraphQLHarness;
  /**
   * Per caller, a pair without the response cache, where the planner answers every document it
   * plans, and one as deployed, with the cache, which hands the planner documents of its own
   * (src/graphql/cache.ts). Apps of their own per caller: each document is then every app's first
   * run of it.
   */
  pairs: Record<keyof typeof CALLERS, { uncached: Pair; cached: Pair }>;
  /** Without the response cache, so that a repeated request runs again (statement counts). */
  plannedUncached: App;
  resolvedUncached: App;
  cursors: Cursors;
}

async function appsOver(tdb: TestDatabase): Promise<Apps> {
  const h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
  const pair = (env: Record<string, string>) => ({
    planned: h.appWith(env),
    resolved: h.appWith({ ...env, GRAPHQL_PLANNED: 'false' }),
  });
  const pairs = () => ({ uncached: pair({ RESPONSE_CACHE_TTL_SECONDS: '0' }), cached: pair({}) });
  return {
    h,
    pairs: { enterprise: pairs(), free: pairs() },
    plannedUncached: h.appWith({ RESPONSE_CACHE_TTL_SECONDS: '0' }),
    resolvedUncached: h.appWith({ RESPONSE_CACHE_TTL_SECONDS: '0', GRAPHQL_PLANNED: 'false' }),
    cursors: await cursorsOf(h.appWith({ GRAPHQL_PLANNED: 'false' })),
  };
}

const postgresql = () => testDatabases()[0]!;

describe('planned execution answers as graphql-js does', () => {
  let apps: Apps;
  beforeAll(async () => {
    apps = await appsOver(postgresql());
  });
  afterAll(async () => {
    await apps?.h.close();
    await postgresql().cleanup();
  });

  describe.each(Object.keys(CALLERS) as (keyof typeof CALLERS)[])('as the %s caller', (tier) => {
    it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const asked = withCursors(c, apps.cursors);
      for (const [config, pair] of Object.entries(apps.pairs[tier])) {
        const resolved = await post(pair.resolved, asked, CALLERS[tier]);
        const planned = await post(pair.planned, asked, CALLERS[tier]);
        const shown = `${config}: ${asked.query}\nvariables ${JSON.stringify(asked.variables)} operation ${asked.operationName}`;
        expect(planned.body, shown).toBe(resolved.body);
        expect({ ...planned, body: undefined }, shown).toEqual({ ...resolved, body: undefined });
      }
    });
  });

  witnesses(() => apps);
});

const RATINGS_AND_NEWS =
  '{ securities(search: "N", first: 3) { nodes { symbol companyInfo { listDate address { city } } ratings(first: 2) { nodes { firm createdAt } } news(first: 2) { edges { cursor node { type newsId } } } } } }';
const TRADES =
  '{ securities(search: "NV") { pageInfo { endCursor } nodes { financials { marketCap } trades(first: 3, order: ASC) { pageInfo { hasNextPage } nodes { time price sequenceNumber } } } } }';
const FILTERED =
  '{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 4) { nodes { ratings(filter: { exchange: "NYSE" }) { nodes { ratingId } } } } }';
const SECURITIES_ONLY = '{ securities(search: "NV") { nodes { symbol name tickerMeta { active lastUpdatedUtc } } } }';

/** The statements a request costs once it has run before (`countWarmStatements` in helpers.ts), and its answer then. */
async function warm(
  apps: Apps,
  app: App,
  query: string,
  key: string = CALLERS.enterprise,
): Promise<{ statements: number; body: string }> {
  let body = '';
  const statements = await apps.h.countWarmStatements(
    async () => (body = (await post(app, { name: query, query }, key)).body),
  );
  return { statements, body };
}

function witnesses(of: () => Apps): void {
  it('the planner answers a planned document in one statement, where resolvers take two or more', async () => {
    const apps = of();
    for (const query of [RATINGS_AND_NEWS, TRADES, FILTERED]) {
      const planned = await warm(apps, apps.plannedUncached, query);
      const resolved = await warm(apps, apps.resolvedUncached, query);
      expect(planned.statements, query).toBe(1);
      expect(resolved.statements, query).toBeGreaterThanOrEqual(2);
      // the second run: the planner from its remembered plan
      expect(planned.body, query).toBe(resolved.body);
    }
  });

  it('reads the press releases a news item lists as graphql-js does: in order, repeats kept, anything but a known id skipped', async () => {
    const apps = of();
    const ITEM =
      '{ security(symbol: "NVLX") { news(first: 1) { nodes { newsItemId associatedPressReleaseIds associatedPressReleases { headline } } } } }';
    const before = JSON.parse((await warm(apps, apps.resolvedUncached, ITEM)).body).data.security.news.nodes[0];
    const [a, b] = await apps.h.db.prisma.pressRelease.findMany({ take: 2, orderBy: { id: 'asc' } });
    const lists = [
      `[${b!.id}, ${a!.id}, ${b!.id}, 2000000000, "${a!.id}", ${a!.id}.5, ${b!.id}.0000000000000001, null, [${a!.id}], true, -0]`,
      '{"ids": [1]}',
      '"x"',
      `[1e400, ${a!.id}]`, // past a double: the planned statement fails, graphql-js answers
    ];
    try {
      for (const list of lists) {
        await apps.h.db.prisma.$executeRawUnsafe(
          `UPDATE "NewsItem" SET "associatedPressReleases" = '${list}'::jsonb WHERE "id" = ${Number(before.newsItemId)}`,
        );
        const planned = await warm(apps, apps.plannedUncached, ITEM);
        const resolved = await warm(apps, apps.resolvedUncached, ITEM);
        expect(planned.body, list).toBe(resolved.body);
        if (!list.includes('1e400')) expect(planned.statements, list).toBe(1);
      }
      expect(
        JSON.parse((await warm(apps, apps.plannedUncached, ITEM)).body).data.security.news.nodes[0]
          .associatedPressReleases,
      ).toHaveLength(1);
    } finally {
      await apps.h.db.prisma.$executeRawUnsafe(
        `UPDATE "NewsItem" SET "associatedPressReleases" = '${JSON.stringify(before.associatedPressReleaseIds)}'::jsonb WHERE "id" = ${Number(before.newsItemId)}`,
      );
    }
    const first = JSON.parse((await warm(apps, apps.plannedUncached, ITEM)).body);
    expect(first.data.security.news.nodes[0].associatedPressReleases).toEqual(before.associatedPressReleases);
  });

  it('a document the planner refuses, or a caller it leaves to graphql-js, costs the same both ways', async () => {
    const apps = of();
    const refused =
      '{ security(symbol: "NVLX") { symbol news { nodes { securities { ticker } } } } securities(search: "N") { nodes { symbol } } }';
    expect(await warm(apps, apps.plannedUncached, refused)).toEqual(await warm(apps, apps.resolvedUncached, refused));
    // without `trades`, graphql-js answers (and says why)
    expect(await warm(apps, apps.plannedUncached, TRADES, CALLERS.free)).toEqual(
      await warm(apps, apps.resolvedUncached, TRADES, CALLERS.free),
    );
  });

  it('with the response cache, an answer it may keep is kept as graphql-js’s is; one it never keeps is still planned', async () => {
    const apps = of();
    const { planned, resolved } = apps.pairs.enterprise.cached;
    // asked again, a kept answer costs no statement
    expect((await warm(apps, resolved, SECURITIES_ONLY)).statements).toBe(0);
    expect((await warm(apps, planned, SECURITIES_ONLY)).statements).toBe(0);
    // ratings and news are never kept (src/graphql/cache.ts): the cache leaves the document alone
    expect((await warm(apps, planned, RATINGS_AND_NEWS)).statements).toBe(1);
  });
}

describe('planDocument', () => {
  const plan = (query: string, operationName?: string) => planDocument(schema, parse(query), operationName);

  it('plans a document made of fields it knows: its roots, in order, and the entitlements it needs', () => {
    const template = plan(`${RATINGS_AND_NEWS.slice(0, -1)} __typename }`);
    if (typeof template === 'string') throw new Error(`refused: ${template}`);
    expect(template.roots.map((r) => [r.kind, r.key])).toEqual([
      ['connection', 'securities'],
      ['typename', '__typename'],
    ]);
    expect([...template.resources].sort()).toEqual(['news', 'ratings', 'securities']);
    const trades = plan(TRADES);
    expect(typeof trades !== 'string' && [...trades.resources].sort()).toEqual(['securities', 'trades']);
    // a company page: one security, its logo's rendition, latest quote and balance sheet
    const company = plan(
      '{ security(symbol: "NVLX") { logo { png { url } } latestQuote { time } latestBalanceSheet { totalAssets } } }',
    );
    if (typeof company === 'string') throw new Error(`refused: ${company}`);
    expect(company.roots.map((r) => r.kind)).toEqual(['one']);
    expect([...company.resources].sort()).toEqual(['balanceSheets', 'logos', 'quotes', 'securities']);
  });

  it('refuses, with a reason, every kind of document it does not know', () => {
    const nodes = (inner: string) => `{ securities(search: "N") { nodes { ${inner} } } }`;
    expect(plan('mutation { revokeApiKey(id: "x") }')).toBe('not a query');
    expect(plan('subscription { tradeAdded(symbol: "NVLX") { price } }')).toBe('not a query');
    expect(plan('query A { __typename } query B { __typename }', 'C')).toBe('not a query');
    expect(plan('query Q @live { __typename }')).toBe('directives');
    expect(plan(nodes('symbol @include(if: true)'))).toBe('directives');
    expect(plan(nodes('... on Node { id }'))).toBe('a fragment on another type');
    expect(plan(`${nodes('...F')} fragment F on Rating { firm }`)).toBe('a fragment on another type');
    expect(plan(nodes('...Missing'))).toBe('unknown fragment');
    expect(plan('{ ratings { nodes { firm } } }')).toBe('root field ratings');
    expect(plan('{ me { userId } }')).toBe('root field me');
    expect(plan('{ securities(search: "N") { totalCount } }')).toBe('SecurityConnection.totalCount');
    expect(plan(nodes('id'))).toBe('Security.id');
    expect(plan(nodes('latestTrade { conditions }'))).toBe('Trade.conditions');
    expect(plan(nodes('ratings { nodes { security { symbol } } }'))).toBe('Rating.security');
    expect(plan(nodes('news { nodes { securities { ticker } } }'))).toBe('NewsItem.securities');
    expect(plan(nodes('trades { nodes { conditions } }'))).toBe('Trade.conditions');
  });
});
