// The graph as an Apollo Federation 2 subgraph (GRAPHQL_SUBGRAPH=true, docs/federation.md): its SDL
// is committed and current; `_entities` resolves a Security by either key, batched, entitled, and
// bounded before it runs; and the subgraph composes (@theguild/federation-composition) with a second,
// tiny subgraph that extends Security, and answers through a real federation gateway (Hive Gateway)
// on 127.0.0.1 that passes the caller's X-API-Key on.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { buildASTSchema, lexicographicSortSchema, parse, printSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import { MAX_REPRESENTATIONS } from '../../src/graphql/federation.js';
import { printedSubgraph } from '../../src/schema/index.js';
import { testDatabases } from '../helpers.js';
import { COSTED, graphqlHarness, type GraphQLHarness, type GraphQLResult } from './helpers.js';
import { listening } from './subscription-helpers.js';

describe('the subgraph SDL', () => {
  it('is the public graph with the entity and its two keys', async () => {
    const printed = printedSubgraph();
    expect(printed).toContain('@key(fields: "identifiers { figi }")');
    expect(printed).toContain('@key(fields: "symbol exchangeInfo { micCode }")');
    const sorted = (sdl: string) =>
      printSchema(lexicographicSortSchema(buildASTSchema(parse(sdl), { assumeValidSDL: true })));
    // @apollo/subgraph's printer leaves out @specifiedBy (on JSON), and a subgraph declares no
    // @defer or @stream (a federation router plans @defer itself): the other differences
    const publicSdl = fs
      .readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8')
      .replace(/ @specifiedBy\(url: "[^"]*"\)/g, '')
      .replace(/("""[^"]*"""\s*)?directive @(defer|stream)\([^)]*\) on [A-Z_ |]+\n/g, '');
    expect(sorted(printed)).toBe(sorted(publicSdl));
  });
});

