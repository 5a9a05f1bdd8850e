import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { CORS_ALLOW_HEADERS, CORS_MAX_AGE_SECONDS } from '../../src/auth/cors.js';
import { CSRF_HEADERS } from '../../src/auth/csrf.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/domain/env-values.js';
import { routes } from '../../src/rest/routes.js';
import {
  accessCookie,
  authHarness,
  BASE,
  bearer,
  call,
  expectGraphQLRequestError,
  expectRestError,
  expectSessionCookies,
  freshUser,
  login,
  refreshRequest,
  type AuthHarness,
} from './helpers.js';
import { testDatabases } from '../helpers.js';

const LISTED = 'https://app.example.com';
const LISTED_DEV = 'http://localhost:5173';
/** A page of another site, another port of a listed host, a sibling subdomain, and the opaque origin of sandboxed pages. */
const UNLISTED = ['https://evil.example', 'https://app.example.com:8443', 'https://other.example.com', 'null'];
const ME = '{ me { email } }';
const CREATE_KEY = 'mutation { createApiKey(name: "from a page") { key } }';

/** Every path the app serves, as a request a client would make: the REST route table and /graphql. */
const ENDPOINTS: { method: 'GET' | 'POST'; path: string }[] = [
  { method: 'POST', path: '/graphql' },
  { method: 'GET', path: '/graphql' },
  ...routes.map((r) => ({ method: r.method, path: r.path.replace(/:symbol\b/, 'NVLX') })),
];

function preflight(app: App, path: string, origin: string, method: string) {
  return app.fetch(BASE + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type, x-api-key',
    },
  });
}

/** An actual request of `method` to `path` with an API key, as a page's fetch would send it. */
function actual(app: App, path: string, origin: string | undefined, method: 'GET' | 'POST') {
  const headers: Record<string, string> = { 'x-api-key': 'demo-enterprise', ...(origin ? { origin } : {}) };
  if (method === 'GET')
    return app.fetch(BASE + (path === '/graphql' ? `/graphql?query=${encodeURIComponent(ME)}` : path), {
      headers: { ...headers, accept: 'application/json' },
    });
  return app.fetch(BASE + path, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: path === '/graphql' ? JSON.stringify({ query: ME }) : '{}',
  });
}

const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
const varyOf = (res: Response) => (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());

describe('CORS_ORIGINS', () => {
  it('is empty by default: same origin only', () => {
    expect(loadConfig({}).auth.corsOrigins).toEqual([]);
  });

  it('takes a comma list of exact origins, as browsers write them', () => {
    expect(
      loadConfig({ CORS_ORIGINS: ` ${LISTED}, ${LISTED_DEV},HTTPS://Admin.Example.com:443 ,, ` }).auth.corsOrigins,
    ).toEqual([LISTED, LISTED_DEV, 'https://admin.example.com']);
  });

  it.each([
    ['*', /^CORS_ORIGINS cannot be \*: pages of every site would get the user's cookies; list the origins/],
    [
      'https://app.example.com/',
      /^CORS_ORIGINS must be a comma list of origins, each scheme:\/\/host\[:port\] with http or https and no path, like https:\/\/app\.example\.com; got "https:\/\/app\.example\.com\/"$/,
    ],
    ['https://app.example.com/app', /no path.*got "https:\/\/app\.example\.com\/app"/],
    ['app.example.com', /got "app\.example\.com"/],
    ['null', /got "null"/],
    ['file:///tmp', /got "file:\/\/\/tmp"/],
    ['https://user@app.example.com', /got "https:\/\/user@app\.example\.com"/],
    ['https://app.example.com?x=1', /got "https:\/\/app\.example\.com\?x=1"/],
    [`${LISTED},*`, /cannot be \*/],
  ])('refuses %j, naming it', (value, message) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(message);
  });
});

