import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { expect } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { apiKeyPrefix, hashApiKey } from '../../src/credentials/apikeys.js';
import type { Config, DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { DEMO_ACCOUNTS, type Tier, type User } from '../../src/services/account.js';
import { testConfig, type TestDatabase } from '../helpers.js';

/**
 * Helpers for the HTTP-level auth suites: an app over a fresh database with the demo accounts
 * (no sample data unless asked), Set-Cookie parsing, and small request wrappers around app.fetch.
 */
export const BASE = 'http://test';
export const DEMO_PASSWORD = 'demo-password';
export const ACCESS = 'DT_AUTH_TOKEN';
export const REFRESH = 'DT_REFRESH_TOKEN';
export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface AuthHarness {
  app: App;
  db: Db;
  config: Readonly<Config & { database: DatabaseConfig }>;
  /** Another app over the same database, with other env knobs (e.g. COOKIE_SECURE=false). */
  appWith(env: Record<string, string>): App;
  close(): Promise<void>;
}

/** Login budgets high enough that a suite logging in dozens of times never meets them. */
export const RELAXED = { LOGIN_LIMIT_PER_EMAIL: '100000', LOGIN_LIMIT_PER_IP: '100000' };

/**
 * An scrypt hash in the stored format (parameters kept with each hash) with a small cost: fixtures
 * log in often, and the production cost (N=2^17) is ~250 ms of CPU per attempt. createUser's own
 * hashing is tested in auth/rest.test.ts.
 */
export function cheapHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A fresh database with the demo accounts (cheap password hashes, real API keys) and the app over it. */
export async function authHarness(
  tdb: Pick<TestDatabase, 'name' | 'create' | 'cleanup'>,
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
): Promise<AuthHarness> {
  const database = await tdb.create();
  const config = testConfig(database, overrides, { ...RELAXED, ...env });
  // what openDatabase does outside production, minus ~1 s of demo password hashing per database
  // (auth/tiers.test.ts runs the real bootstrap)
  await migrate(config.database);
  const db = await createDb(config.database);
  for (const demo of DEMO_ACCOUNTS) {
    await db.prisma.user.create({
      data: {
        email: demo.email,
        username: demo.email.split('@')[0]!,
        passwordHash: cheapHash(demo.password),
        tier: demo.tier,
        apiKeys: { create: { name: 'demo', prefix: apiKeyPrefix(demo.apiKey), hash: hashApiKey(demo.apiKey) } },
      },
    });
  }
  return {
    app: createApp({ config, db }),
    db,
    config,
    appWith: (more) => createApp({ config: testConfig(database, overrides, { ...RELAXED, ...env, ...more }), db }),
    close: () => db.close(),
  };
}

/** A user of its own (cheap password hash) for a test that changes state (disabling, revoking, budgets). */
export async function freshUser(
  db: Db,
  tier: Tier = 'free',
  password = 'fresh-password-1',
): Promise<User & { password: string }> {
  const email = `u-${randomUUID()}@example.com`;
  const user = await db.prisma.user.create({
    data: { email, username: email.split('@')[0]!, passwordHash: cheapHash(password), tier },
  });
  return { ...user, password };
}

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flags are `true`. */
  attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...attrs] = header.split(';').map((s) => s.trim());
  const eq = pair!.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const a of attrs) {
    const i = a.indexOf('=');
    if (i < 0) attributes[a.toLowerCase()] = true;
    else attributes[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
  }
  return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes };
}

/** The Set-Cookie headers of a response, by cookie name (each name at most once). */
export function setCookies(res: Response): Record<string, SetCookie> {
  const out: Record<string, SetCookie> = {};
  for (const header of res.headers.getSetCookie()) {
    const c = parseSetCookie(header);
    expect(out[c.name], `${c.name} is set twice`).toBeUndefined();
    out[c.name] = c;
  }
  return out;
}

/** The exact attributes of a session cookie as login and refresh set it. */
export function sessionCookieAttributes(maxAge: number, secure = true): Record<string, string | true> {
  return { 'max-age': String(maxAge), path: '/', httponly: true, samesite: 'Lax', ...(secure ? { secure: true } : {}) };
}

/** The exact attributes of a cleared session cookie (logout). */
export function clearedCookieAttributes(secure = true): Record<string, string | true> {
  return {
    'max-age': '0',
    expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
    path: '/',
    httponly: true,
    samesite: 'Lax',
    ...(secure ? { secure: true } : {}),
  };
}

