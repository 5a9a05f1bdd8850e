import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/services/account.js';
import {
  authHarness,
  bearer,
  call,
  expectGraphQLRequestError,
  expectRestError,
  freshUser,
  gqlRequest,
  validateRequest,
  withoutRequestId,
  type AuthHarness,
} from './helpers.js';
import { testDatabases } from '../helpers.js';

const ME = '{ me { email authenticatedBy } }';
const BOTH = 'the API key is given more than once with different values (apikey and apiKey); give it once';

// The three ways of passing an API key (docs/rest.md#passing-the-key): the query (apikey, or the
// apiKey of Massive's clients), the X-API-Key header, and Authorization: Bearer with a value that
// is not a JWT. Each is the same key: one caller, one budget, the same tier and the same errors.
describe.each(testDatabases())('the ways of passing an API key on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb, { RATE_LIMIT_FREE: '5' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('apiKey in the query, and a Bearer API key, name the key’s owner on REST and GraphQL', async () => {
    for (const [query, headers] of [
      ['?apiKey=demo-pro', {}],
      ['', bearer('demo-pro')],
      ['', { authorization: 'bearer demo-pro' }],
    ] as const) {
      const r = await validateRequest(h.app, headers, query);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.email).toBe('pro@example.com');
      const g = await gqlRequest(h.app, ME, headers, undefined, `/graphql${query}`);
      expect(g.body).toEqual({ data: { me: { email: 'pro@example.com', authenticatedBy: 'apikey' } } });
    }
  });

  it('both spellings with different values: 400 naming both, before any key is looked up; the same value twice is one key', async () => {
    for (const query of ['?apikey=demo-pro&apiKey=demo-free', '?apiKey=demo-free&apikey=not-a-key']) {
      expectRestError(await validateRequest(h.app, {}, query), 400, 'BAD_REQUEST', BOTH);
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, {}, undefined, `/graphql${query}`),
        400,
        'BAD_USER_INPUT',
        BOTH,
      );
    }
    expectRestError(
      await validateRequest(h.app, {}, '?apikey=demo-pro&apikey=demo-free'),
      400,
      'BAD_REQUEST',
      'the API key is given more than once with different values (apikey); give it once',
    );
    // such a request has no caller: it counts against the address's budget, as a wrong key does
    const strict = h.appWith({ RATE_LIMIT_ANONYMOUS: '2' });
    for (let i = 0; i < 2; i++)
      expect((await validateRequest(strict, {}, '?apikey=demo-pro&apiKey=demo-free')).status).toBe(400);
    expect((await validateRequest(strict, {}, '?apikey=demo-pro&apiKey=demo-free')).status).toBe(429);
    const same = await validateRequest(h.app, {}, '?apikey=demo-pro&apiKey=demo-pro');
    expect(same.status).toBe(200);
    expect(same.body.email).toBe('pro@example.com');
  });

  it('a wrong key is the same 401 whichever way it came; a Bearer value with dots is still checked as a token', async () => {
    for (const [query, headers] of [
      ['?apikey=not-a-key', {}],
      ['?apiKey=not-a-key', {}],
      ['', { 'x-api-key': 'not-a-key' }],
      ['', bearer('not-a-key')],
      ['', bearer('mdg_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')],
    ] as const) {
      expectRestError(await validateRequest(h.app, headers, query), 401, 'UNAUTHENTICATED', 'the API key is not valid');
    }
    for (const token of ['invalid.token.here', 'demo-pro.x.y', 'a.b']) {
      expectRestError(
        await validateRequest(h.app, bearer(token)),
        401,
        'UNAUTHENTICATED',
        'the access token is not valid',
      );
    }
  });

  it('the tier of a Bearer API key is the key’s: the same 403 as X-API-Key for a route above it', async () => {
    const path = '/stocks/v3/trades/NVLX';
    const byHeader = await call(h.app, path, { headers: { 'x-api-key': 'demo-free' } });
    const byBearer = await call(h.app, path, { headers: bearer('demo-free') });
    const byCamel = await call(h.app, `${path}?apiKey=demo-free`);
    for (const r of [byHeader, byBearer, byCamel]) {
      expectRestError(r, 403, 'FORBIDDEN', "trades needs the pro tier or higher; this caller's tier is free");
      expect(withoutRequestId(r.body)).toEqual(withoutRequestId(byHeader.body));
    }
  });

  it('one budget per key, whichever way it is passed: the 6th request of a free key within a minute is 429', async () => {
    const user = await freshUser(h.db, 'free');
    const { key } = await createApiKey(h.db, user.id, 'budget', 5);
    const ways: [string, Record<string, string>][] = [
      [`?apikey=${key}`, {}],
      [`?apiKey=${key}`, {}],
      ['', { 'x-api-key': key }],
      ['', bearer(key)],
      [`?apikey=${key}&apiKey=${key}`, {}],
    ];
    for (const [query, headers] of ways) expect((await validateRequest(h.app, headers, query)).status).toBe(200);
    for (const [query, headers] of ways.slice(0, 4)) {
      const r = await validateRequest(h.app, headers, query);
      expect(r.status, `${query} ${JSON.stringify(headers)}`).toBe(429);
      expect(r.body.code).toBe('RATE_LIMITED');
    }
  });

  it('a Bearer API key is an API key: it cannot create keys (that needs a logged-in session)', async () => {
    const r = await gqlRequest(h.app, 'mutation { createApiKey(name: "by bearer key") { key } }', bearer('demo-pro'));
    expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(r.body.errors?.[0]?.message).toMatch(/^managing API keys needs a logged-in session, not an API key/);
  });
});
