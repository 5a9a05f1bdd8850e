// Our own attack suite, cost: each finding of the hardening review that a request's size could
// cause, reproduced as it was found. The class tests (every list of the schema) are in
// test/graphql/cost.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachWebSocket } from '../../src/graphql/ws.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('the cost limit on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    await h.gql('{ me { userId } }', undefined, { 'x-api-key': 'demo-pro' }); // the key's lookup, before statements are counted
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const refusedBeforeAnySql = async (query: string, headers = { 'x-api-key': 'demo-pro' }) => {
    let r!: Awaited<ReturnType<GraphQLHarness['gql']>>;
    expect(await h.countStatements(async () => (r = await h.gql(query, undefined, headers)))).toBe(0);
    expect(r.status).toBe(400);
    expect(r.data).toBeUndefined();
    expect(r.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.errors?.[0]?.message).toMatch(/^Query cost limit of 200000 exceeded, found \d+/);
  };

  it('refuses the alias bomb of bars under logos.securities before anything runs (finding 1)', async () => {
    const bars = Array.from(
      { length: 15 },
      (_, i) =>
        `b${i}: bars(timespan: MINUTE, from: "2026-11-16T14:00:00Z", to: "2026-11-19T21:00:00Z") { nodes { start open high low close volume vwap trades startTimestamp } }`,
    );
    await refusedBeforeAnySql(`{ logos(first: 100) { nodes { securities { symbol ${bars.join(' ')} } } } }`);
    // one alias on one security is an ordinary request
    const one = await h.gql(
      '{ security(symbol: "NVLX") { bars(timespan: HOUR, from: "2026-11-16T14:00:00Z", to: "2026-11-19T21:00:00Z", first: 10) { nodes { start close } } } }',
    );
    expect(one.errors).toBeUndefined();
    expect(one.data.security.bars.nodes.length).toBeGreaterThan(0);
    expect(one.data.security.bars.nodes.length).toBeLessThanOrEqual(10);
  });

  it('refuses a chain of 40 fragments each spread twice inside a field, priced in linear work, before anything runs', async () => {
    const chain = Array.from({ length: 40 }, (_, i) =>
      i === 39 ? `fragment F${i} on Security { symbol }` : `fragment F${i} on Security { ...F${i + 1} ...F${i + 1} }`,
    ).join(' ');
    await refusedBeforeAnySql(`{ security(symbol: "NVLX") { ...F0 } } ${chain}`);
  });

  it("charges a search's passes over the master, so the aliases of sorted, faceted searches are refused before they run (issue 27, finding 1)", async () => {
    const FACETS = 'facets(fields: [MIC_CODE, SECTOR, ACTIVE, MARKET_CAP]) { field counts { value count } }';
    const sorted = (i: number, by: string, facets = FACETS) =>
      `a${i}: securities(first: 1, orderBy: [{ field: ${by}, direction: DESC }]) { totalCount nodes { symbol } ${facets} }`;
    const fields = ['PE_RATIO', 'ROIC', 'FCF_YIELD'];
    // the attacker's document: 15 aliases, each a sort and four facets (75 passes)
    await refusedBeforeAnySql(`{ ${Array.from({ length: 15 }, (_, i) => sorted(i, fields[i % 3]!)).join(' ')} }`);
    // one of them is an ordinary request
    const one = await h.gql(`{ ${sorted(0, 'PE_RATIO')} }`);
    expect(one.errors).toBeUndefined();
    expect(one.data.a0.facets).toHaveLength(4);
    // a listing by identifier makes no pass: 15 of them are cheap
    const listings = Array.from({ length: 15 }, (_, i) => `l${i}: securities(first: 1) { nodes { symbol } }`).join(' ');
    expect((await h.gql(`{ ${listings} }`)).errors).toBeUndefined();
    // facets are passes of their own, ranked or not
    await refusedBeforeAnySql(
      `{ ${Array.from({ length: 9 }, (_, i) => `f${i}: securities(first: 1) { ${FACETS} }`).join(' ')} }`,
    );
    // a ranking argument given by a variable is charged by the variable's value
    const byVariable = `query($o: [SecurityOrder!]) { ${Array.from({ length: 15 }, (_, i) => `a${i}: securities(first: 1, orderBy: $o) { nodes { symbol } facets(fields: [MIC_CODE, SECTOR]) { field } }`).join(' ')} }`;
    expect((await h.gql(byVariable, { o: null })).errors).toBeUndefined();
    const refused = await h.gql(byVariable, { o: [{ field: 'ROIC' }] });
    expect(refused.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('counts a nested list given without `first` at its default (finding 10)', async () => {
    const sheets =
      'balanceSheets { nodes { cik fiscalYear fiscalQuarter timeframe reportingPeriodEnd totalAssets totalLiabilities totalEquity sumOfCurrentAssets sumOfCurrentLiabilities } }';
    await refusedBeforeAnySql(`{ securities(search: "US", searchType: ISIN, first: 250) { nodes { ${sheets} } } }`);
    const small = await h.gql(`{ securities(search: "US", searchType: ISIN, first: 2) { nodes { ${sheets} } } }`);
    expect(small.errors).toBeUndefined();
  });

  it('refuses an over-cost subscription over SSE before it starts', async () => {
    const app = h.appWith({ GRAPHQL_MAX_COST: '5' });
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': 'demo-pro' },
      body: JSON.stringify({
        query:
          'subscription { tradeAdded(symbol: "NVLX") { price size sipTimestamp sequenceNumber exchange conditions } }',
      }),
    });
    const text = await res.text();
    expect(text).toContain('QUERY_TOO_COMPLEX');
    expect(text).toMatch(/event: complete/);
  });

  it('refuses an over-cost query and subscription over WebSocket before they run', async () => {
    const app = h.appWith({ GRAPHQL_MAX_COST: '5' });
    const server = createServer(app);
    const socket = attachWebSocket(server, app, { isProd: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({
      url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: 'demo-pro' },
      retryAttempts: 0,
    });
    try {
      for (const query of [
        '{ trades(symbol: "NVLX", first: 50) { nodes { price size } } }',
        'subscription { tradeAdded(symbol: "NVLX") { price size sipTimestamp sequenceNumber exchange conditions } }',
      ]) {
        const outcome = await new Promise<unknown>((resolve) => {
          const seen: unknown[] = [];
          client.subscribe(
            { query },
            { next: (r) => void seen.push(r), error: (e) => resolve({ error: e }), complete: () => resolve(seen) },
          );
        });
        expect(JSON.stringify(outcome), query).toContain('QUERY_TOO_COMPLEX');
      }
    } finally {
      await client.dispose();
      await socket.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