/** Both session cookies with the exact attributes of login/refresh; returns the two tokens. */
export function expectSessionCookies(res: Response, secure = true): { access: string; refresh: string } {
  const cookies = setCookies(res);
  expect(Object.keys(cookies).sort()).toEqual([ACCESS, REFRESH]);
  expect(cookies[ACCESS]).toEqual({
    name: ACCESS,
    value: expect.stringMatching(JWT_SHAPE),
    attributes: sessionCookieAttributes(3600, secure),
  });
  expect(cookies[REFRESH]).toEqual({
    name: REFRESH,
    value: expect.stringMatching(JWT_SHAPE),
    attributes: sessionCookieAttributes(2592000, secure),
  });
  return { access: cookies[ACCESS]!.value, refresh: cookies[REFRESH]!.value };
}

export function expectClearedCookies(res: Response, secure = true): void {
  const cookies = setCookies(res);
  expect(Object.keys(cookies).sort()).toEqual([ACCESS, REFRESH]);
  for (const name of [ACCESS, REFRESH])
    expect(cookies[name]).toEqual({ name, value: '', attributes: clearedCookieAttributes(secure) });
}

export interface JsonResponse<T = any> {
  res: Response;
  status: number;
  body: T;
}

async function jsonOf<T>(res: Response): Promise<JsonResponse<T>> {
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { res, status: res.status, body };
}

/**
 * A request through app.fetch. A GraphQL answer that was executed (it holds `data`; an error of the
 * whole operation may too) must say what it cost (src/graphql/guard.ts): checked here, for every
 * such answer of these tests, then left out of the body returned, so each test compares what it is
 * about (test/graphql/cost-answers.test.ts checks the numbers).
 */
export async function call<T = any>(app: App, path: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  const r = await jsonOf<T>(await app.fetch(BASE + path, init));
  return path.startsWith('/graphql') ? withoutCost(r) : r;
}

function withoutCost<T>(r: JsonResponse<T>): JsonResponse<T> {
  const body = r.body as { data?: unknown; extensions?: { cost?: unknown } } | null;
  if (body === null || typeof body !== 'object' || !('data' in body || body.extensions?.cost)) return r;
  const { extensions, ...rest } = body;
  expect(extensions?.cost, `extensions.cost of ${JSON.stringify(body)}`).toEqual({
    requested: expect.any(Number),
    limit: expect.any(Number),
  });
  const { cost: _checked, ...others } = extensions!;
  return { ...r, body: (Object.keys(others).length ? { ...rest, extensions: others } : rest) as T };
}

export function loginRequest(
  app: App,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return call(app, '/kms/api/v1/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });
}

/** Logs in over REST and returns the two tokens (asserting success). */
export async function login(
  app: App,
  email: string,
  password = DEMO_PASSWORD,
): Promise<{ access: string; refresh: string }> {
  const r = await loginRequest(app, email, password);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return expectSessionCookies(r.res);
}

export function refreshRequest(app: App, refreshToken?: string, extraCookie = ''): Promise<JsonResponse> {
  const cookie = [refreshToken !== undefined ? `${REFRESH}=${refreshToken}` : '', extraCookie]
    .filter(Boolean)
    .join('; ');
  return call(app, '/kms/api/v1/auth/refresh', { method: 'POST', headers: cookie ? { cookie } : {} });
}

export function validateRequest(app: App, headers: Record<string, string> = {}, query = ''): Promise<JsonResponse> {
  return call(app, `/kms/api/v1/auth/validate${query}`, { headers });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const accessCookie = (token: string) => ({ cookie: `${ACCESS}=${token}` });

/** POST /graphql with a JSON body. */
export function gqlRequest<T = any>(
  app: App,
  query: string,
  headers: Record<string, string> = {},
  variables?: Record<string, unknown>,
  path = '/graphql',
): Promise<JsonResponse<T>> {
  return call<T>(app, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

/** The body without its request id, for comparing two error bodies. */
export function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _ignored, ...rest } = body;
  return rest;
}

/** The REST error body (docs/rest.md#error-bodies-and-status-codes); the request id is the one of the X-Request-Id header. */
export function expectRestError(r: JsonResponse, status: number, code: string, message: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toEqual({
    status: 'ERROR',
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    request_id: r.res.headers.get('x-request-id'),
  });
}

/** A whole-request GraphQL failure: the HTTP status of REST and a GraphQL-shaped body with one coded error. */
export function expectGraphQLRequestError(
  r: JsonResponse,
  status: number,
  code: string,
  message: string | RegExp,
): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toEqual({
    errors: [{ message: typeof message === 'string' ? message : expect.stringMatching(message), extensions: { code } }],
  });
}

export const UNAUTHENTICATED_BODY = { status: 'ERROR', code: 'UNAUTHENTICATED' };
