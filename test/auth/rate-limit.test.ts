import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallerCache } from '../../src/auth/caller.js';
import { createApp, type App } from '../../src/app.js';
import { createRedis } from '../../src/runtime/redis.js';
import { createApiKey, findUserByEmail } from '../../src/services/account.js';
import {
  authHarness,
  bearer,
  call,
  DEMO_PASSWORD,
  expectRestError,
  freshUser,
  gqlRequest,
  login,
  loginRequest,
  validateRequest,
  type AuthHarness,
  type JsonResponse,
} from './helpers.js';
import { testConfig, testDatabases } from '../helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

/** A 429 with an integer Retry-After of at least a second and at most the window. */
function expectRetryAfter(r: JsonResponse, windowSeconds: number): number {
  const header = r.res.headers.get('retry-after');
  expect(header).toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(windowSeconds);
  return seconds;
}

function expectRestRateLimited(r: JsonResponse, windowSeconds: number, message: RegExp): void {
  expectRestError(r, 429, 'RATE_LIMITED', message);
  const seconds = expectRetryAfter(r, windowSeconds);
  expect(r.body.message).toContain(`try again in ${seconds} s`);
}

function expectGraphQLRateLimited(r: JsonResponse, windowSeconds: number): void {
  expect(r.status, JSON.stringify(r.body)).toBe(429);
  expect(r.body).toEqual({
    errors: [
      {
        message: expect.stringMatching(
          /rate limit of \d+ requests per minute for the \w+ tier reached; try again in \d+ s/,
        ),
        extensions: { code: 'RATE_LIMITED' },
      },
    ],
  });
  expectRetryAfter(r, windowSeconds);
}

const ME = '{ me { email } }';

describe.each(testDatabases())('request rate limits on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb, { RATE_LIMIT_FREE: '3', RATE_LIMIT_PRO: '5' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('the 4th request of a free key within a minute is 429 with Retry-After and the REST error body', async () => {
    const user = (await findUserByEmail(h.db, 'free@example.com'))!;
    for (let i = 0; i < 3; i++) {
      const ok = await validateRequest(h.app, {}, '?apikey=demo-free');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({
        user_id: user.id,
        email: 'free@example.com',
        username: 'free',
        licensing_tier_id: 'free',
      });
      expect(ok.res.headers.get('retry-after')).toBeNull();
    }
    const limited = await validateRequest(h.app, {}, '?apikey=demo-free');
    expectRestRateLimited(
      limited,
      60,
      /^rate limit of 3 requests per minute for the free tier reached; try again in \d+ s$/,
    );
    // the key stays limited on data routes and on GraphQL too: one budget per key, whatever the path
    expectRestRateLimited(await call(h.app, '/api/v1/logos?apikey=demo-free'), 60, /free tier reached/);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': 'demo-free' }), 60);
  });

  it('on /graphql the over-limit request gets a GraphQL-shaped 429; a second key of the same user shares the budget', async () => {
    const u = await freshUser(h.db, 'free');
    const a = (await createApiKey(h.db, u.id, 'a', h.config.auth.apiKeysPerUser)).key;
    const b = (await createApiKey(h.db, u.id, 'b', h.config.auth.apiKeysPerUser)).key;
    for (let i = 0; i < 3; i++) {
      const ok = await gqlRequest(h.app, ME, { 'x-api-key': a });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { me: { email: u.email } } });
    }
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': a }), 60);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, {}, undefined, `/graphql?apikey=${a}`), 60);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': b }), 60);
    expectRestRateLimited(await validateRequest(h.app, { 'x-api-key': b }), 60, /free tier reached/);
  });

  it('the budget follows the tier: a pro key gets RATE_LIMIT_PRO requests', async () => {
    const u = await freshUser(h.db, 'pro');
    const key = (await createApiKey(h.db, u.id, 'p', h.config.auth.apiKeysPerUser)).key;
    for (let i = 0; i < 5; i++) expect((await validateRequest(h.app, { 'x-api-key': key })).status).toBe(200);
    expectRestRateLimited(
      await validateRequest(h.app, { 'x-api-key': key }),
      60,
      /^rate limit of 5 requests per minute for the pro tier reached/,
    );
  });

  it('token callers are counted per user, on the budget their keys draw on too', async () => {
    const u = await freshUser(h.db, 'free');
    const token = (await login(h.app, u.email, u.password)).access;
    const { key } = await createApiKey(h.db, u.id, 'k', h.config.auth.apiKeysPerUser);
    for (let i = 0; i < 2; i++) expect((await validateRequest(h.app, bearer(token))).status).toBe(200);
    expect((await validateRequest(h.app, { 'x-api-key': key })).status).toBe(200);
    expectRestRateLimited(await validateRequest(h.app, bearer(token)), 60, /free tier/);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, bearer(token)), 60);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': key }), 60);
  });
});

