import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openCluster, type Cluster } from '../../src/db/embedded.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { createLogger } from '../../src/observability/log.js';
import { authHarness, BASE, type AuthHarness } from '../auth/helpers.js';
import { TEST_CLUSTER } from '../global-setup.js';

/**
 * A database outage and its recovery, on an embedded PostgreSQL cluster of this test's own
 * (started, stopped and started again), never the run's that the other test files use meanwhile.
 */

describe('which failures mean "the database is unavailable"', () => {
  it('recognizes the errors Prisma, its adapters and pg give for an unreachable database, and nothing else', () => {
    const adapterError = (cause: object) =>
      Object.assign(new Error('Invalid `prisma.x.findMany()` invocation'), {
        code: 'P2010',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause } },
      });
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P1001' }))).toBe(true);
    expect(isDatabaseUnavailable(adapterError({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5 }))).toBe(
      true,
    );
    expect(
      isDatabaseUnavailable(
        adapterError({
          kind: 'postgres',
          code: '57P01',
          message: 'terminating connection due to administrator command',
        }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(adapterError({ kind: 'SocketTimeout' }))).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
          code: 'ECONNREFUSED',
          syscall: 'connect',
          errno: -111,
        }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isDatabaseUnavailable(new Error('wrapper', { cause: new Error('timeout exceeded when trying to connect') })),
    ).toBe(true);

    expect(
      isDatabaseUnavailable(adapterError({ kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } })),
    ).toBe(false);
    expect(
      isDatabaseUnavailable(adapterError({ kind: 'postgres', code: '42601', message: 'syntax error at or near "x"' })),
    ).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('database outage and recovery without a restart, on a throwaway PostgreSQL cluster', () => {
  // an embedded cluster of this test's own (db/embedded.ts), never the run's that other files use
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-outage-'));
  fs.chmodSync(dir, 0o755); // as root, the cluster's user (postgres) must reach it
  let cluster: Cluster;
  let h: AuthHarness;
  let app: App;
  const logLines: string[] = [];
  const start = () => openCluster({ embedded: dir }, () => {}, TEST_CLUSTER);

  beforeAll(async () => {
    cluster = await start();
    h = await authHarness({ name: 'postgresql', create: async () => cluster.database, cleanup: async () => {} });
    app = createApp({
      config: h.config,
      db: h.db,
      logger: createLogger('info', { write: (line: string) => void logLines.push(line) }),
    });
  }, 120_000);

  afterAll(async () => {
    await h?.close().catch(() => {});
    await cluster?.release({ force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  async function rest(key = 'demo-free') {
    const res = await app.fetch(`${BASE}/rating/api/v1/ratings?symbol=NVLX`, { headers: { 'x-api-key': key } });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Record<string, unknown>,
    };
  }
  async function graphql(key = 'demo-free') {
    // ratings are not reference data: never answered from the response cache
    const res = await app.fetch(`${BASE}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: 'query Ratings { ratings(first: 1) { nodes { firm } } }' }),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] },
    };
  }
  const readyz = async () => (await app.fetch(`${BASE}/readyz`)).status;

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After while the cluster is stopped, and 200 again once it is back', async () => {
    expect((await rest()).status).toBe(200);
    expect((await graphql()).status).toBe(200);
    expect(await readyz()).toBe(200);

    await cluster.release({ force: true });
    // twice each: the pool's dropped connections first, then refused new ones
    for (let i = 0; i < 2; i++) {
      const r = await rest();
      expect(r.status).toBe(503);
      expect(r.retryAfter).toBe('5');
      expect(r.body).toMatchObject({
        status: 'ERROR',
        code: 'DATABASE_UNAVAILABLE',
        message: expect.stringContaining('database is unavailable'),
        request_id: expect.any(String),
      });

      const g = await graphql();
      expect(g.status).toBe(503);
      expect(g.retryAfter).toBe('5');
      expect(g.body.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
      expect(g.body.errors?.[0]?.message).toMatch(/database is unavailable/);
    }
    // a key not seen before: failing already at the key lookup, before any resolver
    const unknownCaller = await graphql('demo-pro');
    expect(unknownCaller.status).toBe(503);
    expect(unknownCaller.body.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
    expect((await rest('demo-enterprise')).body).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(await readyz()).toBe(503);
    const metrics = await (await app.fetch(`${BASE}/metrics`)).text();
    expect(metrics).toMatch(/^mdg_errors_total\{code="DATABASE_UNAVAILABLE"\} [1-9]/m);
    // logged as a warning with its code and the driver's reason, not as an internal error with a stack
    const outage = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.status === 503 && l.route !== '/readyz');
    expect(outage.length).toBeGreaterThanOrEqual(5);
    for (const l of outage) expect(l).toMatchObject({ level: 'warn', codes: ['DATABASE_UNAVAILABLE'] });
    expect(outage.some((l) => /reach database server|ECONNREFUSED|terminat/i.test(String(l.cause)))).toBe(true);
    expect(logLines.join('\n')).not.toMatch(/"level":"error"/);

    // on the port it had (db/embedded.ts keeps it): the same app, the same pool opens fresh connections
    const again = await start();
    expect(again.database.url).toBe(cluster.database.url);
    const t0 = Date.now();
    while ((await readyz()) !== 200 && Date.now() - t0 < 20_000) await sleep(250);
    expect(await readyz()).toBe(200);
    expect((await rest()).status).toBe(200);
    expect((await rest('demo-enterprise')).status).toBe(200);
    const g = await graphql('demo-pro');
    expect(g.status).toBe(200);
    expect(g.body.errors).toBeUndefined();
  }, 120_000);
});
