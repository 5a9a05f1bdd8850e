import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { SESSION_ENDED } from '../../src/auth/caller.js';
import {
  accessCookie,
  authHarness,
  bearer,
  call,
  expectGraphQLRequestError,
  expectRestError,
  expectSessionCookies,
  freshUser,
  gqlRequest,
  login,
  refreshRequest,
  validateRequest,
  type AuthHarness,
} from './helpers.js';
import { testDatabases } from '../helpers.js';

/** Asks `app` until the access token is refused (or the deadline passes); returns the last answer. */
async function refusedWithin(app: App, access: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await validateRequest(app, bearer(access));
    if (r.status !== 200 || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(testDatabases())('access tokens end with their session on $name', (tdb) => {
  let h: AuthHarness;
  /** The instance the user logs out on: it remembers callers for an hour, so only forgetting explains a refusal. */
  let here: App;
  /** Another instance, remembering callers for AUTH_CACHE_SECONDS=1. */
  let there: App;
  beforeAll(async () => {
    h = await authHarness(tdb);
    here = h.appWith({ AUTH_CACHE_SECONDS: '3600' });
    there = h.appWith({ AUTH_CACHE_SECONDS: '1' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** A fresh user's session, its access token already remembered by both instances. */
  async function session() {
    const u = await freshUser(h.db, 'pro');
    const t = await login(here, u.email, u.password);
    for (const app of [here, there]) expect((await validateRequest(app, bearer(t.access))).status).toBe(200);
    return { u, ...t };
  }

  it('access tokens name their session (sid: the refresh-token family), and refresh keeps it', async () => {
    const t = await session();
    const sid = (jwt.decode(t.access) as jwt.JwtPayload).sid;
    expect(sid).toBe((jwt.decode(t.refresh) as jwt.JwtPayload).fam);
    expect(await h.db.prisma.refreshTokenFamily.count({ where: { id: sid, userId: t.u.id } })).toBe(1);
    const refreshed = expectSessionCookies((await refreshRequest(here, t.refresh)).res);
    expect((jwt.decode(refreshed.access) as jwt.JwtPayload).sid).toBe(sid);
  });

  it('REST logout: the access token is refused at once here, within AUTH_CACHE_SECONDS elsewhere (the finding: valid for up to an hour)', async () => {
    const t = await session();
    const other = await login(here, t.u.email, t.u.password); // another session of the same user
    const out = await call(here, '/kms/api/v1/auth/logout', {
      method: 'POST',
      headers: { cookie: `DT_AUTH_TOKEN=${t.access}; DT_REFRESH_TOKEN=${t.refresh}` },
    });
    expect(out.status).toBe(200);
    expectRestError(await validateRequest(here, bearer(t.access)), 401, 'UNAUTHENTICATED', SESSION_ENDED);
    expectGraphQLRequestError(
      await gqlRequest(here, '{ me { email } }', accessCookie(t.access)),
      401,
      'UNAUTHENTICATED',
      SESSION_ENDED,
    );
    expectRestError(await refusedWithin(there, t.access, 10_000), 401, 'UNAUTHENTICATED', SESSION_ENDED);
    // a fresh instance, with nothing remembered, refuses at once
    expectRestError(await validateRequest(h.appWith({}), bearer(t.access)), 401, 'UNAUTHENTICATED', SESSION_ENDED);
    expect((await validateRequest(there, bearer(other.access))).status).toBe(200);
  });

  it('the GraphQL logout mutation ends the session the same way', async () => {
    const t = await session();
    const out = await gqlRequest(here, 'mutation { logout { message } }', {
      cookie: `DT_AUTH_TOKEN=${t.access}; DT_REFRESH_TOKEN=${t.refresh}`,
    });
    expect(out.body).toEqual({ data: { logout: { message: 'logged out' } } });
    expectGraphQLRequestError(
      await gqlRequest(here, '{ me { email } }', bearer(t.access)),
      401,
      'UNAUTHENTICATED',
      SESSION_ENDED,
    );
    expectRestError(await refusedWithin(there, t.access, 10_000), 401, 'UNAUTHENTICATED', SESSION_ENDED);
  });

  it('reuse detection: replaying an old refresh token ends every access token of the session, at once here, within AUTH_CACHE_SECONDS elsewhere', async () => {
    const t1 = await session();
    const t2 = expectSessionCookies((await refreshRequest(here, t1.refresh)).res);
    expect((await validateRequest(there, bearer(t2.access))).status).toBe(200);
    expectRestError(await refreshRequest(here, t1.refresh), 401, 'UNAUTHENTICATED', /already used/);
    for (const access of [t1.access, t2.access]) {
      expectRestError(await validateRequest(here, bearer(access)), 401, 'UNAUTHENTICATED', SESSION_ENDED);
      expectRestError(await refusedWithin(there, access, 10_000), 401, 'UNAUTHENTICATED', SESSION_ENDED);
    }
  });
});