describe.each(testDatabases())(
  'one budget per user whatever the credential, at the default limits, on $name',
  (tdb) => {
    let h: AuthHarness;
    beforeAll(async () => {
      h = await authHarness(tdb);
    });
    afterAll(async () => {
      await h?.close();
      await tdb.cleanup();
    });

    it('four keys of one free user get 60 answers in a minute together (RATE_LIMIT_FREE), then 429', async () => {
      expect(h.config.auth.rateLimits.free).toBe(60);
      const u = await freshUser(h.db, 'free');
      const keys = await Promise.all(
        [1, 2, 3, 4].map(async (i) => (await createApiKey(h.db, u.id, `k${i}`, h.config.auth.apiKeysPerUser)).key),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 80; i++) statuses.push((await validateRequest(h.app, { 'x-api-key': keys[i % 4]! })).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.slice(60)).toEqual(Array(20).fill(429));
    });
  },
);

describe.each(testDatabases())('the budget of requests without a valid caller, per client address, on $name', (tdb) => {
  let h: AuthHarness;
  let app: App;
  beforeAll(async () => {
    h = await authHarness(tdb);
    app = h.appWith({ RATE_LIMIT_ANONYMOUS: '4', TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const from = (ip: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...headers });
  const ANONYMOUS =
    /^rate limit of 4 requests per minute without valid credentials reached for this address; try again in \d+ s$/;

  it('no credential, a wrong key, a bad token, REST or GraphQL, the public session routes, unknown paths: each counts; the 5th is 429', async () => {
    const cases: [string, (ip: string) => Promise<JsonResponse>, number][] = [
      ['no credential (REST)', (ip) => validateRequest(app, from(ip)), 401],
      ['a wrong key', (ip) => validateRequest(app, from(ip, { 'x-api-key': 'guess-1' })), 401],
      ['a bad token', (ip) => validateRequest(app, from(ip, bearer('a.b.c'))), 401],
      ['no credential (GraphQL)', (ip) => gqlRequest(app, '{ serviceInfo { version } }', from(ip)), 200],
      ['a login', (ip) => loginRequest(app, 'nobody@example.com', 'wrong-password', from(ip)), 401],
      ['a refresh', (ip) => call(app, '/kms/api/v1/auth/refresh', { method: 'POST', headers: from(ip) }), 401],
      ['a logout', (ip) => call(app, '/kms/api/v1/auth/logout', { method: 'POST', headers: from(ip) }), 200],
      ['an unknown path', (ip) => call(app, '/no/such/path', { headers: from(ip) }), 404],
    ];
    for (const [i, [what, send, status]] of cases.entries()) {
      const ip = `198.51.100.${i + 1}`;
      for (let n = 0; n < 3; n++) expect((await validateRequest(app, from(ip))).status, what).toBe(401);
      expect((await send(ip)).status, what).toBe(status);
      const limited = await send(ip);
      if (limited.body.errors) {
        expect(limited.status, what).toBe(429);
        expect(limited.body, what).toEqual({
          errors: [{ message: expect.stringMatching(ANONYMOUS), extensions: { code: 'RATE_LIMITED' } }],
        });
        expectRetryAfter(limited, 60);
      } else {
        expectRestRateLimited(limited, 60, ANONYMOUS);
      }
    }
  });

  it('probes and preflights do not count; another address has a budget of its own; valid callers draw on their own', async () => {
    const ip = '198.51.100.200';
    for (let n = 0; n < 10; n++) {
      for (const probe of ['/healthz', '/readyz', '/metrics', '/openapi.json'])
        expect((await call(app, probe, { headers: from(ip) })).status, probe).toBe(200);
      const preflight = await call(app, '/graphql', {
        method: 'OPTIONS',
        headers: from(ip, { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' }),
      });
      expect(preflight.status).toBe(403); // no CORS_ORIGINS: no grant, and nothing counted
    }
    for (let n = 0; n < 4; n++) expect((await validateRequest(app, from(ip))).status).toBe(401);
    expectRestRateLimited(await validateRequest(app, from(ip)), 60, ANONYMOUS);
    expect((await validateRequest(app, from('198.51.100.201'))).status).toBe(401);
    // a key this instance has seen in the last AUTH_CACHE_SECONDS still answers from the spent address
    expect((await validateRequest(app, from('198.51.100.202', { 'x-api-key': 'demo-pro' }))).status).toBe(200);
    expect((await validateRequest(app, from(ip, { 'x-api-key': 'demo-pro' }))).status).toBe(200);
  });

  it('guessing keys is bounded: once an address spent its budget, a key is not even looked up (429, not 401 or 200)', async () => {
    const ip = '198.51.100.210';
    for (let n = 0; n < 4; n++)
      expectRestError(
        await validateRequest(app, from(ip, { 'x-api-key': `guess-${n}` })),
        401,
        'UNAUTHENTICATED',
        'the API key is not valid',
      );
    const u = await freshUser(h.db, 'pro');
    const { key } = await createApiKey(h.db, u.id, 'not cached', h.config.auth.apiKeysPerUser);
    const lookups = h.db.statementCount;
    expectRestRateLimited(await validateRequest(app, from(ip, { 'x-api-key': 'guess-5' })), 60, ANONYMOUS);
    // a right guess is indistinguishable from a wrong one
    expectRestRateLimited(await validateRequest(app, from(ip, { 'x-api-key': key })), 60, ANONYMOUS);
    expect(h.db.statementCount).toBe(lookups);
    expect((await validateRequest(app, from('198.51.100.211', { 'x-api-key': key }))).status).toBe(200);
  });
});

describe.each(testDatabases())('login attempt limits on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('per email: with LOGIN_LIMIT_PER_EMAIL=2 the third attempt is 429 even with the right password (any case of the email)', async () => {
    const app = h.appWith({ LOGIN_LIMIT_PER_EMAIL: '2' });
    expectRestError(
      await loginRequest(app, 'free@example.com', 'wrong-one'),
      401,
      'UNAUTHENTICATED',
      'invalid email or password',
    );
    expectRestError(
      await loginRequest(app, 'FREE@example.com', 'wrong-two'),
      401,
      'UNAUTHENTICATED',
      'invalid email or password',
    );
    const third = await loginRequest(app, 'Free@Example.com', DEMO_PASSWORD);
    expectRestRateLimited(third, 15 * 60, /^too many login attempts for this account; try again in \d+ s$/);
    expect(third.res.headers.getSetCookie()).toEqual([]);
    // the GraphQL login mutation draws on the same budget
    const gql = await gqlRequest(
      app,
      'mutation { login(email: "free@example.com", password: "demo-password") { message } }',
    );
    expect(gql.body).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringMatching(/too many login attempts for this account/),
          path: ['login'],
          locations: expect.any(Array),
          extensions: { code: 'RATE_LIMITED' },
        },
      ],
    });
    expect(gql.res.headers.getSetCookie()).toEqual([]);
    // another account is not affected
    const other = await loginRequest(app, 'pro@example.com', DEMO_PASSWORD);
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ message: 'login successful', expires_in: 3600 });
  });

  it('per address: with LOGIN_LIMIT_PER_IP=2 (behind a trusted proxy) the third attempt from one address is 429', async () => {
    const app = h.appWith({ LOGIN_LIMIT_PER_IP: '2', TRUST_PROXY: 'true' });
    const from = (ip: string) => ({ 'x-forwarded-for': `${ip}, 10.0.0.1` });
    expect((await loginRequest(app, 'free@example.com', DEMO_PASSWORD, from('203.0.113.7'))).status).toBe(200);
    expectRestError(
      await loginRequest(app, 'nobody@example.com', 'x', from('203.0.113.7')),
      401,
      'UNAUTHENTICATED',
      'invalid email or password',
    );
    const third = await loginRequest(app, 'pro@example.com', DEMO_PASSWORD, from('203.0.113.7'));
    expectRestRateLimited(third, 15 * 60, /^too many login attempts from this address; try again in \d+ s$/);
    const elsewhere = await loginRequest(app, 'pro@example.com', DEMO_PASSWORD, from('198.51.100.9'));
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toEqual({ message: 'login successful', expires_in: 3600 });
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not buy a fresh address budget', async () => {
    const app = h.appWith({ LOGIN_LIMIT_PER_IP: '2' });
    for (const ip of ['203.0.113.1', '203.0.113.2']) {
      expectRestError(
        await loginRequest(app, 'free@example.com', 'wrong', { 'x-forwarded-for': ip }),
        401,
        'UNAUTHENTICATED',
        'invalid email or password',
      );
    }
    expectRestRateLimited(
      await loginRequest(app, 'free@example.com', DEMO_PASSWORD, { 'x-forwarded-for': '203.0.113.3' }),
      15 * 60,
      /from this address/,
    );
  });
});

