import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../src/credentials/passwords.js';
import { withSigningSecret } from '../../src/credentials/secret.js';
import { SESSION_ENDED } from '../../src/auth/caller.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/domain/env-values.js';
import { estimatedSecretBits } from '../../src/domain/secret-entropy.js';
import { JWT_SECRET as BENCH_JWT_SECRET } from '../../bench/harness.js';
import { createApiKey, createUser, disableUser, findUserByEmail } from '../../src/services/account.js';
import {
  accessCookie,
  authHarness,
  bearer,
  call,
  DEMO_PASSWORD,
  expectClearedCookies,
  expectRestError,
  expectSessionCookies,
  freshUser,
  login,
  loginRequest,
  refreshRequest,
  validateRequest,
  withoutRequestId,
  type AuthHarness,
} from './helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

const INVALID_LOGIN = { status: 'ERROR', code: 'UNAUTHENTICATED', message: 'invalid email or password' };

describe.each(testDatabases())('REST sessions on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  describe('login: POST /kms/api/v1/auth/token', () => {
    it('answers {message, expires_in: 3600} and sets both cookies with exact attributes', async () => {
      const r = await loginRequest(h.app, 'free@example.com', DEMO_PASSWORD);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'login successful', expires_in: 3600 });
      expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
      const { access, refresh } = expectSessionCookies(r.res);
      expect(access).not.toBe(refresh);
    });

    it('leaves Secure off the cookies with COOKIE_SECURE=false (and only that)', async () => {
      const r = await loginRequest(h.appWith({ COOKIE_SECURE: 'false' }), 'free@example.com', DEMO_PASSWORD);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'login successful', expires_in: 3600 });
      expectSessionCookies(r.res, false);
    });

    it('wrong password, unknown email and disabled user get the same 401 body and no cookies', async () => {
      const disabled = await freshUser(h.db);
      await disableUser(h.db, disabled.email);
      const attempts = [
        await loginRequest(h.app, 'free@example.com', 'not-the-password'),
        await loginRequest(h.app, 'nobody-at-all@example.com', DEMO_PASSWORD),
        await loginRequest(h.app, disabled.email, disabled.password),
      ];
      for (const r of attempts) {
        expectRestError(r, 401, 'UNAUTHENTICATED', 'invalid email or password');
        expect(withoutRequestId(r.body)).toEqual(INVALID_LOGIN);
        expect(r.res.headers.getSetCookie()).toEqual([]);
      }
      // the disabled user's password is right: enabling them again lets them in
      await disableUser(h.db, disabled.email, false);
      expect((await loginRequest(h.app, disabled.email, disabled.password)).status).toBe(200);
    });

    it('takes the email case-insensitively (and trimmed)', async () => {
      const r = await loginRequest(h.app, '  FREE@Example.COM ', DEMO_PASSWORD);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'login successful', expires_in: 3600 });
      const { access } = expectSessionCookies(r.res);
      expect((await validateRequest(h.app, bearer(access))).body.email).toBe('free@example.com');
    });

    it('refuses malformed JSON with 400', async () => {
      const r = await call(h.app, '/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"email": "free@example.com", "password": ',
      });
      expectRestError(r, 400, 'BAD_REQUEST', 'the body is not valid JSON');
      expect(r.res.headers.getSetCookie()).toEqual([]);
    });

    it('refuses a JSON value that is not an object with 400', async () => {
      for (const body of ['["free@example.com", "demo-password"]', 'null', '"free@example.com"']) {
        const r = await call(h.app, '/kms/api/v1/auth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expectRestError(r, 400, 'BAD_REQUEST', /must be a JSON object/);
      }
    });

    it('refuses a body that is not application/json with 415, even when it is valid JSON', async () => {
      const json = JSON.stringify({ email: 'free@example.com', password: DEMO_PASSWORD });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const r = await call(h.app, '/kms/api/v1/auth/token', {
          method: 'POST',
          headers: { 'content-type': type },
          body: json,
        });
        expectRestError(r, 415, 'UNSUPPORTED_MEDIA_TYPE', `the body must be application/json; got "${type}"`);
        expect(r.res.headers.getSetCookie()).toEqual([]);
      }
      const none = await call(h.app, '/kms/api/v1/auth/token', { method: 'POST', body: new Blob([json]) });
      expectRestError(none, 415, 'UNSUPPORTED_MEDIA_TYPE', /must be application\/json/);
    });

    it('refuses missing or empty fields with 400 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ password: DEMO_PASSWORD }, 'email'],
        [{ email: '', password: DEMO_PASSWORD }, 'email'],
        [{ email: 42, password: DEMO_PASSWORD }, 'email'],
        [{ email: 'free@example.com' }, 'password'],
        [{ email: 'free@example.com', password: '' }, 'password'],
        [{}, 'email'],
      ];
      for (const [body, field] of cases) {
        const r = await call(h.app, '/kms/api/v1/auth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expectRestError(r, 400, 'BAD_REQUEST', `${field}: a non-empty string is required`);
      }
    });

    it('refuses an oversized body with 413 before reading it all', async () => {
      const huge = JSON.stringify({ email: 'free@example.com', password: 'x'.repeat(200_000) });
      const r = await call(h.app, '/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: huge,
      });
      expectRestError(r, 413, 'PAYLOAD_TOO_LARGE', /too large/);
      // a stream with no Content-Length is cut off as well
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 64) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const streamed = await call(h.app, '/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expectRestError(streamed, 413, 'PAYLOAD_TOO_LARGE', /too large/);
      expect(sent).toBeLessThan(64);
    });

    it('is POST only', async () => {
      const r = await call(h.app, '/kms/api/v1/auth/token');
      expectRestError(r, 405, 'METHOD_NOT_ALLOWED', 'GET is not served at /kms/api/v1/auth/token; it takes POST');
      expect(r.res.headers.get('allow')).toBe('POST');
    });
  });

  describe('refresh: POST /kms/api/v1/auth/refresh', () => {
    it('exchanges the refresh cookie for a new access cookie and a rotated refresh cookie', async () => {
      const first = await login(h.app, 'pro@example.com');
      const r = await refreshRequest(h.app, first.refresh);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({ message: 'token refreshed', expires_in: 3600 });
      const second = expectSessionCookies(r.res);
      expect(second.refresh).not.toBe(first.refresh);
      expect(second.access).not.toBe(first.access);
      const v = await validateRequest(h.app, bearer(second.access));
      expect(v.status).toBe(200);
      expect(v.body).toMatchObject({ email: 'pro@example.com', licensing_tier_id: 'pro' });
    });

    it('reusing an older refresh token fails and revokes the family: the newest one fails too', async () => {
      const t1 = await login(h.app, 'free@example.com');
      const r2 = await refreshRequest(h.app, t1.refresh);
      expect(r2.status).toBe(200);
      const t2 = expectSessionCookies(r2.res);
      const r3 = await refreshRequest(h.app, t2.refresh);
      expect(r3.status).toBe(200);
      const t3 = expectSessionCookies(r3.res); // the chain works while used in order
      const reuse = await refreshRequest(h.app, t2.refresh);
      expectRestError(reuse, 401, 'UNAUTHENTICATED', /already used/);
      expect(reuse.res.headers.getSetCookie()).toEqual([]);
      const newest = await refreshRequest(h.app, t3.refresh);
      expectRestError(newest, 401, 'UNAUTHENTICATED', 'the refresh token is no longer valid: log in again');
      expectRestError(await refreshRequest(h.app, t1.refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
    });

    it('a revoked family does not touch other sessions of the same user', async () => {
      const a = await login(h.app, 'free@example.com');
      const b = await login(h.app, 'free@example.com');
      expect((await refreshRequest(h.app, a.refresh)).status).toBe(200);
      expect((await refreshRequest(h.app, a.refresh)).status).toBe(401); // family a revoked
      const rb = await refreshRequest(h.app, b.refresh);
      expect(rb.status).toBe(200);
      expect(rb.body).toEqual({ message: 'token refreshed', expires_in: 3600 });
    });

    it('without a refresh cookie is 401 naming the cookie', async () => {
      expectRestError(
        await refreshRequest(h.app),
        401,
        'UNAUTHENTICATED',
        'no refresh token: send the DT_REFRESH_TOKEN cookie',
      );
      expectRestError(await refreshRequest(h.app, ''), 401, 'UNAUTHENTICATED', /no refresh token/);
    });

    it('an access token sent as the refresh cookie is 401', async () => {
      const { access } = await login(h.app, 'free@example.com');
      const r = await refreshRequest(h.app, access);
      expectRestError(r, 401, 'UNAUTHENTICATED', 'the refresh token is not valid');
      expect(r.res.headers.getSetCookie()).toEqual([]);
    });

    it('a stale access cookie next to a valid refresh cookie does not block the refresh', async () => {
      const { refresh } = await login(h.app, 'free@example.com');
      const r = await refreshRequest(h.app, refresh, 'DT_AUTH_TOKEN=stale.garbage.token');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expectSessionCookies(r.res);
    });

    it('a disabled user cannot refresh', async () => {
      const u = await freshUser(h.db);
      const { refresh } = await login(h.app, u.email, u.password);
      await disableUser(h.db, u.email);
      expectRestError(await refreshRequest(h.app, refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
    });
  });

  describe('validate: GET /kms/api/v1/auth/validate', () => {
    it('names the holder of a Bearer access token, the cookie, or an API key', async () => {
      const user = (await findUserByEmail(h.db, 'enterprise@example.com'))!;
      const expected = {
        user_id: user.id,
        email: 'enterprise@example.com',
        username: 'enterprise',
        licensing_tier_id: 'enterprise',
      };
      expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const { access } = await login(h.app, 'enterprise@example.com');
      for (const r of [
        await validateRequest(h.app, bearer(access)),
        await validateRequest(h.app, { authorization: `bearer  ${access}` }),
        await validateRequest(h.app, accessCookie(access)),
        await validateRequest(h.app, { 'x-api-key': 'demo-enterprise' }),
        await validateRequest(h.app, {}, '?apikey=demo-enterprise'),
      ]) {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body).toEqual(expected);
        expect(r.res.headers.get('x-request-id')).toBeTruthy();
      }
    });

    it('answers each user with their own identity and tier', async () => {
      for (const tier of ['free', 'pro'] as const) {
        const user = (await findUserByEmail(h.db, `${tier}@example.com`))!;
        const { access } = await login(h.app, `${tier}@example.com`);
        const r = await validateRequest(h.app, bearer(access));
        expect(r.body).toEqual({
          user_id: user.id,
          email: `${tier}@example.com`,
          username: tier,
          licensing_tier_id: tier,
        });
      }
    });

    it('without credentials is 401; a malformed Authorization header is 401', async () => {
      expectRestError(await validateRequest(h.app), 401, 'UNAUTHENTICATED', /authentication required/);
      for (const authorization of ['Basic ZnJlZTpkZW1vLXBhc3N3b3Jk', 'Bearer', 'Bearer a b', '']) {
        expectRestError(
          await validateRequest(h.app, { authorization }),
          401,
          'UNAUTHENTICATED',
          'the Authorization header must be "Bearer <access token or API key>"',
        );
      }
    });
  });

  describe('logout: POST /kms/api/v1/auth/logout', () => {
    it('clears both cookies and the refresh token stops working', async () => {
      const t = await login(h.app, 'free@example.com');
      const r = await call(h.app, '/kms/api/v1/auth/logout', {
        method: 'POST',
        headers: { cookie: `DT_AUTH_TOKEN=${t.access}; DT_REFRESH_TOKEN=${t.refresh}` },
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'logged out' });
      expectClearedCookies(r.res);
      expectRestError(await refreshRequest(h.app, t.refresh), 401, 'UNAUTHENTICATED', /no longer valid/);
    });

    it('clears the cookies without Secure when COOKIE_SECURE=false, and works without any cookie', async () => {
      const r = await call(h.appWith({ COOKIE_SECURE: 'false' }), '/kms/api/v1/auth/logout', { method: 'POST' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'logged out' });
      expectClearedCookies(r.res, false);
    });

    it('with a garbage refresh cookie still clears the cookies', async () => {
      const r = await call(h.app, '/kms/api/v1/auth/logout', {
        method: 'POST',
        headers: { cookie: 'DT_REFRESH_TOKEN=not-a-token' },
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: 'logged out' });
      expectClearedCookies(r.res);
    });
  });

  describe('users', () => {
    it('createUser stores an scrypt hash, salted, that verifies the password and nothing else', async () => {
      const password = 'correct horse battery staple';
      const a = await createUser(h.db, { email: `Hash-A-${Date.now()}@Example.com`, password, tier: 'pro' });
      const b = await createUser(h.db, { email: `hash-b-${Date.now()}@example.com`, password, tier: 'pro' });
      const row = await h.db.prisma.user.findUniqueOrThrow({ where: { id: a.id } });
      expect(row.email).toBe(a.email.toLowerCase());
      expect(row.passwordHash).not.toContain(password);
      expect(row.passwordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
      expect(row.passwordHash).not.toBe(b.passwordHash);
      expect(await verifyPassword(password, row.passwordHash)).toBe(true);
      expect(await verifyPassword('correct horse battery stapler', row.passwordHash)).toBe(false);
      const r = await loginRequest(h.app, a.email, password);
      expect(r.status).toBe(200);
    });

    it('disableUser: login fails, and an access token and API key stop working within the cache window', async () => {
      // the caller cache reads its clock from Date.now() (auth/caller.ts): the test moves that clock
      // past AUTH_CACHE_SECONDS rather than waiting it out
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const app = h.appWith({ AUTH_CACHE_SECONDS: '1' });
        const u = await freshUser(h.db, 'pro');
        const { access } = await login(app, u.email, u.password);
        const { key } = await createApiKey(h.db, u.id, 'to be disabled', h.config.auth.apiKeysPerUser);
        expect((await validateRequest(app, bearer(access))).status).toBe(200);
        expect((await validateRequest(app, { 'x-api-key': key })).status).toBe(200);

        await disableUser(h.db, u.email);
        const again = await loginRequest(app, u.email, u.password);
        expectRestError(again, 401, 'UNAUTHENTICATED', 'invalid email or password');
        vi.advanceTimersByTime(1001);
        expectRestError(await validateRequest(app, bearer(access)), 401, 'UNAUTHENTICATED', SESSION_ENDED);
        expectRestError(
          await validateRequest(app, { 'x-api-key': key }),
          401,
          'UNAUTHENTICATED',
          'the API key is not valid',
        );
        // a fresh instance (no cache at all) refuses at once
        const fresh = h.appWith({});
        expectRestError(await validateRequest(fresh, accessCookie(access)), 401, 'UNAUTHENTICATED', SESSION_ENDED);
        expectRestError(
          await validateRequest(fresh, {}, `?apikey=${key}`),
          401,
          'UNAUTHENTICATED',
          'the API key is not valid',
        );
      } finally {
        vi.useRealTimers();
      }
    });
  });
});

describe('production configuration of the signing secret', () => {
  it('refuses to start in production without JWT_SECRET, naming it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: '' })).toThrow(
      /JWT_SECRET is required in production/,
    );
  });

  it('refuses a JWT_SECRET shorter than 32 characters, in any environment', () => {
    const short = randomBytes(23).toString('base64').slice(0, 31);
    for (const NODE_ENV of ['production', 'development', 'test']) {
      expect(() => loadConfig({ NODE_ENV, JWT_SECRET: short })).toThrow(ConfigError);
      expect(() => loadConfig({ NODE_ENV, JWT_SECRET: short })).toThrow(
        /^JWT_SECRET must be at least 32 characters; got 31 \(generate one with: openssl rand -base64 32\)$/,
      );
    }
  });

  it('refuses a long JWT_SECRET without entropy (35 spaces, one character or one word repeated), in any environment', () => {
    const weak = [
      ' '.repeat(35),
      'a'.repeat(64),
      'password'.repeat(6),
      `${'password'.repeat(6)}1`,
      'correcthorsebatterystaple'.repeat(2),
      '0123456789abcdef'.repeat(4),
    ];
    for (const secret of weak) {
      expect(estimatedSecretBits(secret), JSON.stringify(secret)).toBeLessThan(128);
      for (const NODE_ENV of ['production', 'development', 'test']) {
        expect(() => loadConfig({ NODE_ENV, JWT_SECRET: secret })).toThrow(ConfigError);
        expect(() => loadConfig({ NODE_ENV, JWT_SECRET: secret })).toThrow(
          /^JWT_SECRET must be random \(at least 32 characters and an estimated 128 bits of entropy\); this one carries about \d+ bits: .*openssl rand -base64 32$/,
        );
      }
    }
    expect(() => loadConfig({ JWT_SECRET: ' '.repeat(35) })).toThrow('this one carries about 0 bits');
  });

  it('accepts what `openssl rand -base64 32` and `openssl rand -hex 32` print, and the secrets of the tests and benchmarks', () => {
    for (let i = 0; i < 200; i++) {
      for (const secret of [
        randomBytes(32).toString('base64'),
        randomBytes(32).toString('hex'),
        randomBytes(48).toString('base64url'),
      ]) {
        expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret }).auth.jwtSecret).toBe(secret);
      }
    }
    for (const secret of [TEST_JWT_SECRET, BENCH_JWT_SECRET])
      expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret }).auth.jwtSecret).toBe(secret);
  });

  it('in development, withSigningSecret creates <dataDir>/jwt-secret with mode 0600 once and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-secret-'));
    try {
      const dataDir = path.join(dir, 'data');
      const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
      expect(config.auth.jwtSecret).toBeUndefined();
      const first = withSigningSecret(config);
      const file = path.join(dataDir, 'jwt-secret');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(first.auth.jwtSecret!.length).toBeGreaterThanOrEqual(32);
      expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.auth.jwtSecret);
      const mtime = fs.statSync(file).mtimeMs;
      const second = withSigningSecret(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }));
      expect(second.auth.jwtSecret).toBe(first.auth.jwtSecret);
      expect(fs.statSync(file).mtimeMs).toBe(mtime);
      // a configured secret wins and no file is written
      const other = path.join(dir, 'other');
      const configured = withSigningSecret(
        loadConfig({ NODE_ENV: 'development', DATA_DIR: other, JWT_SECRET: TEST_JWT_SECRET }),
      );
      expect(configured.auth.jwtSecret).toBe(TEST_JWT_SECRET);
      expect(fs.existsSync(path.join(other, 'jwt-secret'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