const ENTITIES = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Security { symbol name identifiers { figi } exchangeInfo { micCode } } } }`;
const byFigi = (figi: unknown) => ({ __typename: 'Security', identifiers: { figi } });
const byListing = (symbol: unknown, micCode: unknown) => ({
  __typename: 'Security',
  symbol,
  exchangeInfo: { micCode },
});

describe.each(testDatabases())('_entities on $name', (tdb) => {
  let h: GraphQLHarness;
  let nvlx: { symbol: string; identifiers: { figi: string }; exchangeInfo: { micCode: string } };
  const entities = (representations: unknown, headers?: Record<string, string>) =>
    h.gql(ENTITIES, { r: representations }, headers);

  beforeAll(async () => {
    // no response cache: statements are counted on repeated requests
    h = await graphqlHarness(tdb, { GRAPHQL_SUBGRAPH: 'true', RESPONSE_CACHE_TTL_SECONDS: '0' });
    nvlx = (await h.gql('{ security(symbol: "NVLX") { symbol identifiers { figi } exchangeInfo { micCode } } }')).data
      .security;
    // a second listing of NVLX, on another exchange under another FIGI: the listing key tells them apart
    const row = await h.db.prisma.security.findFirstOrThrow({ where: { symbol: 'NVLX' } });
    await h.db.prisma.security.create({
      data: {
        ...row,
        id: 'BBG0FEDTEST01_XLON',
        figi: 'BBG0FEDTEST01',
        micCode: 'XLON',
        isinHistory: row.isinHistory ?? undefined,
      } as never,
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('resolves a Security by its FIGI and by its listing, in the order asked, null for none', async () => {
    const r = await entities([
      byListing('NVLX', 'XLON'),
      byFigi(nvlx.identifiers.figi),
      byFigi('BBG000NOSUCH0'),
      byListing('NVLX', nvlx.exchangeInfo.micCode),
      byFigi(nvlx.identifiers.figi.toLowerCase()),
    ]);
    expect(r.errors).toBeUndefined();
    expect(
      r.data._entities.map((s: any) => s && `${s.symbol} ${s.identifiers.figi} ${s.exchangeInfo.micCode}`),
    ).toEqual([
      'NVLX BBG0FEDTEST01 XLON',
      `NVLX ${nvlx.identifiers.figi} ${nvlx.exchangeInfo.micCode}`,
      null,
      `NVLX ${nvlx.identifiers.figi} ${nvlx.exchangeInfo.micCode}`,
      `NVLX ${nvlx.identifiers.figi} ${nvlx.exchangeInfo.micCode}`,
    ]);
  });

  it('reads the same statements for 2 representations of each key as for 50', async () => {
    const figis = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        byFigi(i % 2 ? nvlx.identifiers.figi : `BBG0NONE${String(i).padStart(5, '0')}`),
      );
    const listings = (n: number) => Array.from({ length: n }, (_, i) => byListing(i % 2 ? 'NVLX' : `ZZ${i}`, 'XLON'));
    const few = await h.countWarmStatements(() => entities([...figis(2), ...listings(2)]));
    const many = await h.countWarmStatements(() => entities([...figis(50), ...listings(50)]));
    expect(few).toBeGreaterThanOrEqual(1);
    expect(few).toBeLessThanOrEqual(2);
    expect(many).toBe(few);
  });

  it(`refuses more than ${MAX_REPRESENTATIONS} representations before reading anything`, async () => {
    let r: GraphQLResult | undefined;
    const statements = await h.countStatements(
      async () =>
        void (r = await entities(Array.from({ length: MAX_REPRESENTATIONS + 1 }, () => byFigi(nvlx.identifiers.figi)))),
    );
    expect(r!.errors).toEqual([
      expect.objectContaining({
        message: `argument "representations": at most ${MAX_REPRESENTATIONS}; got ${MAX_REPRESENTATIONS + 1}`,
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ]);
    expect(statements).toBe(0);
  });

  it('counts each representation in the cost, so a costly selection for many is refused before it runs', async () => {
    const doc = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Security { trades(first: 1000) { nodes { price size conditions exchange sipTimestamp } } } } }`;
    const one = await h.gql(doc, { r: [byFigi(nvlx.identifiers.figi)] });
    expect(one.errors).toBeUndefined();
    const many = await h.gql(doc, {
      r: Array.from({ length: MAX_REPRESENTATIONS }, () => byFigi(nvlx.identifiers.figi)),
    });
    expect(many.status).toBe(400);
    expect(many.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('answers each malformed representation with its own BAD_USER_INPUT naming it; the others still resolve', async () => {
    const bad = [
      1,
      'x',
      [],
      {},
      { __typename: 'Nope' },
      { __typename: 'Trade', id: 1 },
      { __typename: 'Security' },
      byFigi(5),
      byFigi('B'.repeat(33)),
      byListing('NOT A SYMBOL', 'XNAS'),
      byListing('NVLX', 7),
      { __typename: 'Security', identifiers: null },
    ];
    const r = await entities([byFigi(nvlx.identifiers.figi), ...bad]);
    expect(r.data._entities[0].symbol).toBe('NVLX');
    expect(r.data._entities.slice(1)).toEqual(bad.map(() => null));
    expect(r.errors).toHaveLength(bad.length);
    for (const [i, e] of (r.errors ?? []).entries()) {
      expect(e.extensions?.code, e.message).toBe('BAD_USER_INPUT');
      expect(e.path).toEqual(['_entities', i + 1]);
      expect(e.message).toMatch(new RegExp(`^argument "representations"\\[${i + 1}\\]: `));
    }
  });

  it('checks the entitlement where each reference resolves: an anonymous caller gets UNAUTHENTICATED for each', async () => {
    const r = await entities([byFigi(nvlx.identifiers.figi), byListing('NVLX', 'XLON')], {});
    expect(r.data._entities).toEqual([null, null]);
    expect(r.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
  });

  it('gives _service { sdl } to an anonymous caller only while introspection is on, as introspection itself', async () => {
    const sdl = '{ _service { sdl } }';
    const open = await h.gql(sdl, undefined, {});
    expect(open.errors).toBeUndefined();
    expect(open.data._service.sdl).toContain('@key(fields: "identifiers { figi }")');
    // production's default: introspection off
    const closed = h.appWith({ GRAPHQL_SUBGRAPH: 'true', GRAPHQL_INTROSPECTION: 'false' });
    const ask = async (headers: Record<string, string>) => {
      const res = await closed.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: sdl }),
      });
      return { ...((await res.json()) as Omit<GraphQLResult, 'status'>), status: res.status };
    };
    const anonymous = await ask({});
    expect(anonymous).toEqual({
      status: 200,
      data: null,
      errors: [
        {
          message:
            '_service { sdl } needs a credential while introspection is off: send the X-API-Key or Authorization header',
          locations: [{ line: 1, column: 3 }],
          path: ['_service'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
      ...COSTED,
    });
    expect(JSON.stringify(anonymous)).not.toContain('type Security');
    expect((await ask({ 'x-api-key': 'not-a-key' })).status).toBe(401);
    const router = await ask({ 'x-api-key': 'demo-free' });
    expect(router.errors).toBeUndefined();
    expect(router.data._service.sdl).toBe(open.data._service.sdl);
    // the same without planned execution (GRAPHQL_PLANNED=false): graphql-js alone
    const unplanned = h.appWith({ GRAPHQL_SUBGRAPH: 'true', GRAPHQL_INTROSPECTION: 'false', GRAPHQL_PLANNED: 'false' });
    const res = await unplanned.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: sdl }),
    });
    expect(((await res.json()) as GraphQLResult).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('leaves the public graph without _entities or _service when GRAPHQL_SUBGRAPH is off', async () => {
    const app = h.appWith({ GRAPHQL_SUBGRAPH: 'false' });
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro' },
      body: JSON.stringify({ query: '{ _service { sdl } }' }),
    });
    const body = (await res.json()) as GraphQLResult;
    expect(body.errors?.[0]?.message).toMatch(/Cannot query field "_service"/);
  });
});