describe('shared rate-limit budgets in Redis', { tags: ['redis'] }, () => {
  describe.each(testDatabases())('on $name', (tdb) => {
    let h: AuthHarness;
    const clients: Redis[] = [];
    let apps: App[];
    beforeAll(async () => {
      h = await authHarness(tdb);
      // the anonymous budget of this process's address ('unknown') lives in the Redis every test
      // file shares; the budgets under test here are others
      const config = testConfig(
        h.config.database,
        {},
        {
          RATE_LIMIT_FREE: '3',
          LOGIN_LIMIT_PER_EMAIL: '2',
          LOGIN_LIMIT_PER_IP: '100000',
          RATE_LIMIT_ANONYMOUS: '100000',
        },
      );
      apps = [0, 1].map(() => {
        const redis = createRedis(REDIS_URL!);
        clients.push(redis);
        return createApp({ config, db: h.db, redis });
      });
      // until connected, the in-memory insurance limiter would stand in (a budget per instance)
      await Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : once(c, 'ready'))));
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
      await h?.close();
      await tdb.cleanup();
    });

    it('two instances draw on one request budget: 2 on A + 2 on B with a limit of 3 makes the 4th a 429', async () => {
      // a fresh user and key: the budget key in Redis is unique to this run, nothing is flushed
      const u = await freshUser(h.db, 'free');
      const { key } = await createApiKey(h.db, u.id, 'redis', h.config.auth.apiKeysPerUser);
      const [a, b] = apps as [App, App];
      for (const app of [a, a, b]) {
        const ok = await validateRequest(app, { 'x-api-key': key });
        expect(ok.status).toBe(200);
        expect(ok.body.email).toBe(u.email);
      }
      expectRestRateLimited(
        await validateRequest(b, { 'x-api-key': key }),
        60,
        /rate limit of 3 requests per minute for the free tier reached/,
      );
      expectGraphQLRateLimited(await gqlRequest(a, ME, { 'x-api-key': key }), 60);
    });

    it('two instances draw on one anonymous budget per address', async () => {
      const config = testConfig(h.config.database, {}, { RATE_LIMIT_ANONYMOUS: '3', TRUST_PROXY: 'true' });
      const [a, b] = clients.map((redis) => createApp({ config, db: h.db, redis })) as [App, App];
      // an address unique to this run: the budget in Redis outlives the test, nothing is flushed
      const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
      for (const app of [a, b, a]) expect((await validateRequest(app, { 'x-forwarded-for': ip })).status).toBe(401);
      expectRestRateLimited(
        await validateRequest(b, { 'x-forwarded-for': ip }),
        60,
        /^rate limit of 3 requests per minute without valid credentials reached for this address/,
      );
    });

    it('two instances draw on one login budget per email', async () => {
      const u = await freshUser(h.db, 'free');
      const [a, b] = apps as [App, App];
      expectRestError(
        await loginRequest(a, u.email, 'wrong-password'),
        401,
        'UNAUTHENTICATED',
        'invalid email or password',
      );
      expectRestError(
        await loginRequest(b, u.email, 'wrong-password'),
        401,
        'UNAUTHENTICATED',
        'invalid email or password',
      );
      expectRestRateLimited(await loginRequest(a, u.email, u.password), 15 * 60, /for this account/);
    });
  });
});

describe('a key in use stays looked up from an address past its anonymous budget', () => {
  afterAll(() => {
    vi.useRealTimers();
  });

  it('knows a credential for ten minutes after it last named a caller, past the caller cache itself', () => {
    vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00Z') });
    const cache = new CallerCache(5_000);
    const caller = { userId: 'u', email: 'e@example.com', username: 'e', tier: 'pro' as const, via: 'apikey' as const };
    expect(cache.knows('key:a')).toBe(false);
    cache.set('key:a', caller);
    vi.advanceTimersByTime(6_000);
    expect(cache.get('key:a')).toBeUndefined(); // revocations still reach it within the cache's seconds
    expect(cache.knows('key:a')).toBe(true); // but a user behind a spent address (a NAT) is not locked out
    vi.advanceTimersByTime(10 * 60_000);
    expect(cache.knows('key:a')).toBe(false);
  });
});
