import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { COMPANY_PAGE_QUERY } from '../../src/graphql/yoga.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/domain/env-values.js';
import { OPERATIONS_DIR } from '../../src/graphql/persisted.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function post(
  app: App,
  body: unknown,
  headers: Record<string, string> = { 'x-api-key': 'demo-pro' },
  init: RequestInit = {},
): Promise<Answer> {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof ReadableStream ? body : JSON.stringify(body),
    ...init,
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Refused as a whole: HTTP 400, no data, one error with `code` whose message matches. */
function expectRefused(answer: Answer, code: string, message: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors![0]!.extensions?.code).toBe(code);
  expect(answer.body.errors![0]!.message).toMatch(message);
}

/** 7 relations: securities > ratings > security > news > securities > security > logo (nodes and the leaf are no levels). */
const SEVEN_DEEP = `{ securities(search: "NV", first: 1) { nodes { ratings(first: 1) { nodes { security {
  news(first: 1) { nodes { securities { security { logo { symbol } } } } } } } } } } }`;

describe('the guard configuration', () => {
  const env = { JWT_SECRET: TEST_JWT_SECRET };
  it("defaults to graphql-armor's limits but for the cost, with introspection off in production only", () => {
    const dev = loadConfig(env).graphql;
    expect(dev).toMatchObject({
      maxDepth: 6,
      maxAliases: 15,
      maxTokens: 1000,
      maxDirectives: 50,
      maxCost: 200_000,
      introspection: true,
      maxBodyBytes: 1_048_576,
      persistedOnly: false,
    });
    expect(loadConfig({ ...env, NODE_ENV: 'production' }).graphql.introspection).toBe(false);
    expect(loadConfig({ ...env, NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' }).graphql.introspection).toBe(
      true,
    );
    expect(loadConfig({ ...env, GRAPHQL_MAX_DEPTH: '10', GRAPHQL_PERSISTED_ONLY: '1' }).graphql).toMatchObject({
      maxDepth: 10,
      persistedOnly: true,
    });
  });

  it('refuses a limit that is not a positive integer, naming the variable', () => {
    expect(() => loadConfig({ ...env, GRAPHQL_MAX_DEPTH: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, GRAPHQL_MAX_COST: 'lots' })).toThrow(
      'GRAPHQL_MAX_COST must be a positive integer; got "lots"',
    );
    expect(() => loadConfig({ ...env, GRAPHQL_INTROSPECTION: 'yes' })).toThrow(
      'GRAPHQL_INTROSPECTION must be true or false; got "yes"',
    );
  });
});

describe.each(testDatabases())('the GraphQL guard on $name', (tdb) => {
  let h: GraphQLHarness;
  let prod: App;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    prod = h.appWith({ NODE_ENV: 'production' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("runs GraphiQL's company page and every allow-listed operation under the default limits", async () => {
    // the allow-listed subscriptions are streams: test/graphql/persisted.test.ts starts them
    const operations = fs.readdirSync(OPERATIONS_DIR).map((f) => fs.readFileSync(path.join(OPERATIONS_DIR, f), 'utf8'));
    const documents = [COMPANY_PAGE_QUERY, ...operations.filter((text) => !/^subscription /m.test(text))];
    expect(documents.length).toBeGreaterThan(4);
    for (const query of documents) {
      const r = await post(h.app, { query });
      expect(r.status, query).toBe(200);
      expect(r.body.errors, query).toBeUndefined();
    }
    // the largest pages the API promises: 5000 trades, 1000 balance sheets
    const trades = await post(h.app, {
      query:
        '{ trades(symbol: "NVLX", first: 5000) { pageInfo { hasNextPage endCursor } nodes { sipTimestamp sequenceNumber price size exchange conditions } } }',
    });
    expect(trades.body.errors).toBeUndefined();
    expect(trades.body.data.trades.nodes.length).toBeGreaterThan(100);
  });

  it('refuses a query 7 relations deep with QUERY_TOO_DEEP before any SQL runs; wrappers, leaves and fragments are no levels', async () => {
    let r!: Answer;
    expect(await h.countStatements(async () => (r = await post(h.app, { query: SEVEN_DEEP })))).toBe(0);
    expectRefused(r, 'QUERY_TOO_DEEP', /^Query depth limit of 6 exceeded, found 7: depth counts the relations/);
    // a hostile nesting: a logo's securities' logo's securities ... twenty relations
    const cycle = `{ logos(first: 1) { nodes { ${'securities { logo { '.repeat(10)}symbol${' } }'.repeat(10)} } } }`;
    expectRefused(await post(h.app, { query: cycle }), 'QUERY_TOO_DEEP', /^Query depth limit of 6 exceeded, found 21:/);
    // 6 relations through edges { node } and pageInfo at every connection, and through fragments, pass
    const wrapped = `query { securities(search: "NV", first: 1) { pageInfo { hasNextPage } edges { node { ratings(first: 1) { edges { node { ...R } } } } } } }
      fragment R on Rating { security { ... on Security { news(first: 1) { pageInfo { endCursor } edges { node { securities { security { symbol } } } } } } } }`;
    const ok = await post(h.app, { query: wrapped });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.securities.edges).toHaveLength(1);
    // configurable
    expect((await post(h.appWith({ GRAPHQL_MAX_DEPTH: '7' }), { query: SEVEN_DEEP })).body.errors).toBeUndefined();
  });

  it('refuses a 100-alias query with TOO_MANY_ALIASES; 15 aliases pass', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { email }`).join(' ')} }`;
    expectRefused(
      await post(h.app, { query: aliases(100) }),
      'TOO_MANY_ALIASES',
      /^Aliases limit of 15 exceeded, found 100/,
    );
    const ok = await post(h.app, { query: aliases(15) });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.a14.email).toBe('pro@example.com');
  });

  it('refuses an over-cost query with QUERY_TOO_COMPLEX, page sizes given as variables included', async () => {
    const nested = (first: string, inner: string) =>
      `${first.startsWith('$') ? 'query($a: Int, $b: Int) ' : ''}{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: ${first}) { nodes { trades(first: ${inner}) { nodes { price } } } } }`;
    let r!: Answer;
    expect(await h.countStatements(async () => (r = await post(h.app, { query: nested('250', '5000') })))).toBe(0);
    expectRefused(r, 'QUERY_TOO_COMPLEX', /^Query cost limit of 200000 exceeded, found \d+/);
    // graphql-armor alone counts `first: $a` as 1; the guard counts the page size sent
    expect(
      await h.countStatements(
        async () => (r = await post(h.app, { query: nested('$a', '$b'), variables: { a: 250, b: 5000 } })),
      ),
    ).toBe(0);
    expectRefused(r, 'QUERY_TOO_COMPLEX', /^Query cost limit of 200000 exceeded, found \d+/);
    const small = await post(h.app, { query: nested('$a', '$b'), variables: { a: 2, b: 3 } });
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.securities.nodes).toHaveLength(2);
    // a variable's default counts when the variable is not sent
    const byDefault = `query($a: Int = 250) { securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $a) { nodes { trades(first: 5000) { nodes { price } } } } }`;
    expectRefused(await post(h.app, { query: byDefault }), 'QUERY_TOO_COMPLEX', /exceeded/);
  });

  it('refuses more than 1000 tokens with TOO_MANY_TOKENS, and more than 50 directives with TOO_MANY_DIRECTIVES', async () => {
    expectRefused(
      await post(h.app, { query: `{ security(symbol: "NVLX") { ${'symbol '.repeat(1000)} } }` }),
      'TOO_MANY_TOKENS',
      /^Token limit of 1000 exceeded/,
    );
    const directives = (n: number) =>
      `{ security(symbol: "NVLX") { ${'... @include(if: true) { symbol } '.repeat(n)} } }`;
    expectRefused(
      await post(h.app, { query: directives(51) }),
      'TOO_MANY_DIRECTIVES',
      /^Directives limit of 50 exceeded, found 51/,
    );
    expect((await post(h.app, { query: directives(50) })).body.errors).toBeUndefined();
  });

  it('hides "Did you mean" in production, for fields and for enum values sent as variables', async () => {
    const typo = { query: '{ securty(symbol: "NVLX") { symbol } }' };
    expect((await post(h.app, typo)).body.errors![0]!.message).toMatch(/Did you mean "security"\?/);
    const inProd = await post(prod, typo);
    expect(inProd.body.errors![0]!.message).toBe('Cannot query field "securty" on type "Query".');
    expect(inProd.body.errors![0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const badEnum = {
      query: 'query($t: SecuritySearchType!) { securities(search: "NV", searchType: $t) { totalCount } }',
      variables: { t: 'SYMBL' },
    };
    expect((await post(h.app, badEnum)).body.errors![0]!.message).toMatch(/Did you mean the enum value "SYMBOL"\?/);
    const enumInProd = await post(prod, badEnum);
    expect(enumInProd.body.errors![0]!.message).toMatch(/Value "SYMBL" does not exist in "SecuritySearchType" enum\.$/);
    expect(JSON.stringify(enumInProd.body)).not.toMatch(/Did you mean/);
  });

  it('answers introspection outside production; in production refuses it with INTROSPECTION_DISABLED unless enabled', async () => {
    const schema = { query: '{ __schema { queryType { name } } }' };
    expect((await post(h.app, schema)).body.data.__schema.queryType.name).toBe('Query');
    expectRefused(
      await post(prod, schema),
      'INTROSPECTION_DISABLED',
      /introspection is disabled on this server; the document asks for __schema/,
    );
    expectRefused(
      await post(prod, { query: '{ __type(name: "Security") { name } }' }),
      'INTROSPECTION_DISABLED',
      /__type/,
    );
    expect((await post(prod, { query: '{ __typename }' })).body.data.__typename).toBe('Query');
    const enabled = h.appWith({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' });
    expect((await post(enabled, schema)).body.data.__schema.queryType.name).toBe('Query');
    expectRefused(
      await post(h.appWith({ GRAPHQL_INTROSPECTION: 'false' }), schema),
      'INTROSPECTION_DISABLED',
      /__schema/,
    );
    // GraphiQL needs introspection: without it /graphql serves no GraphiQL page
    const page = async (app: App) =>
      (await app.fetch('http://test/graphql', { headers: { accept: 'text/html' } })).headers.get('content-type');
    expect(await page(h.app)).toMatch(/^text\/html/);
    expect(String(await page(prod))).not.toMatch(/^text\/html/);
  });

  it('refuses a body over GRAPHQL_MAX_BODY_BYTES with 413, with Content-Length or chunked, before reading it all', async () => {
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(1024 * 1024) } });
    for (const headers of [{ 'x-api-key': 'demo-pro' }, {}] as Record<string, string>[]) {
      const r = await post(h.app, big, headers);
      expect(r.status).toBe(413);
      expect(r.body.errors![0]!.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
      expect(r.body.errors![0]!.message).toBe('the body is too large: at most 1048576 bytes');
    }
    // a stream without Content-Length is cut off once past the limit
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await post(h.app, stream, { 'x-api-key': 'demo-pro' }, { duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(chunked.body.errors![0]!.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(sent).toBeLessThan(64);
    // configurable, and a caller entitled to OCR may send a frame-sized body (extractText)
    expect(
      (
        await post(h.appWith({ GRAPHQL_MAX_BODY_BYTES: '40' }), {
          query: '{ security(symbol: "NVLX") { symbol name } }',
        })
      ).status,
    ).toBe(413);
    const enterprise = await post(h.app, big, { 'x-api-key': 'demo-enterprise' });
    expect(enterprise.status).toBe(200);
    expect(enterprise.body.data.__typename).toBe('Query');
  });

  it('refuses a batch (a JSON array of operations) with 400', async () => {
    const r = await post(h.app, [{ query: '{ __typename }' }, { query: '{ __typename }' }]);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.message).toBe('Batching is not supported.');
    expect(r.body.errors![0]!.extensions?.code).toBe('BAD_REQUEST');
  });
});
