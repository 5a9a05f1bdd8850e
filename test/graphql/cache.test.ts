import { randomUUID } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { createApiKey } from '../../src/services/account.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/domain/env-values.js';
import {
  boundedMemoryCache,
  cacheableDocuments,
  cacheTtls,
  MAX_CACHED_ANSWER_BYTES,
  MEMORY_CACHE_BYTES,
} from '../../src/graphql/cache.js';
import { createRedis } from '../../src/runtime/redis.js';
import { MANIFESTS } from '../../src/resources/index.js';
import { schema } from '../../src/schema/index.js';
import { freshUser } from '../auth/helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function post(app: App, query: string, key: string, variables?: Record<string, unknown>): Promise<Answer> {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Reference data only: a security with its classification, logo and latest balance sheet. */
const REFERENCE =
  '{ security(symbol: "NVLX") { symbol name classification { gics } logo { png { url } } latestBalanceSheet { totalAssets } } }';

describe('what the response cache may keep', () => {
  it('keeps logos, securities, fundamentals, balance sheets and exchanges for their TTL; trades, quotes, bars and per-user data never', () => {
    const ttls = cacheTtls(schema, {
      Logo: 3600,
      Security: 60,
      Fundamental: 60,
      EnhancedFundamental: 60,
      BalanceSheet: 0,
      Exchange: 86_400,
      Split: 86_400,
      Dividend: 86_400,
      SymbolPeriod: 86_400,
    });
    expect(ttls).toMatchObject({
      Logo: 3_600_000,
      Security: 60_000,
      Fundamental: 60_000,
      EnhancedFundamental: 60_000,
      BalanceSheet: 0,
      Exchange: 86_400_000,
    });
    for (const never of [
      'Trade',
      'TradeConnection',
      'TradeEdge',
      'Quote',
      'QuoteConnection',
      'QuoteEdge',
      'Bar',
      // the record types of every resource whose manifest does not say `cacheable`
      ...MANIFESTS.filter((r) => !r.cacheable).flatMap((r) => r.entitlements.flatMap((e) => e.types)),
      'Me',
      'ApiKey',
      'ServiceInfo',
      'Query.me',
      'Query.apiKeys',
    ]) {
      expect(ttls[never], never).toBe(0);
    }
    // parts of reference records neither allow nor forbid
    for (const part of ['Query', 'PageInfo', 'SecurityConnection', 'LogoPng', 'SecurityClassification'])
      expect(ttls[part], part).toBeUndefined();
  });

  it('runs a document without the cache when a field of it could only ever give TTL 0 (decided once per text)', () => {
    const ttls = cacheTtls(schema, {
      Logo: 60,
      Security: 60,
      Fundamental: 60,
      EnhancedFundamental: 60,
      BalanceSheet: 60,
      Exchange: 60,
      Split: 60,
      Dividend: 60,
      SymbolPeriod: 60,
    });
    const cacheable = cacheableDocuments(schema, ttls);
    expect(cacheable(REFERENCE)).toBe(true);
    expect(
      cacheable(
        '{ securities(search: "NV", searchType: SYMBOL, first: 5) { nodes { symbol } pageInfo { hasNextPage } } }',
      ),
    ).toBe(true);
    // a never-cached type anywhere, through fragments and inline fragments too
    expect(cacheable('{ security(symbol: "NVLX") { symbol latestQuote { bidPrice } } }')).toBe(false);
    expect(
      cacheable(
        'query { security(symbol: "NVLX") { ...F } } fragment F on Security { ratings(first: 5) { nodes { firm } } }',
      ),
    ).toBe(false);
    expect(
      cacheable('{ security(symbol: "NVLX") { ... on Security { news(first: 1) { nodes { headline } } } } }'),
    ).toBe(false);
    // a field whose coordinate has TTL 0, a mutation
    expect(cacheable('{ me { userId } }')).toBe(false);
    expect(cacheable('mutation { logout }')).toBe(false);
    // no record of a type with a TTL: the answer's TTL is the default, 0
    expect(cacheable('{ __typename }')).toBe(false);
    expect(cacheable('{ security(symbol: "NVLX") { __typename } }')).toBe(true);
    // undecidable here: left to the cache, as before
    expect(cacheable('{ security( }')).toBe(true);
    expect(cacheable(undefined)).toBe(true);
    // with a type's TTL set to 0 its documents are no longer cacheable
    expect(
      cacheableDocuments(
        schema,
        cacheTtls(schema, {
          Logo: 60,
          Security: 60,
          Fundamental: 60,
          EnhancedFundamental: 60,
          BalanceSheet: 0,
          Exchange: 60,
          Split: 60,
          Dividend: 60,
          SymbolPeriod: 60,
        }),
      )(REFERENCE),
    ).toBe(false);
  });

  it('RESPONSE_CACHE_TTL_SECONDS sets every TTL, RESPONSE_CACHE_TTLS one type’s; other types are refused', () => {
    const env = { NODE_ENV: 'test', JWT_SECRET: TEST_JWT_SECRET };
    expect(loadConfig(env).graphql.cacheTtlSeconds).toEqual({
      Logo: 60,
      Security: 60,
      Fundamental: 60,
      EnhancedFundamental: 60,
      BalanceSheet: 60,
      Exchange: 60,
      Split: 60,
      Dividend: 60,
      SymbolPeriod: 60,
    });
    expect(
      loadConfig({ ...env, RESPONSE_CACHE_TTL_SECONDS: '30', RESPONSE_CACHE_TTLS: 'Logo=3600, BalanceSheet=0' }).graphql
        .cacheTtlSeconds,
    ).toEqual({
      Logo: 3600,
      Security: 30,
      Fundamental: 30,
      EnhancedFundamental: 30,
      BalanceSheet: 0,
      Exchange: 30,
      Split: 30,
      Dividend: 30,
      SymbolPeriod: 30,
    });
    expect(() => loadConfig({ ...env, RESPONSE_CACHE_TTLS: 'Trade=60' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, RESPONSE_CACHE_TTLS: 'Trade=60' })).toThrow(
      /RESPONSE_CACHE_TTLS .*Logo, Security.*; got "Trade=60"/,
    );
  });
});

