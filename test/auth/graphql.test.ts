import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/services/account.js';
import {
  accessCookie,
  authHarness,
  bearer,
  call,
  expectClearedCookies,
  expectGraphQLRequestError,
  expectRestError,
  expectSessionCookies,
  freshUser,
  gqlRequest,
  login,
  refreshRequest,
  validateRequest,
  type AuthHarness,
  type JsonResponse,
} from './helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

const ME = '{ me { userId email tier authenticatedBy } }';
const CREATE_KEY =
  'mutation ($name: String!) { createApiKey(name: $name) { key apiKey { keyId name prefix createdAt lastUsedAt revokedAt } } }';
const LIST_KEYS = '{ apiKeys { keyId name prefix createdAt lastUsedAt revokedAt } }';
const REVOKE_KEY = 'mutation ($keyId: String!) { revokeApiKey(keyId: $keyId) { keyId revokedAt } }';
const INVALID_KEY = 'the API key is not valid';

function fieldError(path: (string | number)[], code: string, message: string | RegExp) {
  return {
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    path,
    locations: expect.any(Array),
    extensions: { code },
  };
}

/** GET /graphql?query=... (plus any other search parameters). */
function gqlGet(
  h: AuthHarness,
  query: string,
  headers: Record<string, string> = {},
  params: Record<string, string> = {},
): Promise<JsonResponse> {
  return call(h.app, `/graphql?${new URLSearchParams({ query, ...params })}`, {
    headers: { accept: 'application/json', ...headers },
  });
}