/** Subgraphs another team would own: one names securities by FIGI (watchlists), one by listing (trading venues). */
const WATCHLISTS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
  type Query { watchlist(name: String!): [Security!]! }
  type Security @key(fields: "identifiers { figi }") { identifiers: SecurityIdentifiers! watchers: Int! }
  type SecurityIdentifiers @shareable { figi: String! }
`;
const VENUES_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
  type Query { venueListings(micCode: String!): [Security!]! }
  type Security @key(fields: "symbol exchangeInfo { micCode }") { symbol: String! exchangeInfo: ExchangeInfo! tradingHours: String! }
  type ExchangeInfo @shareable { micCode: String! }
`;

/** A subgraph of `sdl` on 127.0.0.1: its root field answers the references `root` gives; each reference gains `extra(ref)`. */
async function tinySubgraph(sdl: string, root: (args: any) => object[], extra: (ref: any) => object) {
  const rootField = /type Query \{ (\w+)/.exec(sdl)![1]!;
  const schema = buildSubgraphSchema({
    typeDefs: parse(sdl),
    resolvers: {
      Query: { [rootField]: (_: unknown, args: unknown) => root(args).map((ref) => ({ ...ref, ...extra(ref) })) },
      Security: { __resolveReference: (ref: any) => ({ ...ref, ...extra(ref) }) },
    } as never,
  });
  const server = createServer(createYoga({ schema, logging: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
}

describe('a supergraph: this subgraph, a watchlists and a venues subgraph, behind Hive Gateway', () => {
  const tdb = testDatabases()[0]!;
  let h: GraphQLHarness;
  let ours: Awaited<ReturnType<typeof listening>>;
  const theirs: Server[] = [];
  let gateway: ReturnType<typeof createGatewayRuntime>;
  let listings: { symbol: string; figi: string; micCode: string }[];
  const watchlists: Record<string, string[]> = {};
  /** The representations each subgraph's `_entities` received. */
  const received: { watchlists: unknown[]; venues: unknown[] } = { watchlists: [], venues: [] };

  const ask = async (
    query: string,
    headers: Record<string, string> = { 'x-api-key': 'demo-pro' },
  ): Promise<GraphQLResult> => {
    const res = await gateway.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, ...((await res.json()) as object) };
  };

  beforeAll(async () => {
    // no response cache: statements are counted on repeated requests
    h = await graphqlHarness(tdb, { GRAPHQL_SUBGRAPH: 'true', RESPONSE_CACHE_TTL_SECONDS: '0' });
    ours = await listening(h.app);
    const rows = await h.db.prisma.security.findMany({ orderBy: { id: 'asc' }, take: 40 });
    listings = rows.map((r) => ({ symbol: r.symbol, figi: r.figi, micCode: r.micCode }));
    expect(listings).toHaveLength(40);
    watchlists.two = listings.slice(0, 2).map((l) => l.figi);
    watchlists.forty = listings.map((l) => l.figi);
    const watch = await tinySubgraph(
      WATCHLISTS_SDL,
      ({ name }) => (watchlists[name] ?? []).map((figi) => ({ identifiers: { figi } })),
      (ref) => {
        received.watchlists.push(ref);
        return { watchers: listings.findIndex((l) => l.figi === ref.identifiers.figi) + 1 };
      },
    );
    const venues = await tinySubgraph(
      VENUES_SDL,
      ({ micCode }) =>
        listings
          .filter((l) => l.micCode === micCode)
          .slice(0, 3)
          .map((l) => ({ symbol: l.symbol, exchangeInfo: { micCode } })),
      (ref) => (received.venues.push(ref), { tradingHours: `${ref.exchangeInfo.micCode} 09:30-16:00` }),
    );
    theirs.push(watch.server, venues.server);

    // our SDL as a router's build step reads it: `_service { sdl }` of the running subgraph
    const sdl = (await h.gql('{ _service { sdl } }')).data._service.sdl as string;
    const composed = composeServices([
      { name: 'market', typeDefs: parse(sdl), url: ours.url.replace(/^ws/, 'http') },
      { name: 'watchlists', typeDefs: parse(WATCHLISTS_SDL), url: watch.url },
      { name: 'venues', typeDefs: parse(VENUES_SDL), url: venues.url },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    gateway = createGatewayRuntime({
      supergraph: composed.supergraphSdl!,
      logging: 'error',
      // the caller's credential goes on to every subgraph: each checks it itself
      propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ 'x-api-key': request.headers.get('x-api-key') }) },
    });
  });
  afterAll(async () => {
    await gateway?.dispose();
    await ours?.close();
    for (const server of theirs) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await h?.close();
    await tdb.cleanup();
  });

  it('a root field of ours, extended by both: the watchers by FIGI, the trading hours by listing', async () => {
    const r = await ask('{ security(symbol: "NVLX") { symbol name watchers tradingHours } }');
    expect(r.errors).toBeUndefined();
    const nvlx = listings.find((l) => l.symbol === 'NVLX')!;
    expect(r.data.security).toEqual({
      symbol: 'NVLX',
      name: expect.any(String),
      watchers: expect.any(Number),
      tradingHours: `${nvlx.micCode} 09:30-16:00`,
    });
    expect(received.watchlists.at(-1)).toEqual({ __typename: 'Security', identifiers: { figi: nvlx.figi } });
    expect(received.venues.at(-1)).toEqual({
      __typename: 'Security',
      symbol: 'NVLX',
      exchangeInfo: { micCode: nvlx.micCode },
    });
  });

  it('a root field of theirs, resolved by ours by FIGI: the same statements for 2 securities as for 40', async () => {
    const q = (list: string) =>
      `{ watchlist(name: "${list}") { symbol name identifiers { figi } financials { marketCap } watchers } }`;
    const two = await ask(q('two'));
    expect(two.errors).toBeUndefined();
    expect(two.data.watchlist.map((s: any) => [s.symbol, s.identifiers.figi, s.watchers])).toEqual(
      listings.slice(0, 2).map((l, i) => [l.symbol, l.figi, i + 1]),
    );
    expect(two.data.watchlist.every((s: any) => s.name && s.financials)).toBe(true);
    const few = await h.countWarmStatements(() => ask(q('two')));
    const many = await h.countWarmStatements(() => ask(q('forty')));
    expect(few).toBeGreaterThan(0);
    expect(many).toBe(few);
  });

  it('a root field of theirs, resolved by ours by listing', async () => {
    const micCode = listings[0]!.micCode;
    const r = await ask(
      `{ venueListings(micCode: "${micCode}") { symbol name exchangeInfo { micCode exchangeName } identifiers { figi } tradingHours } }`,
    );
    expect(r.errors).toBeUndefined();
    const expected = listings.filter((l) => l.micCode === micCode).slice(0, 3);
    expect(r.data.venueListings.map((s: any) => [s.symbol, s.identifiers.figi, s.exchangeInfo.micCode])).toEqual(
      expected.map((l) => [l.symbol, l.figi, micCode]),
    );
    expect(r.data.venueListings.every((s: any) => s.name && s.exchangeInfo.exchangeName)).toBe(true);
  });

  it("passes the caller's key on: without one our part is UNAUTHENTICATED; the free tier loses only the fields it may not see", async () => {
    const anonymous = await ask('{ watchlist(name: "two") { symbol name } }', {});
    expect(anonymous.errors?.map((e) => e.extensions?.code)).toContain('UNAUTHENTICATED');
    const free = await ask('{ security(symbol: "NVLX") { name latestQuote { bidPrice } watchers } }', {
      'x-api-key': 'demo-free',
    });
    expect(free.data.security).toEqual({ name: expect.any(String), latestQuote: null, watchers: expect.any(Number) });
    expect(free.errors?.map((e) => [e.extensions?.code, e.path])).toEqual([['FORBIDDEN', ['security', 'latestQuote']]]);
  });
});
