// Pacing signals (issue 28): every answer counted against a budget says where the budget stands,
// in the RateLimit fields of draft-ietf-httpapi-ratelimit-headers-06, and a 429 says when to come
// back (Retry-After). The budgets themselves are tested in test/auth/rate-limit.test.ts.
import { once } from 'node:events';
import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createRedis } from '../../src/runtime/redis.js';
import { createApiKey } from '../../src/services/account.js';
import { documentHash } from '../../src/graphql/persisted.js';
import {
  authHarness,
  call,
  freshUser,
  gqlRequest,
  loginRequest,
  validateRequest,
  type AuthHarness,
  type JsonResponse,
} from './helpers.js';
import { testConfig, testDatabases } from '../helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

interface Fields {
  limit: number;
  remaining: number;
  reset: number;
  policy: string | null;
  retryAfter: number | null;
}

/** The pacing fields of an answer, as numbers; each must be present. */
function fieldsOf(r: JsonResponse): Fields {
  const h = r.res.headers;
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
    expect(h.get(name), `${name} on ${r.status} ${JSON.stringify(r.body)}`).toMatch(/^\d+$/);
  return {
    limit: Number(h.get('ratelimit-limit')),
    remaining: Number(h.get('ratelimit-remaining')),
    reset: Number(h.get('ratelimit-reset')),
    policy: h.get('ratelimit-policy'),
    retryAfter: h.has('retry-after') ? Number(h.get('retry-after')) : null,
  };
}

/** `limit` answers through `send`, each with one fewer remaining, then a 429 whose Retry-After is its reset. */
async function expectCountdown(limit: number, send: (i: number) => Promise<JsonResponse>, okStatus = 200) {
  for (let i = 1; i <= limit; i++) {
    const r = await send(i);
    expect(r.status, JSON.stringify(r.body)).toBe(okStatus);
    const f = fieldsOf(r);
    expect(f).toMatchObject({ limit, remaining: limit - i, policy: `${limit};w=60`, retryAfter: null });
    expect(f.reset).toBeGreaterThanOrEqual(1);
    expect(f.reset).toBeLessThanOrEqual(60);
  }
  const refused = await send(limit + 1);
  expect(refused.status).toBe(429);
  const f = fieldsOf(refused);
  expect(f).toMatchObject({ limit, remaining: 0, policy: `${limit};w=60` });
  expect(f.retryAfter).toBe(f.reset);
  expect(JSON.stringify(refused.body)).toContain(`try again in ${f.reset} s`);
}

describe.each(testDatabases())('RateLimit fields on $name', (tdb) => {
  let h: AuthHarness;
  let app: App;
  beforeAll(async () => {
    h = await authHarness(tdb);
    app = h.appWith({ RATE_LIMIT_FREE: '5', RATE_LIMIT_ANONYMOUS: '3', TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const freeKey = async () => {
    const u = await freshUser(h.db, 'free');
    return (await createApiKey(h.db, u.id, 'pacing', h.config.auth.apiKeysPerUser)).key;
  };

  it('a key counts down on REST and GraphQL alike (one budget), then 429 with Retry-After equal to RateLimit-Reset', async () => {
    const key = await freeKey();
    const ways = [
      () => validateRequest(app, { 'x-api-key': key }),
      () => call(app, `/api/v1/logos?apikey=${key}`),
      () => gqlRequest(app, '{ me { email } }', { 'x-api-key': key }),
    ];
    await expectCountdown(5, (i) => ways[i % ways.length]!());
    // every way says the same once spent
    for (const way of ways) expect(fieldsOf(await way())).toMatchObject({ limit: 5, remaining: 0 });
  });

  it('a request refused for another reason after it was counted still says where its budget stands', async () => {
    const key = await freeKey();
    const bad = await call(app, `/api/v1/logos?apikey=${key}&page_size=9000`);
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(fieldsOf(bad)).toMatchObject({ limit: 5, remaining: 4 });
    const refused = await gqlRequest(app, '{ nope }', { 'x-api-key': key });
    expect(refused.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(fieldsOf(refused)).toMatchObject({ limit: 5, remaining: 3 });
  });

  it("requests without a valid caller count down their address's budget; probes and preflights, counted by none, carry no fields", async () => {
    const ip = '198.51.100.77';
    const from = { 'x-forwarded-for': ip };
    const ways = [
      () => validateRequest(app, from),
      () => validateRequest(app, { ...from, 'x-api-key': 'not-a-key' }),
      () => gqlRequest(app, '{ serviceInfo { version } }', from),
    ];
    const statuses: number[] = [];
    await expectCountdown(3, async (i) => {
      const r = await ways[(i - 1) % ways.length]!();
      statuses.push(r.status);
      return { ...r, status: r.status === 429 ? 429 : 200 };
    });
    expect(statuses).toEqual([401, 401, 200, 429]);
    for (const probe of ['/healthz', '/readyz', '/openapi.json']) {
      const r = await call(app, probe, { headers: from });
      expect(r.status).toBe(200);
      expect(r.res.headers.has('ratelimit-limit'), probe).toBe(false);
    }
  });

  it('a login refused by its own budget says that budget (LOGIN_LIMIT_PER_EMAIL)', async () => {
    const login = h.appWith({ LOGIN_LIMIT_PER_EMAIL: '2' });
    for (let i = 0; i < 2; i++) expect((await loginRequest(login, 'free@example.com', 'wrong')).status).toBe(401);
    const refused = await loginRequest(login, 'free@example.com', 'wrong');
    expect(refused.status).toBe(429);
    const f = fieldsOf(refused);
    expect(f).toMatchObject({ limit: 2, remaining: 0, policy: '2;w=900' });
    expect(f.retryAfter).toBe(f.reset);
    expect(f.reset).toBeLessThanOrEqual(900);
  });

  it("an APQ registration's charge (a request per KiB stored) shows in the same answer", async () => {
    const key = await freeKey();
    const query = `{ me { email } } # ${'x'.repeat(2048)}`; // 2 KiB and a bit: 3 requests more
    const r = await call(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        query,
        extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(query) } },
      }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(fieldsOf(r)).toMatchObject({ limit: 5, remaining: 5 - 1 - Math.ceil(Buffer.byteLength(query) / 1024) });
  });
});

describe('RateLimit fields from the budget in Redis', { tags: ['redis'] }, () => {
  describe.each(testDatabases())('on $name', (tdb) => {
    let h: AuthHarness;
    const clients: Redis[] = [];
    let apps: App[];
    beforeAll(async () => {
      h = await authHarness(tdb);
      const config = testConfig(h.config.database, {}, { RATE_LIMIT_FREE: '4', TRUST_PROXY: 'true' });
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

    it('two instances count down one budget: each answer says what is left of it', async () => {
      // a fresh user and address: their budgets in Redis are unique to this run, nothing is flushed
      const u = await freshUser(h.db, 'free');
      const { key } = await createApiKey(h.db, u.id, 'redis', h.config.auth.apiKeysPerUser);
      const from = {
        'x-api-key': key,
        'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`,
      };
      await expectCountdown(4, (i) => validateRequest(apps[i % 2]!, from));
    });
  });
});