describe.each(testDatabases())('GraphQL authentication on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    // a long caller cache: revocation through this instance must still take effect at once
    h = await authHarness(tdb, { AUTH_CACHE_SECONDS: '3600' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  describe('API keys', () => {
    it('createApiKey shows the key once; apiKeys lists it by prefix only; the database keeps only its sha-256', async () => {
      const u = await freshUser(h.db, 'pro');
      const { access } = await login(h.app, u.email, u.password);
      const created = await gqlRequest(h.app, CREATE_KEY, bearer(access), { name: '  my laptop ' });
      expect(created.status).toBe(200);
      expect(created.body.errors).toBeUndefined();
      const { key, apiKey } = created.body.data.createApiKey;
      expect(key).toMatch(/^mdg_[A-Za-z0-9_-]{32}$/);
      expect(apiKey).toEqual({
        keyId: expect.any(String),
        name: 'my laptop',
        prefix: key.slice(0, 8),
        createdAt: expect.any(String),
        lastUsedAt: null,
        revokedAt: null,
      });

      const listed = await gqlRequest(h.app, LIST_KEYS, bearer(access));
      expect(listed.body).toEqual({ data: { apiKeys: [apiKey] } });
      expect(JSON.stringify(listed.body)).not.toContain(key);

      const row = await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.keyId } });
      expect(row.hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(row.userId).toBe(u.id);
      for (const value of Object.values(row)) expect(String(value)).not.toContain(key);
      expect(JSON.stringify(row)).not.toContain(key.slice(8));
    });

    it('a new key works as the apikey parameter, the X-API-Key header, on GraphQL and REST; then records its use', async () => {
      const u = await freshUser(h.db, 'pro');
      const { access } = await login(h.app, u.email, u.password);
      const { key, apiKey } = (await gqlRequest(h.app, CREATE_KEY, bearer(access), { name: 'k' })).body.data
        .createApiKey;
      const me = { userId: u.id, email: u.email, tier: 'PRO', authenticatedBy: 'apikey' };
      expect((await gqlRequest(h.app, ME, {}, undefined, `/graphql?apikey=${encodeURIComponent(key)}`)).body).toEqual({
        data: { me },
      });
      expect((await gqlRequest(h.app, ME, { 'x-api-key': key })).body).toEqual({ data: { me } });
      expect((await gqlGet(h, ME, {}, { apikey: key })).body).toEqual({ data: { me } });
      const v = await validateRequest(h.app, { 'x-api-key': key });
      expect(v.body).toEqual({ user_id: u.id, email: u.email, username: u.username, licensing_tier_id: 'pro' });
      const listed = await gqlRequest(h.app, LIST_KEYS, bearer(access));
      expect(listed.body.data.apiKeys[0]).toEqual({ ...apiKey, lastUsedAt: expect.any(String) });
    });

    it('revokeApiKey stops the key at once on this instance (despite a long caller cache); other keys keep working', async () => {
      const u = await freshUser(h.db, 'pro');
      const { access } = await login(h.app, u.email, u.password);
      const a = (await gqlRequest(h.app, CREATE_KEY, bearer(access), { name: 'a' })).body.data.createApiKey;
      const b = (await gqlRequest(h.app, CREATE_KEY, bearer(access), { name: 'b' })).body.data.createApiKey;
      expect((await gqlRequest(h.app, ME, { 'x-api-key': a.key })).status).toBe(200); // now cached
      const revoked = await gqlRequest(h.app, REVOKE_KEY, bearer(access), { keyId: a.apiKey.keyId });
      expect(revoked.body).toEqual({
        data: { revokeApiKey: { keyId: a.apiKey.keyId, revokedAt: expect.any(String) } },
      });
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, { 'x-api-key': a.key }),
        401,
        'UNAUTHENTICATED',
        INVALID_KEY,
      );
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, {}, undefined, `/graphql?apikey=${a.key}`),
        401,
        'UNAUTHENTICATED',
        INVALID_KEY,
      );
      expectRestError(await validateRequest(h.app, { 'x-api-key': a.key }), 401, 'UNAUTHENTICATED', INVALID_KEY);
      expect((await gqlRequest(h.app, ME, { 'x-api-key': b.key })).body.data.me.email).toBe(u.email);
      // a fresh instance (nothing cached) refuses it too
      expectRestError(
        await validateRequest(h.appWith({}), { 'x-api-key': a.key }),
        401,
        'UNAUTHENTICATED',
        INVALID_KEY,
      );
      // revoking again is harmless and keeps the first revocation time
      const again = await gqlRequest(h.app, REVOKE_KEY, bearer(access), { keyId: a.apiKey.keyId });
      expect(again.body.data.revokeApiKey.revokedAt).toBe(revoked.body.data.revokeApiKey.revokedAt);
    });

    it('another user cannot revoke (or see) a key: NOT_FOUND, and the key keeps working', async () => {
      const owner = await freshUser(h.db, 'pro');
      const ownerAccess = (await login(h.app, owner.email, owner.password)).access;
      const { key, apiKey } = (await gqlRequest(h.app, CREATE_KEY, bearer(ownerAccess), { name: 'mine' })).body.data
        .createApiKey;
      const stranger = bearer((await login(h.app, 'enterprise@example.com')).access);
      const r = await gqlRequest(h.app, REVOKE_KEY, stranger, { keyId: apiKey.keyId });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        data: null,
        errors: [fieldError(['revokeApiKey'], 'NOT_FOUND', `no API key with id "${apiKey.keyId}"`)],
      });
      const unknown = await gqlRequest(h.app, REVOKE_KEY, stranger, { keyId: '00000000-0000-0000-0000-000000000000' });
      expect(unknown.body.errors).toEqual([fieldError(['revokeApiKey'], 'NOT_FOUND', /no API key with id/)]);
      const theirs = await gqlRequest(h.app, LIST_KEYS, stranger);
      expect(theirs.body.data.apiKeys.map((k: { keyId: string }) => k.keyId)).not.toContain(apiKey.keyId);
      expect((await gqlRequest(h.app, ME, { 'x-api-key': key })).body.data.me.email).toBe(owner.email);
      expect((await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.keyId } })).revokedAt).toBeNull();
    });

    it('createApiKey and revokeApiKey need credentials; a bad name is BAD_USER_INPUT', async () => {
      const anon = await gqlRequest(h.app, CREATE_KEY, {}, { name: 'x' });
      expect(anon.body).toEqual({
        data: null,
        errors: [fieldError(['createApiKey'], 'UNAUTHENTICATED', /authentication required/)],
      });
      const bad = await gqlRequest(h.app, CREATE_KEY, bearer((await login(h.app, 'free@example.com')).access), {
        name: '   ',
      });
      expect(bad.body.errors).toEqual([
        fieldError(['createApiKey'], 'BAD_USER_INPUT', /name must be 1 to 100 characters/),
      ]);
    });

    it('a wrong or empty key is 401, never a fall-through to another credential', async () => {
      const { access } = await login(h.app, 'pro@example.com');
      for (const [path, headers] of [
        ['/graphql?apikey=wrong-key', {}],
        ['/graphql?apikey=', {}],
        ['/graphql?apikey=', bearer(access)],
        ['/graphql?apikey=wrong-key', { 'x-api-key': 'demo-pro' }],
        ['/graphql', { 'x-api-key': 'wrong-key', ...bearer(access) }],
        ['/graphql', { 'x-api-key': '', ...accessCookie(access) }],
      ] as [string, Record<string, string>][]) {
        expectGraphQLRequestError(
          await gqlRequest(h.app, ME, headers, undefined, path),
          401,
          'UNAUTHENTICATED',
          INVALID_KEY,
        );
      }
      expectRestError(await validateRequest(h.app, bearer(access), '?apikey='), 401, 'UNAUTHENTICATED', INVALID_KEY);
      expectRestError(await validateRequest(h.app, { 'x-api-key': 'nope' }), 401, 'UNAUTHENTICATED', INVALID_KEY);
    });
  });

  describe('one caller model', () => {
    it('the same identity via apikey or apiKey parameter, X-API-Key, Bearer (an API key or a token) and cookie; only authenticatedBy differs', async () => {
      const user = (await findUserByEmail(h.db, 'pro@example.com'))!;
      const { access } = await login(h.app, 'pro@example.com');
      const base = { userId: user.id, email: 'pro@example.com', tier: 'PRO' };
      const cases: [string, Record<string, string>, string][] = [
        ['/graphql?apikey=demo-pro', {}, 'apikey'],
        ['/graphql?apiKey=demo-pro', {}, 'apikey'],
        ['/graphql', { 'x-api-key': 'demo-pro' }, 'apikey'],
        ['/graphql', bearer('demo-pro'), 'apikey'],
        ['/graphql', bearer(access), 'bearer'],
        ['/graphql', accessCookie(access), 'cookie'],
      ];
      for (const [path, headers, via] of cases) {
        const r = await gqlRequest(h.app, ME, headers, undefined, path);
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ data: { me: { ...base, authenticatedBy: via } } });
      }
      expect((await gqlRequest(h.app, ME)).body).toEqual({ data: { me: null } });
    });

    it('precedence: apikey parameter, then X-API-Key, then Bearer, then cookie', async () => {
      const free = (await login(h.app, 'free@example.com')).access;
      const pro = (await login(h.app, 'pro@example.com')).access;
      const winners: [string, Record<string, string>, string, string][] = [
        // [path, headers, email expected, authenticatedBy]
        [
          '/graphql?apikey=demo-free',
          { 'x-api-key': 'demo-pro', ...bearer(pro), ...accessCookie(pro) },
          'free@example.com',
          'apikey',
        ],
        ['/graphql?apikey=demo-free', { 'x-api-key': 'not-a-key' }, 'free@example.com', 'apikey'],
        ['/graphql', { 'x-api-key': 'demo-free', ...bearer(pro), ...accessCookie(pro) }, 'free@example.com', 'apikey'],
        [
          '/graphql',
          { 'x-api-key': 'demo-free', authorization: 'Bearer invalid.token.here' },
          'free@example.com',
          'apikey',
        ],
        ['/graphql', { ...bearer(free), ...accessCookie(pro) }, 'free@example.com', 'bearer'],
        ['/graphql', { ...bearer(free), cookie: 'DT_AUTH_TOKEN=garbage' }, 'free@example.com', 'bearer'],
      ];
      for (const [path, headers, email, via] of winners) {
        const r = await gqlRequest(h.app, '{ me { email authenticatedBy } }', headers, undefined, path);
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(200);
        expect(r.body).toEqual({ data: { me: { email, authenticatedBy: via } } });
      }
      // an invalid credential earlier in the order is 401 even when a later one is valid
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, { 'x-api-key': 'not-a-key', ...bearer(pro) }),
        401,
        'UNAUTHENTICATED',
        INVALID_KEY,
      );
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, bearer('invalid.token.here'), undefined, '/graphql'),
        401,
        'UNAUTHENTICATED',
        'the access token is not valid',
      );
      expectGraphQLRequestError(
        await gqlRequest(h.app, ME, { authorization: 'Bearer invalid.token.here', ...accessCookie(pro) }),
        401,
        'UNAUTHENTICATED',
        'the access token is not valid',
      );
      // the same order on REST
      expect((await validateRequest(h.app, { 'x-api-key': 'demo-free', ...bearer(pro) })).body.email).toBe(
        'free@example.com',
      );
      expectRestError(
        await validateRequest(h.app, { 'x-api-key': 'not-a-key', ...bearer(pro) }),
        401,
        'UNAUTHENTICATED',
        INVALID_KEY,
      );
    });
  });

  describe('session mutations', () => {
    const LOGIN =
      'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { message expiresIn me { userId email tier authenticatedBy } } }';
    const REFRESH = 'mutation { refreshSession { message expiresIn me { email } } }';

    it('login sets the same cookies as REST; wrong password is UNAUTHENTICATED with no cookies', async () => {
      const user = (await findUserByEmail(h.db, 'free@example.com'))!;
      const r = await gqlRequest(h.app, LOGIN, {}, { email: 'Free@Example.com', password: 'demo-password' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        data: {
          login: {
            message: 'login successful',
            expiresIn: 3600,
            me: { userId: user.id, email: 'free@example.com', tier: 'FREE', authenticatedBy: 'cookie' },
          },
        },
      });
      const { access } = expectSessionCookies(r.res);
      expect((await validateRequest(h.app, bearer(access))).body.user_id).toBe(user.id);

      const insecure = await gqlRequest(
        h.appWith({ COOKIE_SECURE: 'false' }),
        LOGIN,
        {},
        { email: 'free@example.com', password: 'demo-password' },
      );
      expectSessionCookies(insecure.res, false);

      const wrong = await gqlRequest(h.app, LOGIN, {}, { email: 'free@example.com', password: 'nope-nope' });
      expect(wrong.body).toEqual({
        data: null,
        errors: [fieldError(['login'], 'UNAUTHENTICATED', 'invalid email or password')],
      });
      expect(wrong.res.headers.getSetCookie()).toEqual([]);
      const unknown = await gqlRequest(h.app, LOGIN, {}, { email: 'nobody@example.com', password: 'demo-password' });
      expect(unknown.body).toEqual(wrong.body);
    });

    it('refreshSession rotates like REST: old token reuse fails and revokes the family', async () => {
      const t1 = await login(h.app, 'pro@example.com');
      const r = await gqlRequest(h.app, REFRESH, { cookie: `DT_REFRESH_TOKEN=${t1.refresh}` });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        data: { refreshSession: { message: 'token refreshed', expiresIn: 3600, me: { email: 'pro@example.com' } } },
      });
      const t2 = expectSessionCookies(r.res);
      expect(t2.refresh).not.toBe(t1.refresh);
      expect((jwt.decode(t2.refresh) as jwt.JwtPayload).fam).toBe((jwt.decode(t1.refresh) as jwt.JwtPayload).fam);

      const reuse = await gqlRequest(h.app, REFRESH, { cookie: `DT_REFRESH_TOKEN=${t1.refresh}` });
      expect(reuse.body).toEqual({
        data: null,
        errors: [fieldError(['refreshSession'], 'UNAUTHENTICATED', /already used/)],
      });
      expect(reuse.res.headers.getSetCookie()).toEqual([]);
      expectRestError(await refreshRequest(h.app, t2.refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
      const none = await gqlRequest(h.app, REFRESH);
      expect(none.body.errors).toEqual([fieldError(['refreshSession'], 'UNAUTHENTICATED', /no refresh token/)]);
    });

    it('logout clears both cookies and ends the session', async () => {
      const t = await login(h.app, 'pro@example.com');
      const r = await gqlRequest(h.app, 'mutation { logout { message } }', {
        cookie: `DT_AUTH_TOKEN=${t.access}; DT_REFRESH_TOKEN=${t.refresh}`,
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ data: { logout: { message: 'logged out' } } });
      expectClearedCookies(r.res);
      expectRestError(await refreshRequest(h.app, t.refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
    });

    it('a stale access cookie does not block login, refreshSession or logout, but data still needs a valid one', async () => {
      const t = await login(h.app, 'pro@example.com');
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(
        {
          token_use: 'access',
          sub: (jwt.decode(t.access) as jwt.JwtPayload).sub,
          jti: 'x',
          iat: now - 7200,
          exp: now - 10,
          iss: 'market-data-gateway',
          aud: 'market-data-gateway',
        },
        TEST_JWT_SECRET,
      );
      for (const stale of [expired, 'garbage']) {
        const loggedIn = await gqlRequest(
          h.app,
          LOGIN,
          { cookie: `DT_AUTH_TOKEN=${stale}` },
          { email: 'pro@example.com', password: 'demo-password' },
        );
        expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
        expect(loggedIn.body.data.login.message).toBe('login successful');
        const fresh = expectSessionCookies(loggedIn.res);

        const refreshed = await gqlRequest(h.app, REFRESH, {
          cookie: `DT_AUTH_TOKEN=${stale}; DT_REFRESH_TOKEN=${fresh.refresh}`,
        });
        expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
        expect(refreshed.body).toEqual({
          data: { refreshSession: { message: 'token refreshed', expiresIn: 3600, me: { email: 'pro@example.com' } } },
        });
        const rotated = expectSessionCookies(refreshed.res);

        const out = await gqlRequest(h.app, 'mutation { logout { message } }', {
          cookie: `DT_AUTH_TOKEN=${stale}; DT_REFRESH_TOKEN=${rotated.refresh}`,
        });
        expect(out.status, JSON.stringify(out.body)).toBe(200);
        expectClearedCookies(out.res);

        const message = stale === expired ? 'the access token has expired' : 'the access token is not valid';
        expectGraphQLRequestError(
          await gqlRequest(h.app, ME, { cookie: `DT_AUTH_TOKEN=${stale}` }),
          401,
          'UNAUTHENTICATED',
          message,
        );
        // a data field next to a session mutation is refused as a whole
        const mixed = await gqlRequest(h.app, 'mutation { logout { message } createApiKey(name: "x") { key } }', {
          cookie: `DT_AUTH_TOKEN=${stale}`,
        });
        expectGraphQLRequestError(mixed, 401, 'UNAUTHENTICATED', message);
        expect(mixed.res.headers.getSetCookie()).toEqual([]);
      }
    });
  });

  describe('CSRF protection of cookie-authenticated GraphQL', () => {
    let access: string;
    beforeAll(async () => {
      access = (await login(h.app, 'free@example.com')).access;
    });
    const CSRF = /CSRF/;

    it('a cookie GET without a preflight header is 403 FORBIDDEN; with x-graphql-yoga-csrf it works', async () => {
      expectGraphQLRequestError(await gqlGet(h, ME, accessCookie(access)), 403, 'FORBIDDEN', CSRF);
      const ok = await gqlGet(h, '{ me { email authenticatedBy } }', {
        ...accessCookie(access),
        'x-graphql-yoga-csrf': '1',
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { me: { email: 'free@example.com', authenticatedBy: 'cookie' } } });
    });

    it('a cookie POST as text/plain, form-urlencoded or multipart is 403 FORBIDDEN', async () => {
      const body = JSON.stringify({ query: ME });
      for (const type of [
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const r = await call(h.app, '/graphql', {
          method: 'POST',
          headers: { 'content-type': type, ...accessCookie(access) },
          body,
        });
        expectGraphQLRequestError(r, 403, 'FORBIDDEN', CSRF);
      }
      const form = await call(h.app, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...accessCookie(access) },
        body: new URLSearchParams({ query: ME }).toString(),
      });
      expectGraphQLRequestError(form, 403, 'FORBIDDEN', CSRF);
      const noType = await call(h.app, '/graphql', {
        method: 'POST',
        headers: accessCookie(access),
        body: new Blob([body]),
      });
      expectGraphQLRequestError(noType, 403, 'FORBIDDEN', CSRF);
    });

    it('a cookie JSON POST works; API-key and Bearer GETs work without the header', async () => {
      expect((await gqlRequest(h.app, '{ me { email } }', accessCookie(access))).body).toEqual({
        data: { me: { email: 'free@example.com' } },
      });
      expect((await gqlGet(h, '{ me { email } }', {}, { apikey: 'demo-free' })).body).toEqual({
        data: { me: { email: 'free@example.com' } },
      });
      expect((await gqlGet(h, '{ me { email } }', { 'x-api-key': 'demo-free' })).body).toEqual({
        data: { me: { email: 'free@example.com' } },
      });
      expect((await gqlGet(h, '{ me { email } }', bearer(access))).body).toEqual({
        data: { me: { email: 'free@example.com' } },
      });
    });

    it('the session mutations refuse simple cross-site requests (no login CSRF through a form post)', async () => {
      const login = 'mutation { login(email: "free@example.com", password: "demo-password") { message } }';
      const form = await call(h.app, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: login }).toString(),
      });
      expect(form.status).toBe(200);
      expect(form.body).toEqual({ data: null, errors: [fieldError(['login'], 'FORBIDDEN', CSRF)] });
      expect(form.res.headers.getSetCookie()).toEqual([]);
      const t = await (async () => {
        const r = await call(h.app, '/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-graphql-yoga-csrf': '1' },
          body: new URLSearchParams({ query: login }).toString(),
        });
        expect(r.body).toEqual({ data: { login: { message: 'login successful' } } });
        return expectSessionCookies(r.res);
      })();
      for (const mutation of ['mutation { refreshSession { message } }', 'mutation { logout { message } }']) {
        const r = await call(h.app, '/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `DT_REFRESH_TOKEN=${t.refresh}` },
          body: new URLSearchParams({ query: mutation }).toString(),
        });
        expect(r.body.errors).toEqual([
          fieldError([mutation.includes('logout') ? 'logout' : 'refreshSession'], 'FORBIDDEN', CSRF),
        ]);
        expect(r.res.headers.getSetCookie()).toEqual([]);
      }
      // the refresh token was neither rotated nor revoked by those
      expect((await refreshRequest(h.app, t.refresh)).status).toBe(200);
      // mutations over GET are refused by GraphQL-over-HTTP anyway
      const get = await gqlGet(h, login);
      expect(get.status).toBe(405);
      expect(get.body).toEqual({
        errors: [{ message: expect.stringMatching(/mutation.*POST/), extensions: expect.any(Object) }],
      });
      expect(get.res.headers.getSetCookie()).toEqual([]);
    });
  });
});