// CORS headers come from app.ts alone, before and after any database work: one database suffices
describe.each(testDatabases().slice(0, 1))('CORS on every path (the REST route table and /graphql) on $name', (tdb) => {
  let h: AuthHarness;
  let listedApp: App;
  beforeAll(async () => {
    h = await authHarness(tdb);
    listedApp = h.appWith({ CORS_ORIGINS: `${LISTED},${LISTED_DEV}` });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('the finding: a page of another origin is not granted /graphql with credentials, in development or production', async () => {
    for (const nodeEnv of ['development', 'production'] as const) {
      const app = h.appWith({ NODE_ENV: nodeEnv });
      const pre = await preflight(app, '/graphql', 'https://evil.example', 'POST');
      expect(pre.headers.get('access-control-allow-origin'), nodeEnv).toBeNull();
      expect(pre.headers.get('access-control-allow-credentials'), nodeEnv).toBeNull();
      const res = await actual(app, '/graphql', 'https://evil.example', 'POST');
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), nodeEnv).toBeNull();
      expect(res.headers.get('access-control-allow-credentials'), nodeEnv).toBeNull();
    }
  });

  it('without CORS_ORIGINS no origin is granted anything: preflights are 403, answers carry no CORS header (the finding: any Origin was reflected with credentials)', async () => {
    for (const { method, path } of ENDPOINTS) {
      for (const origin of [LISTED, ...UNLISTED]) {
        const pre = await preflight(h.app, path, origin, method);
        expect(pre.status, `${method} ${path} from ${origin}`).toBe(403);
        expect(corsHeaders(pre), `${method} ${path} from ${origin}`).toEqual([]);
        expect(await pre.json()).toEqual({
          status: 'ERROR',
          code: 'FORBIDDEN',
          message: `CORS: pages of ${JSON.stringify(origin)} may not call this API (not in CORS_ORIGINS, which is empty: same origin only)`,
          request_id: pre.headers.get('x-request-id'),
        });
        const res = await actual(h.app, path, origin, method);
        expect(corsHeaders(res), `${method} ${path} from ${origin}: ${res.status}`).toEqual([]);
        expect(varyOf(res)).toContain('origin');
      }
    }
  });

  it('an unlisted origin gets no grant on the preflight or the answer; a listed one gets the same grant on both', async () => {
    for (const { method, path } of ENDPOINTS) {
      const what = `${method} ${path}`;
      for (const origin of UNLISTED) {
        const pre = await preflight(listedApp, path, origin, method);
        expect(pre.status, `${what} from ${origin}`).toBe(403);
        expect(corsHeaders(pre), `${what} from ${origin}`).toEqual([]);
        expect(varyOf(pre)).toContain('origin');
        const res = await actual(listedApp, path, origin, method);
        expect(corsHeaders(res), `${what} from ${origin}: ${res.status}`).toEqual([]);
        expect(varyOf(res)).toContain('origin');
      }
      for (const origin of [LISTED, LISTED_DEV]) {
        const pre = await preflight(listedApp, path, origin, method);
        expect(pre.status, `${what} from ${origin}`).toBe(204);
        expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
        expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
        expect(pre.headers.get('access-control-allow-methods')!.split(', ')).toContain(method);
        const allowed = pre.headers.get('access-control-allow-headers')!.split(', ');
        for (const header of ['content-type', 'authorization', 'x-api-key', 'x-request-id', ...CSRF_HEADERS])
          expect(allowed).toContain(header);
        expect(allowed).toEqual(CORS_ALLOW_HEADERS);
        expect(pre.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS));
        expect(varyOf(pre)).toContain('origin');
        expect(await pre.text()).toBe('');

        const res = await actual(listedApp, path, origin, method);
        expect(res.status, `${what} from ${origin}`).toBeLessThan(500);
        expect(res.headers.get('access-control-allow-origin'), what).toBe(
          pre.headers.get('access-control-allow-origin'),
        );
        expect(res.headers.get('access-control-allow-credentials'), what).toBe(
          pre.headers.get('access-control-allow-credentials'),
        );
        expect(res.headers.get('access-control-expose-headers')!.toLowerCase().split(', ').sort()).toEqual([
          'allow',
          'retry-after',
          'x-ignored-parameters',
          'x-request-id',
          'x-total-count',
        ]);
        expect(varyOf(res)).toContain('origin');
      }
      // a request without Origin (a server, curl) gets no CORS headers and no Vary
      const plain = await actual(listedApp, path, undefined, method);
      expect(corsHeaders(plain), what).toEqual([]);
      expect(varyOf(plain)).not.toContain('origin');
    }
  });

  it('errors carry the grant too, so a listed page can read a 401 or a 429 and its Retry-After', async () => {
    const limited = h.appWith({ CORS_ORIGINS: LISTED, RATE_LIMIT_ANONYMOUS: '1' });
    const first = await limited.fetch(`${BASE}/api/v1/logos`, { headers: { origin: LISTED } });
    expect(first.status).toBe(401);
    expect(first.headers.get('access-control-allow-origin')).toBe(LISTED);
    const second = await limited.fetch(`${BASE}/api/v1/logos`, { headers: { origin: LISTED } });
    expect(second.status).toBe(429);
    expect(second.headers.get('access-control-allow-origin')).toBe(LISTED);
    expect(second.headers.get('access-control-expose-headers')).toMatch(/retry-after/i);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('an OPTIONS that is not a preflight is no CORS matter: the path answers it as any other method', async () => {
    const res = await listedApp.fetch(`${BASE}/api/v1/logos`, { method: 'OPTIONS', headers: { origin: LISTED } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
  });
});

describe.each(testDatabases())('requests with the session cookie from a page of another site on $name', (tdb) => {
  let h: AuthHarness;
  let listedApp: App;
  beforeAll(async () => {
    h = await authHarness(tdb);
    listedApp = h.appWith({ CORS_ORIGINS: LISTED });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const FOREIGN =
    /^CSRF protection: a request authenticated by cookie must come from a page of this host \(test\) or of an origin in CORS_ORIGINS; its Origin is "https:\/\/evil\.example"$/;
  const CROSS_SITE =
    /^CSRF protection: a request authenticated by cookie must come .* this one is cross-site \(Sec-Fetch-Site\) without an Origin$/;
  const json = (headers: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
  });

  it('GraphQL by cookie: a foreign Origin, or Sec-Fetch-Site cross-site without one, is 403 and mints no key (the finding: a page of another origin minted keys)', async () => {
    const u = await freshUser(h.db, 'pro');
    const { access } = await login(h.app, u.email, u.password);
    for (const app of [h.app, listedApp]) {
      const foreign = await call(app, '/graphql', {
        ...json({ ...accessCookie(access), origin: 'https://evil.example' }),
        body: JSON.stringify({ query: CREATE_KEY }),
      });
      expectGraphQLRequestError(foreign, 403, 'FORBIDDEN', FOREIGN);
      const sibling = await call(app, '/graphql', {
        ...json({ ...accessCookie(access), origin: 'https://other.example.com' }),
        body: JSON.stringify({ query: ME }),
      });
      expectGraphQLRequestError(sibling, 403, 'FORBIDDEN', /its Origin is "https:\/\/other\.example\.com"/);
      const crossSite = await call(app, '/graphql', {
        ...json({ ...accessCookie(access), 'sec-fetch-site': 'cross-site' }),
        body: JSON.stringify({ query: CREATE_KEY }),
      });
      expectGraphQLRequestError(crossSite, 403, 'FORBIDDEN', CROSS_SITE);
    }
    expect(await h.db.prisma.apiKey.count({ where: { userId: u.id } })).toBe(0);
    // this host's own pages, a listed origin, and clients that are not browsers keep working
    const ok = (r: { status: number; body: any }) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({ data: { me: { email: u.email } } });
    };
    ok(
      await call(h.app, '/graphql', {
        ...json({ ...accessCookie(access), origin: 'http://test', 'sec-fetch-site': 'same-origin' }),
        body: JSON.stringify({ query: ME }),
      }),
    );
    ok(
      await call(listedApp, '/graphql', {
        ...json({ ...accessCookie(access), origin: LISTED, 'sec-fetch-site': 'cross-site' }),
        body: JSON.stringify({ query: ME }),
      }),
    );
    ok(await call(h.app, '/graphql', { ...json(accessCookie(access)), body: JSON.stringify({ query: ME }) }));
    const created = await call(listedApp, '/graphql', {
      ...json({ ...accessCookie(access), origin: LISTED }),
      body: JSON.stringify({ query: CREATE_KEY }),
    });
    expect(created.body.data.createApiKey.key).toMatch(/^mdg_/);
    expect(created.res.headers.get('access-control-allow-origin')).toBe(LISTED);
  });

  it('REST by cookie: a foreign Origin is 403; API keys and Bearer tokens (no ambient credential) are not refused', async () => {
    const { access } = await login(h.app, 'free@example.com');
    expectRestError(
      await call(h.app, '/kms/api/v1/auth/validate', {
        headers: { ...accessCookie(access), origin: 'https://evil.example' },
      }),
      403,
      'FORBIDDEN',
      FOREIGN,
    );
    expectRestError(
      await call(h.app, '/api/v1/logos?search=NV', {
        headers: { ...accessCookie(access), 'sec-fetch-site': 'cross-site' },
      }),
      403,
      'FORBIDDEN',
      CROSS_SITE,
    );
    expect(
      (
        await call(h.app, '/kms/api/v1/auth/validate', {
          headers: { ...bearer(access), origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(h.app, '/kms/api/v1/auth/validate', {
          headers: { 'x-api-key': 'demo-free', origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(200);
    expect((await call(h.app, '/kms/api/v1/auth/validate', { headers: accessCookie(access) })).status).toBe(200);
  });

  it('a cross-site form POST to the REST logout is 403: the session survives and no cookie is cleared', async () => {
    const t = await login(h.app, 'pro@example.com');
    const cookie = `DT_AUTH_TOKEN=${t.access}; DT_REFRESH_TOKEN=${t.refresh}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const logout = await call(h.app, '/kms/api/v1/auth/logout', {
      method: 'POST',
      headers: { ...form, origin: 'https://evil.example' },
      body: 'x=1',
    });
    expectRestError(
      logout,
      403,
      'FORBIDDEN',
      /^CSRF protection: a request that sets or clears the session cookies must come from a page of this host \(test\) or of an origin in CORS_ORIGINS; its Origin is "https:\/\/evil\.example"$/,
    );
    expect(logout.res.headers.getSetCookie()).toEqual([]);
    const noOrigin = await call(h.app, '/kms/api/v1/auth/logout', {
      method: 'POST',
      headers: { ...form, 'sec-fetch-site': 'cross-site' },
      body: 'x=1',
    });
    expectRestError(noOrigin, 403, 'FORBIDDEN', /cross-site \(Sec-Fetch-Site\) without an Origin/);
    expect((await call(h.app, '/kms/api/v1/auth/validate', { headers: bearer(t.access) })).status).toBe(200);
    // refresh and login from that page are refused alike; the refresh token was not rotated
    expectRestError(
      await call(h.app, '/kms/api/v1/auth/refresh', {
        method: 'POST',
        headers: { ...form, origin: 'https://evil.example' },
      }),
      403,
      'FORBIDDEN',
      /sets or clears the session cookies/,
    );
    const loginFromElsewhere = await call(h.app, '/kms/api/v1/auth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ email: 'pro@example.com', password: 'demo-password' }),
    });
    expectRestError(loginFromElsewhere, 403, 'FORBIDDEN', /sets or clears the session cookies/);
    expect(loginFromElsewhere.res.headers.getSetCookie()).toEqual([]);
    const refreshed = await refreshRequest(h.app, t.refresh);
    expect(refreshed.status).toBe(200);
    const rotated = expectSessionCookies(refreshed.res);
    // from this host's page, or a listed origin's, logout works
    const own = await call(listedApp, '/kms/api/v1/auth/logout', {
      method: 'POST',
      headers: { ...form, cookie: `DT_REFRESH_TOKEN=${rotated.refresh}`, origin: LISTED },
      body: 'x=1',
    });
    expect(own.status).toBe(200);
    expectRestError(await refreshRequest(h.app, rotated.refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
  });

  it('the GraphQL session mutations refuse a foreign Origin even with a JSON body', async () => {
    const t = await login(h.app, 'pro@example.com');
    for (const mutation of [
      'mutation { logout { message } }',
      'mutation { refreshSession { message } }',
      'mutation { login(email: "pro@example.com", password: "demo-password") { message } }',
    ]) {
      const r = await call(h.app, '/graphql', {
        ...json({ cookie: `DT_REFRESH_TOKEN=${t.refresh}`, origin: 'https://evil.example' }),
        body: JSON.stringify({ query: mutation }),
      });
      expect(r.body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            /^CSRF protection: a request that sets or clears the session cookies must come from a page of this host/,
          ),
          extensions: { code: 'FORBIDDEN' },
        }),
      ]);
      expect(r.res.headers.getSetCookie()).toEqual([]);
    }
    expect((await refreshRequest(h.app, t.refresh)).status).toBe(200);
  });
});
