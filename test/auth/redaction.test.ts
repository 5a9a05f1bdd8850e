import { format } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { Db } from '../../src/db/client.js';
import { createLogger } from '../../src/observability/log.js';
import { createApiKey } from '../../src/services/account.js';
import { ACCESS, authHarness, BASE, expectSessionCookies, freshUser, REFRESH, type AuthHarness } from './helpers.js';
import { TEST_JWT_SECRET, testConfig, testDatabases } from '../helpers.js';

/**
 * Secrets (passwords, API keys, tokens, the signing secret) never reach a log line: everything
 * written to console.* and to process.stdout/stderr is captured while requests carrying them run,
 * against a test app, a development app (Yoga logs at info and unmasks errors) and a development
 * app whose database fails (so the error paths log stacks).
 */
const PASSWORD = 'Pw-9f2c-UNIQUE-SECRET-kq71';
const WRONG_PASSWORD = 'Wrong-Pw-3b8e-UNIQUE-SECRET';
const WRONG_KEY = 'mdg_WRONGKEY_4c1d_unique_secret_value';
const METRICS_TOKEN = 'metrics-token-7e2a-UNIQUE-SECRET';

/** What console writes for these arguments (util.format), plus each Error's cause chain and JSON form. */
function render(args: unknown[]): string {
  const extra: string[] = [];
  for (const a of args) {
    for (
      let e: unknown = a, depth = 0;
      e instanceof Error && depth < 5;
      e = (e as { originalError?: unknown; cause?: unknown }).originalError ?? e.cause, depth++
    ) {
      extra.push(String(e.stack), JSON.stringify(e));
    }
  }
  return [format(...args), ...extra].join('\n');
}

/** A database whose every query fails, as when the server cannot reach it. */
function brokenDb(db: Db): Db {
  const failing = (model: string) =>
    new Proxy({}, { get: (_t, op) => () => Promise.reject(new Error(`database down (${model}.${String(op)})`)) });
  return { ...db, prisma: new Proxy({}, { get: (_t, model) => failing(String(model)) }) } as unknown as Db;
}

