// next_url is an absolute link a client follows with its key: it must point at this service, never
// wherever a request's Host (or X-Forwarded-Host) header says. Production builds it from
// PUBLIC_URL, and serves only with one; elsewhere the request's own origin stands in.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { apiKeyPrefix, hashApiKey } from '../../src/credentials/apikeys.js';
import { checkServingConfig, loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/domain/env-values.js';
import { cheapHash } from './helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET };
/** What an attacker puts in the headers a proxy would otherwise set. */
const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

describe('PUBLIC_URL', () => {
  it('is an http(s) origin with an optional path prefix, kept without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://API.example.com:8443/market/' }).publicUrl).toBe(
      'https://api.example.com:8443/market',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:4000' }).publicUrl).toBe('http://127.0.0.1:4000');
    expect(loadConfig({}).publicUrl).toBeUndefined();
    for (const bad of [
      'api.example.com',
      'ftp://example.com',
      'https://user:pw@example.com',
      'https://example.com/?a=1',
      'https://example.com/#top',
      'https://example.com?',
      'javascript:alert(1)',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(
        /^PUBLIC_URL must be an http:\/\/ or https:\/\/ origin/,
      );
    }
  });

  it('is required to serve in production (the CLI, which serves nothing, runs without it)', () => {
    const config = loadConfig(PRODUCTION);
    expect(() => checkServingConfig(config)).toThrow(ConfigError);
    expect(() => checkServingConfig(config)).toThrow(/^PUBLIC_URL is required in production/);
    expect(() =>
      checkServingConfig(loadConfig({ ...PRODUCTION, PUBLIC_URL: 'https://api.example.com' })),
    ).not.toThrow();
    expect(() => checkServingConfig(loadConfig({}))).not.toThrow();
  });
});

describe('next_url', () => {
  const [tdb] = testDatabases();
  let h: GraphQLHarness;
  let key: string;
  beforeAll(async () => {
    h = await graphqlHarness(tdb!);
    // a key of its own: production mode serves no demo account
    key = `mdg_${randomUUID().replaceAll('-', '')}`;
    await h.db.prisma.user.create({
      data: {
        email: `u-${randomUUID()}@example.com`,
        username: 'next-url',
        passwordHash: cheapHash('long enough password'),
        tier: 'enterprise',
        apiKeys: { create: { name: 'test', prefix: apiKeyPrefix(key), hash: hashApiKey(key) } },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb!.cleanup();
  });

  const firstPage = async (app: App, path: string, headers: Record<string, string>) => {
    const res = await app.fetch(`http://${headers.host ?? 'test'}${path}`, {
      headers: { 'x-api-key': key, ...headers },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { next_url: string }).next_url;
  };

  it.each([
    '/stocks/v3/trades/NVLX?limit=1',
    '/stocks/v3/quotes/NVLX?limit=1',
    '/stocks/v1/fundamentals/balance-sheet?limit=1',
  ])(
    'in production, %s links under PUBLIC_URL whatever Host and X-Forwarded-* say, and the link works',
    async (path) => {
      const app = h.appWith({ ...PRODUCTION, PUBLIC_URL: 'https://api.example.com/market/', TRUST_PROXY: 'true' });
      const next = await firstPage(app, path, HOSTILE);
      expect(next).toMatch(
        new RegExp(`^https://api\\.example\\.com/market${path.split('?')[0]!.replaceAll('.', '\\.')}\\?cursor=[^&]+$`),
      );
      // behind the proxy that strips /market, the same path and cursor give the next page
      const res = await app.fetch(
        `http://test${new URL(next).pathname.replace(/^\/market/, '')}${new URL(next).search}`,
        { headers: { 'x-api-key': key } },
      );
      expect(res.status).toBe(200);
    },
  );

  it('in production without PUBLIC_URL, no app is built', () => {
    expect(() => h.appWith({ ...PRODUCTION, PUBLIC_URL: '' })).toThrow(/^PUBLIC_URL is required in production/);
  });

  it('outside production without PUBLIC_URL: the request origin, or X-Forwarded-* with TRUST_PROXY when they are a scheme and a host', async () => {
    expect(await firstPage(h.appWith({}), '/stocks/v3/trades/NVLX?limit=1', HOSTILE)).toMatch(
      /^http:\/\/evil\.example\/stocks\/v3\/trades\/NVLX\?cursor=/,
    );
    const proxied = h.appWith({ TRUST_PROXY: 'true' });
    expect(
      await firstPage(proxied, '/stocks/v3/trades/NVLX?limit=1', {
        host: 'internal:4000',
        'x-forwarded-host': 'api.example.com',
        'x-forwarded-proto': 'https',
      }),
    ).toMatch(/^https:\/\/api\.example\.com\/stocks\//);
    for (const [proto, host] of [
      ['javascript', 'x'],
      ['https', 'evil.example/phish?'],
      ['https', 'a@evil.example'],
    ]) {
      expect(
        await firstPage(proxied, '/stocks/v3/trades/NVLX?limit=1', {
          host: 'internal:4000',
          'x-forwarded-host': host!,
          'x-forwarded-proto': proto!,
        }),
      ).toMatch(/^http:\/\/internal:4000\/stocks\//);
    }
  });
});
