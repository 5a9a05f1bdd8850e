// Property-based fuzzing of the whole app through app.fetch (no sockets): the generated REST
// requests and GraphQL documents of fuzz-corpus.ts, sent to an app configured as production is.
// Every answer must be a 2xx or a coded 4xx — never a 5xx, never an uncoded error — and hold no
// internals (a stack frame, a source path, SQL text, a parser's message: helpers.ts INTERNALS,
// issue 27 build item 7); the app must stay healthy. The corpus runs once, here: the attack inputs
// in production mode are production.test.ts's.
//
// FUZZ_SCALE multiplies the counts (`npm run bench -- fuzz` runs it at 10x and more).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import type { App } from '../../src/app.js';
import { GRAPHQL_RUNS, graphqlRequest, REST_RUNS, restRequest } from './fuzz-corpus.js';
import { expectNoInternals, productionApp } from './helpers.js';

// PostgreSQL is stricter about text (NUL bytes, encodings), so it gets its own share
const dbs = testDatabases();
const perDb = (runs: number) => Math.max(100, Math.round(runs / dbs.length));
/** The corpus takes 20-60 s a half on this machine, quiet to loaded: room past the suite's 60 s. */
const CORPUS = { timeout: 240_000 };

describe.each(dbs)('fuzz on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  beforeAll(async () => {
    // budgets out of reach: the fuzzer explores the handlers, and a sixth of its requests come
    // without a valid key from one address (the anonymous budget is tested in auth/rate-limit.test.ts)
    const unlimited = {
      RATE_LIMIT_FREE: '100000000',
      RATE_LIMIT_PRO: '100000000',
      RATE_LIMIT_ENTERPRISE: '100000000',
      RATE_LIMIT_ANONYMOUS: '100000000',
    };
    h = await graphqlHarness(tdb, unlimited);
    ({ app } = productionApp(h, unlimited));
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it(`${perDb(REST_RUNS)} generated REST requests: each a 2xx or a coded 4xx, no internals`, CORPUS, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(restRequest, async ({ url, key }) => {
        const res = await app.fetch(url, { headers: key ? { 'x-api-key': key } : {} });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const text = await res.text();
        expectNoInternals(text, url);
        expect(res.status, `${url} → ${text.slice(0, 300)}`).toBeLessThan(500);
        const body = JSON.parse(text);
        if (res.status >= 400) expect(typeof body.code, `${url} → ${text.slice(0, 300)}`).toBe('string');
        else expect(res.status).toBeGreaterThanOrEqual(200);
      }),
      { numRuns: perDb(REST_RUNS) },
    );
    // the generator must reach the handlers, not only the parameter checks
    const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(ok / perDb(REST_RUNS), JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(0.1);
  });

  it(
    `${perDb(GRAPHQL_RUNS)} generated GraphQL documents and variables: each answered with data or coded errors, no internals`,
    CORPUS,
    async () => {
      let withData = 0;
      await fc.assert(
        fc.asyncProperty(graphqlRequest, async ({ query, variables, key }) => {
          const res = await app.fetch('http://test/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
            body: JSON.stringify({ query, variables }),
          });
          const text = await res.text();
          const shown = `${query.slice(0, 300)} ${JSON.stringify(variables)?.slice(0, 100)} → ${res.status} ${text.slice(0, 300)}`;
          expectNoInternals(text, shown);
          expect(res.status, shown).toBeLessThan(500);
          expect(text, shown).not.toContain('INTERNAL_SERVER_ERROR');
          const body = JSON.parse(text);
          if (body.data && Object.values(body.data).some((v) => v !== null)) withData++;
          for (const e of body.errors ?? []) {
            expect(typeof (e.extensions?.code ?? body.code), shown).toBe('string');
            expect(e.extensions?.code, shown).not.toBe('INTERNAL_SERVER_ERROR');
          }
          if (res.status >= 400 && !body.errors) expect(typeof body.code, shown).toBe('string');
        }),
        { numRuns: perDb(GRAPHQL_RUNS) },
      );
      expect(withData / perDb(GRAPHQL_RUNS)).toBeGreaterThan(0.1);
    },
  );

  // what the fuzzer found first: U+0000 reached PostgreSQL (which refuses it in text) as a 500
  it('refuses NUL characters in REST parameters, GraphQL literals and variables with coded 4xx', async () => {
    const r = await h.app.fetch('http://test/rating/api/v1/ratings?company=A%00B', {
      headers: { 'x-api-key': 'demo-enterprise' },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toBe(
      'parameter company must be text without NUL characters (U+0000); got "A\\u0000B"',
    );
    const lit = await h.gql('{ enhancedFundamentals(symbol: "\\u0000") { totalCount } }');
    expect(lit.errors?.[0]).toMatchObject({
      message: 'argument "symbol": text may not contain NUL characters (U+0000)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const vars = await h.gql('query($s: String!) { ratings(filter: { firm: $s }) { totalCount } }', { s: 'a\u0000' });
    expect(vars.errors?.[0]).toMatchObject({
      message: 'variables: text may not contain NUL characters (U+0000)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  // the second: a time bound past 2262 overflowed the 64-bit nanosecond column (500 on PostgreSQL)
  it('takes time bounds outside the 64-bit nanosecond range as the column limit', async () => {
    const far = await h.gql(
      '{ quotes(symbol: "NVLX", from: "2262-04-11T23:47:16.855Z") { nodes { sequenceNumber } } trades(symbol: "NVLX", to: "1600-01-01T00:00:00Z") { nodes { sequenceNumber } } }',
    );
    expect(far.errors).toBeUndefined();
    expect(far.data).toEqual({ quotes: { nodes: [] }, trades: { nodes: [] } });
    const rest = await h.app.fetch('http://test/stocks/v3/trades/NVLX?timestamp.gte=9999-12-31', {
      headers: { 'x-api-key': 'demo-enterprise' },
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it('is healthy afterwards', async () => {
    expect((await h.app.fetch('http://test/healthz')).status).toBe(200);
    const r = await h.gql('{ logos(first: 1) { totalCount } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.logos.totalCount).toBeGreaterThan(0);
  });
});