describe.each(testDatabases())('the response cache on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_PRO: '1000000', RATE_LIMIT_FREE: '1000000' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The answer and the SQL statements it cost. */
  async function measured(
    app: App,
    query: string,
    key = 'demo-pro',
    variables?: Record<string, unknown>,
  ): Promise<[Answer, number]> {
    let answer!: Answer;
    const statements = await h.countStatements(async () => (answer = await post(app, query, key, variables)));
    return [answer, statements];
  }

  it('serves a second identical reference query from the cache: no SQL', async () => {
    const [first, cost] = await measured(h.app, REFERENCE);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.security.logo.png.url).toBeTruthy();
    expect(cost).toBeGreaterThan(0);
    const [second, hit] = await measured(h.app, REFERENCE);
    expect(hit).toBe(0);
    expect(second).toEqual(first);
    // other variables are another entry
    const byVariable = 'query($s: String!) { security(symbol: $s) { symbol name } }';
    expect((await measured(h.app, byVariable, 'demo-pro', { s: 'NVLX' }))[1]).toBeGreaterThan(0);
    expect((await measured(h.app, byVariable, 'demo-pro', { s: 'ORBT' }))[1]).toBeGreaterThan(0);
    const [orbt, again] = await measured(h.app, byVariable, 'demo-pro', { s: 'ORBT' });
    expect(again).toBe(0);
    expect(orbt.body.data.security.symbol).toBe('ORBT');
  });

  it('keeps one entry per tier; a FORBIDDEN answer is never kept, so no tier gets another’s', async () => {
    const query = `query Tiers${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol enhancedFundamentals(first: 1) { nodes { symbol } } } }`;
    const [free] = await measured(h.app, query, 'demo-free');
    expect(free.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const [pro, proCost] = await measured(h.app, query, 'demo-pro');
    expect(pro.body.errors).toBeUndefined();
    expect(pro.body.data.security.enhancedFundamentals.nodes).toHaveLength(1);
    expect(proCost).toBeGreaterThan(0); // the free answer was not reused
    expect((await measured(h.app, query, 'demo-pro'))[1]).toBe(0);
    const [freeAgain, freeCost] = await measured(h.app, query, 'demo-free');
    expect(freeAgain.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(freeAgain.body.data.security.enhancedFundamentals).toBeNull();
    expect(freeCost).toBeGreaterThan(0);
    // enterprise has an entry of its own
    expect((await measured(h.app, query, 'demo-enterprise'))[1]).toBeGreaterThan(0);
  });

  it('never keeps trades, quotes, bars or pages that hold them, nor the caller’s own data', async () => {
    const never = [
      '{ trades(symbol: "NVLX", first: 2) { nodes { price } } }',
      '{ quotes(symbol: "NVLX", first: 2) { nodes { bidPrice } } }',
      '{ security(symbol: "NVLX") { symbol trades(first: 1) { totalCount } } }',
      '{ security(symbol: "NVLX") { symbol latestQuote { bidPrice } } }',
      '{ security(symbol: "NVLX") { symbol bars(timespan: DAY, from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z") { nodes { close } } } }',
      '{ security(symbol: "NVLX") { symbol ratings(first: 1) { nodes { firm } } } }',
    ];
    for (const query of never) {
      const [first] = await measured(h.app, query);
      expect(first.body.errors, query).toBeUndefined();
      expect((await measured(h.app, query))[1], query).toBeGreaterThan(0);
    }
    // two callers of one tier: each gets its own `me`, beside cacheable data
    const other = await freshUser(h.db, 'free');
    const { key } = await createApiKey(h.db, other.id, 'cache test', 10);
    const mine = '{ me { email } logos(first: 1) { nodes { symbol } } }';
    expect((await post(h.app, mine, 'demo-free')).body.data.me.email).toBe('free@example.com');
    expect((await post(h.app, mine, key)).body.data.me.email).toBe(other.email);
    expect((await post(h.app, mine, 'demo-free')).body.data.me.email).toBe('free@example.com');
  });

  it('still authenticates and counts the rate limit for an answer it holds', async () => {
    const limited = h.appWith({ RATE_LIMIT_FREE: '3' });
    const query = `query Budget${randomUUID().replaceAll('-', '')} { logos(first: 2) { nodes { symbol } } }`;
    for (let i = 0; i < 3; i++) expect((await post(limited, query, 'demo-free')).status).toBe(200);
    const [over, cost] = await measured(limited, query, 'demo-free');
    expect(over.status).toBe(429);
    expect(over.body.errors![0]!.extensions?.code).toBe('RATE_LIMITED');
    expect(cost).toBe(0);
    const wrong = await post(limited, query, 'not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.body.data).toBeUndefined();
  });

  it('forgets an answer after its TTL; RESPONSE_CACHE_TTL_SECONDS=0 keeps none', async () => {
    // the in-memory cache reads its clock from Date.now() (graphql/cache.ts boundedMemoryCache):
    // the test moves that clock rather than waiting out the TTL
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const short = h.appWith({ RESPONSE_CACHE_TTL_SECONDS: '1' });
      await measured(short, REFERENCE);
      vi.advanceTimersByTime(999);
      expect((await measured(short, REFERENCE))[1]).toBe(0);
      vi.advanceTimersByTime(2);
      expect((await measured(short, REFERENCE))[1]).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
    const off = h.appWith({ RESPONSE_CACHE_TTL_SECONDS: '0' });
    await measured(off, REFERENCE);
    expect((await measured(off, REFERENCE))[1]).toBeGreaterThan(0);
    const noLogos = h.appWith({ RESPONSE_CACHE_TTLS: 'Logo=0' });
    await measured(noLogos, REFERENCE);
    expect((await measured(noLogos, REFERENCE))[1]).toBeGreaterThan(0);
  });

  it('answers WebSocket operations (graphql/ws.ts runs them through the same Yoga) without the cache', async () => {
    const request = new Request('http://test/graphql', { headers: { 'x-api-key': 'demo-pro' } });
    const run = async () => {
      const ctx = await h.app.socket.context(request, {});
      const enveloped = h.app.socket.yoga.getEnveloped({ ctx, request, params: { query: REFERENCE } });
      const document = enveloped.parse(REFERENCE);
      expect(enveloped.validate(enveloped.schema, document)).toEqual([]);
      return (await enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue: await enveloped.contextFactory(),
      })) as ExecutionResult;
    };
    const [first, second] = [await run(), await run()];
    expect(first.errors).toBeUndefined();
    expect((first.data as any).security.symbol).toBe('NVLX');
    expect(second).toEqual(first);
  });

  it('answers without a cache while Redis is unreachable', async () => {
    const away = createRedis('redis://127.0.0.1:1');
    try {
      const app = h.appWith({}, { redis: away });
      const [first] = await measured(app, REFERENCE);
      expect(first.body.data.security.symbol).toBe('NVLX');
      const [second, cost] = await measured(app, REFERENCE);
      expect(second).toEqual(first);
      expect(cost).toBeGreaterThan(0);
    } finally {
      away.disconnect();
    }
  });

  it('with Redis, two instances share the cache: an answer made on one is served by the other', {
    tags: ['redis'],
  }, async () => {
    const [a, b] = [createRedis(process.env.TEST_REDIS_URL!), createRedis(process.env.TEST_REDIS_URL!)];
    try {
      await Promise.all([a, b].map((r) => new Promise((resolve) => r.once('ready', resolve)))); // no offline queue: commands fail until then
      const [one, two] = [h.appWith({}, { redis: a }), h.appWith({}, { redis: b })];
      for (const app of [one, two]) await post(app, '{ me { userId } }', 'demo-pro'); // the key's lookup, before anything is counted
      const query = `query Shared${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol name logo { png { url } } } }`;
      const [first, cost] = await measured(one, query);
      expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
      expect(cost, JSON.stringify(first.body)).toBeGreaterThan(0);
      const [second, hit] = await measured(two, query);
      expect(hit).toBe(0);
      expect(second).toEqual(first);
      // under its own prefix, with a TTL, and without the library's per-type sets (which never expire)
      const keys = await a.keys('mdg:gql-cache:*');
      expect(keys.length).toBeGreaterThan(0);
      expect(await a.pttl(keys[0]!)).toBeGreaterThan(0);
      expect(await a.exists('Security', 'Logo')).toBe(0);
      await a.del(...keys);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});

describe('the in-memory response cache is bounded by the size of what it keeps', () => {
  const answer = (n: number) => ({ data: { text: 'x'.repeat(n) } });

  it('drops the least recently used answers past its size, keeps none past the entry size, and forgets expired ones', async () => {
    const cache = boundedMemoryCache(1_000, 400);
    for (let i = 0; i < 10; i++) await cache.set(`k${i}`, answer(200), [], 60_000);
    expect(cache.bytes).toBeLessThanOrEqual(1_000);
    expect(await cache.get('k0')).toBeUndefined(); // the oldest went first
    expect(await cache.get('k9')).toEqual(answer(200));
    await cache.set('big', answer(500), [], 60_000);
    expect(await cache.get('big')).toBeUndefined();
    await cache.set('brief', answer(10), [], 1);
    await expect.poll(() => cache.get('brief')).toBeUndefined();
  });

  it('holds at most its bound whatever number of distinct large answers a caller asks for', async () => {
    const cache = boundedMemoryCache();
    for (let i = 0; i < 100; i++) await cache.set(`page-${i}`, answer(900_000), [], 60_000);
    expect(cache.bytes).toBeLessThanOrEqual(MEMORY_CACHE_BYTES);
    await cache.set('too-large', answer(MAX_CACHED_ANSWER_BYTES), [], 60_000);
    expect(await cache.get('too-large')).toBeUndefined();
  });
});
