import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { createRedis } from '../src/redis.js';
import { createApiKey, findUserByEmail } from '../src/services/account.js';
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
} from './auth-helpers.js';
import { testConfig, testDatabases } from './helpers.js';

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
  expect(r.body).toEqual({ errors: [{ message: expect.stringMatching(/rate limit of \d+ requests per minute for the \w+ tier reached; try again in \d+ s/), extensions: { code: 'RATE_LIMITED' } }] });
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
      expect(ok.body).toEqual({ user_id: user.id, email: 'free@example.com', username: 'free', licensing_tier_id: 'free' });
      expect(ok.res.headers.get('retry-after')).toBeNull();
    }
    const limited = await validateRequest(h.app, {}, '?apikey=demo-free');
    expectRestRateLimited(limited, 60, /^rate limit of 3 requests per minute for the free tier reached; try again in \d+ s$/);
    // the key stays limited on data routes and on GraphQL too: one budget per key, whatever the path
    expectRestRateLimited(await call(h.app, '/api/v1/logos?apikey=demo-free'), 60, /free tier reached/);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': 'demo-free' }), 60);
  });

  it('on /graphql the over-limit request gets a GraphQL-shaped 429; a second key of the same user has its own budget', async () => {
    const u = await freshUser(h.db, 'free');
    const a = (await createApiKey(h.db, u.id, 'a')).key;
    const b = (await createApiKey(h.db, u.id, 'b')).key;
    for (let i = 0; i < 3; i++) {
      const ok = await gqlRequest(h.app, ME, { 'x-api-key': a });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { me: { email: u.email } } });
    }
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': a }), 60);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, {}, undefined, `/graphql?apikey=${a}`), 60);
    for (let i = 0; i < 3; i++) expect((await gqlRequest(h.app, ME, { 'x-api-key': b })).body).toEqual({ data: { me: { email: u.email } } });
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, { 'x-api-key': b }), 60);
  });

  it('the budget follows the tier: a pro key gets RATE_LIMIT_PRO requests', async () => {
    const u = await freshUser(h.db, 'pro');
    const key = (await createApiKey(h.db, u.id, 'p')).key;
    for (let i = 0; i < 5; i++) expect((await validateRequest(h.app, { 'x-api-key': key })).status).toBe(200);
    expectRestRateLimited(await validateRequest(h.app, { 'x-api-key': key }), 60, /^rate limit of 5 requests per minute for the pro tier reached/);
  });

  it('token callers are counted per user, and requests without credentials are not counted', async () => {
    const u = await freshUser(h.db, 'free');
    const token = (await login(h.app, u.email, u.password)).access;
    for (let i = 0; i < 3; i++) expect((await validateRequest(h.app, bearer(token))).status).toBe(200);
    expectRestRateLimited(await validateRequest(h.app, bearer(token)), 60, /free tier/);
    expectGraphQLRateLimited(await gqlRequest(h.app, ME, bearer(token)), 60);
    for (let i = 0; i < 5; i++) expect((await gqlRequest(h.app, '{ serviceInfo { version } }')).status).toBe(200);
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
    expectRestError(await loginRequest(app, 'free@example.com', 'wrong-one'), 401, 'UNAUTHENTICATED', 'invalid email or password');
    expectRestError(await loginRequest(app, 'FREE@example.com', 'wrong-two'), 401, 'UNAUTHENTICATED', 'invalid email or password');
    const third = await loginRequest(app, 'Free@Example.com', DEMO_PASSWORD);
    expectRestRateLimited(third, 15 * 60, /^too many login attempts for this account; try again in \d+ s$/);
    expect(third.res.headers.getSetCookie()).toEqual([]);
    // the GraphQL login mutation draws on the same budget
    const gql = await gqlRequest(app, 'mutation { login(email: "free@example.com", password: "demo-password") { message } }');
    expect(gql.body).toEqual({ data: null, errors: [{ message: expect.stringMatching(/too many login attempts for this account/), path: ['login'], locations: expect.any(Array), extensions: { code: 'RATE_LIMITED' } }] });
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
    expectRestError(await loginRequest(app, 'nobody@example.com', 'x', from('203.0.113.7')), 401, 'UNAUTHENTICATED', 'invalid email or password');
    const third = await loginRequest(app, 'pro@example.com', DEMO_PASSWORD, from('203.0.113.7'));
    expectRestRateLimited(third, 15 * 60, /^too many login attempts from this address; try again in \d+ s$/);
    const elsewhere = await loginRequest(app, 'pro@example.com', DEMO_PASSWORD, from('198.51.100.9'));
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toEqual({ message: 'login successful', expires_in: 3600 });
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not buy a fresh address budget', async () => {
    const app = h.appWith({ LOGIN_LIMIT_PER_IP: '2' });
    for (const ip of ['203.0.113.1', '203.0.113.2']) {
      expectRestError(await loginRequest(app, 'free@example.com', 'wrong', { 'x-forwarded-for': ip }), 401, 'UNAUTHENTICATED', 'invalid email or password');
    }
    expectRestRateLimited(await loginRequest(app, 'free@example.com', DEMO_PASSWORD, { 'x-forwarded-for': '203.0.113.3' }), 15 * 60, /from this address/);
  });
});

describe.skipIf(!REDIS_URL)(`shared rate-limit budgets in Redis (${REDIS_URL ? REDIS_URL.replace(/\/\/[^@]*@/, '//') : 'SKIPPED: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379, to run'})`, () => {
  describe.each(testDatabases())('on $name', (tdb) => {
    let h: AuthHarness;
    const clients: Redis[] = [];
    let apps: App[];
    beforeAll(async () => {
      h = await authHarness(tdb);
      const config = testConfig(h.config.database, {}, { RATE_LIMIT_FREE: '3', LOGIN_LIMIT_PER_EMAIL: '2', LOGIN_LIMIT_PER_IP: '100000' });
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
      const { key } = await createApiKey(h.db, u.id, 'redis');
      const [a, b] = apps as [App, App];
      for (const app of [a, a, b]) {
        const ok = await validateRequest(app, { 'x-api-key': key });
        expect(ok.status).toBe(200);
        expect(ok.body.email).toBe(u.email);
      }
      expectRestRateLimited(await validateRequest(b, { 'x-api-key': key }), 60, /rate limit of 3 requests per minute for the free tier reached/);
      expectGraphQLRateLimited(await gqlRequest(a, ME, { 'x-api-key': key }), 60);
    });

    it('two instances draw on one login budget per email', async () => {
      const u = await freshUser(h.db, 'free');
      const [a, b] = apps as [App, App];
      expectRestError(await loginRequest(a, u.email, 'wrong-password'), 401, 'UNAUTHENTICATED', 'invalid email or password');
      expectRestError(await loginRequest(b, u.email, 'wrong-password'), 401, 'UNAUTHENTICATED', 'invalid email or password');
      expectRestRateLimited(await loginRequest(a, u.email, u.password), 15 * 60, /for this account/);
    });
  });
});