describe.each(testDatabases())('no secrets in logs on $name', (tdb) => {
  let h: AuthHarness;
  const captured: string[] = [];
  beforeAll(async () => {
    h = await authHarness(tdb);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  function capture(): void {
    captured.length = 0;
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        captured.push(`console.${method}: ${render(args)}`);
      });
    }
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
        captured.push(chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk));
        return true;
      }) as typeof stream.write);
    }
  }

  it('requests with passwords, API keys and tokens, failing ones included, log none of them', async () => {
    const user = await freshUser(h.db, 'pro', PASSWORD);
    const { key } = await createApiKey(h.db, user.id, 'redaction', h.config.auth.apiKeysPerUser);
    const secrets = new Set<string>([PASSWORD, WRONG_PASSWORD, WRONG_KEY, key, TEST_JWT_SECRET]);
    secrets.add(METRICS_TOKEN);
    const base = testConfig(
      h.config.database,
      {},
      { LOGIN_LIMIT_PER_EMAIL: '100000', LOGIN_LIMIT_PER_IP: '100000', METRICS_TOKEN },
    );
    const dev = testConfig(
      h.config.database,
      {},
      { NODE_ENV: 'development', LOGIN_LIMIT_PER_EMAIL: '100000', LOGIN_LIMIT_PER_IP: '100000', METRICS_TOKEN },
    );
    // the JSON log lines (pino) of each app, at the most talkative level, go where console's do
    const logger = createLogger('trace', { write: (line: string) => void captured.push(`pino: ${line}`) });
    const apps: [string, App][] = [
      ['test', createApp({ config: base, db: h.db, logger })],
      ['development', createApp({ config: dev, db: h.db, logger })],
      ['development, database down', createApp({ config: dev, db: brokenDb(h.db), logger })],
    ];
    const errorBodies: string[] = [];

    capture();
    // tokens from a working app, replayed against every app
    const first = await apps[0]![1].fetch(`${BASE}/kms/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    const tokens = expectSessionCookies(first);
    secrets.add(tokens.access).add(tokens.refresh);
    const tampered = `${tokens.access.slice(0, -4)}AAAA`;
    secrets.add(tampered);

    for (const [, app] of apps) {
      const send = async (path: string, init: RequestInit = {}) => {
        const res = await app.fetch(BASE + path, init);
        const text = await res.text();
        for (const c of res.headers.getSetCookie()) {
          const v = c.split(';')[0]!.split('=').slice(1).join('=');
          if (v) secrets.add(v);
        }
        if (res.status >= 400 || text.includes('"errors"')) errorBodies.push(text);
        return text;
      };
      const jsonPost = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        send(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });

      // logins: right, wrong, malformed, wrong content type, GraphQL (variables and inline), invalid GraphQL
      await jsonPost('/kms/api/v1/auth/token', { email: user.email, password: PASSWORD });
      await jsonPost('/kms/api/v1/auth/token', { email: user.email, password: WRONG_PASSWORD });
      await jsonPost('/kms/api/v1/auth/token', { email: 'nobody@example.com', password: WRONG_PASSWORD });
      await send('/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"email": "${user.email}", "password": "${PASSWORD}"`,
      });
      await send('/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ email: user.email, password: PASSWORD }),
      });
      const LOGIN = 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { message } }';
      await jsonPost('/graphql', { query: LOGIN, variables: { e: user.email, p: PASSWORD } });
      await jsonPost('/graphql', { query: LOGIN, variables: { e: user.email, p: WRONG_PASSWORD } });
      await jsonPost('/graphql', {
        query: `mutation { login(email: "${user.email}", password: "${WRONG_PASSWORD}") { message } }`,
      });
      await jsonPost('/graphql', {
        query: `mutation { login(email: "${user.email}", password: "${PASSWORD}") { message noSuchField } }`,
      });
      await jsonPost('/graphql', { query: LOGIN, variables: { e: user.email, p: 42 } });
      await jsonPost('/graphql', {
        query: `mutation { login(email: "${user.email}", password: "${PASSWORD}" { message } }`,
      });

      // API keys: right and wrong, as parameter and header, REST and GraphQL
      await send(`/kms/api/v1/auth/validate?apikey=${key}`);
      await send('/kms/api/v1/auth/validate', { headers: { 'x-api-key': key } });
      await send(`/kms/api/v1/auth/validate?apikey=${WRONG_KEY}`);
      await send('/kms/api/v1/auth/validate', { headers: { 'x-api-key': WRONG_KEY } });
      await jsonPost(`/graphql?apikey=${key}`, { query: '{ me { email } }' });
      await jsonPost('/graphql', { query: '{ me { email } }' }, { 'x-api-key': WRONG_KEY });
      await send(`/graphql?${new URLSearchParams({ apikey: key, query: '{ me { email } nope }' })}`, {
        headers: { accept: 'application/json' },
      });
      // key management needs a session; an API key is refused (and that refusal is logged too)
      await jsonPost(
        '/graphql',
        { query: 'mutation { createApiKey(name: "by a key") { key } }' },
        { 'x-api-key': key },
      );
      // a session of its own: the refresh replay below revokes the first one
      const own = expectSessionCookies(
        await apps[0]![1].fetch(`${BASE}/kms/api/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: user.email, password: PASSWORD }),
        }),
      );
      secrets.add(own.access).add(own.refresh);
      const created = JSON.parse(
        await jsonPost(
          '/graphql',
          { query: 'mutation { createApiKey(name: "logged?") { key } }' },
          { authorization: `Bearer ${own.access}` },
        ),
      );
      if (created.data) secrets.add(created.data.createApiKey.key);
      await jsonPost(
        '/graphql',
        { query: 'mutation { revokeApiKey(keyId: "no-such-key-id") { keyId } }' },
        { authorization: `Bearer ${own.access}` },
      );

      // tokens: Bearer, cookie, tampered, refresh as access, refresh, reuse, logout
      await send('/kms/api/v1/auth/validate', { headers: { authorization: `Bearer ${tokens.access}` } });
      await send('/kms/api/v1/auth/validate', { headers: { authorization: `Bearer ${tampered}` } });
      await send('/kms/api/v1/auth/validate', { headers: { authorization: `Bearer ${tokens.refresh}` } });
      await send('/kms/api/v1/auth/validate', {
        headers: { authorization: `Basic ${Buffer.from(`${user.email}:${PASSWORD}`).toString('base64')}` },
      });
      await jsonPost('/graphql', { query: '{ me { email } }' }, { cookie: `${ACCESS}=${tokens.access}` });
      await jsonPost('/graphql', { query: '{ me { email } }' }, { cookie: `${ACCESS}=${tampered}` });
      await send(`/graphql?${new URLSearchParams({ query: '{ me { email } }' })}`, {
        headers: { cookie: `${ACCESS}=${tokens.access}` },
      });
      await send('/kms/api/v1/auth/refresh', { method: 'POST', headers: { cookie: `${REFRESH}=${tokens.refresh}` } });
      await send('/kms/api/v1/auth/refresh', { method: 'POST', headers: { cookie: `${REFRESH}=${tokens.refresh}` } });
      await send('/kms/api/v1/auth/refresh', { method: 'POST', headers: { cookie: `${REFRESH}=${tokens.access}` } });
      await jsonPost(
        '/graphql',
        { query: 'mutation { refreshSession { message } }' },
        { cookie: `${REFRESH}=${tokens.refresh}` },
      );
      await send('/kms/api/v1/auth/logout', {
        method: 'POST',
        headers: { cookie: `${ACCESS}=${tokens.access}; ${REFRESH}=${tokens.refresh}` },
      });

      // the metrics token, right and wrong
      await send('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      await send('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}X` } });
    }
    vi.restoreAllMocks();
    // new keys and tokens were issued along the way (and are checked like the others)
    expect([...secrets].filter((s) => s.startsWith('mdg_')).length).toBeGreaterThanOrEqual(4);
    expect(secrets.size).toBeGreaterThan(10);

    // the capture works: the failing database was logged (by our handler and by Yoga in development)
    expect(captured.some((line) => line.includes('database down'))).toBe(true);
    // ... and pino wrote a JSON request line for each request, failing ones with their code
    const requestLines = captured
      .filter((l) => l.startsWith('pino: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>)
      .filter((l) => 'status' in l);
    expect(
      requestLines.some(
        (l) =>
          l.route === '/kms/api/v1/auth/token' && l.status === 401 && (l.codes as string[]).includes('UNAUTHENTICATED'),
      ),
    ).toBe(true);
    expect(requestLines.some((l) => l.route === '/graphql' && typeof l.caller === 'string' && l.status === 200)).toBe(
      true,
    );
    expect(
      requestLines.some(
        (l) =>
          l.level === 'error' &&
          (l.codes as string[] | undefined)?.includes('INTERNAL') &&
          String((l.err as { message?: string })?.message).includes('database down'),
      ),
    ).toBe(true);
    const leaks: string[] = [];
    for (const secret of secrets) {
      // the whole secret, and any 16-character piece of it (a truncated token is a leak too)
      const pieces = [
        secret,
        ...Array.from({ length: Math.max(0, secret.length - 15) }, (_, i) => secret.slice(i, i + 16)),
      ];
      for (const line of captured) {
        const piece = pieces.find((p) => line.includes(p));
        if (piece) leaks.push(`${JSON.stringify(piece)} in: ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);

    // error bodies do not echo a presented credential either
    const echoed = errorBodies.filter((b) =>
      [key, WRONG_KEY, tokens.access, tokens.refresh, tampered, TEST_JWT_SECRET].some((s) => b.includes(s)),
    );
    expect(echoed).toEqual([]);
  });
});
