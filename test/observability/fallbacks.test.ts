// Every fallback the gateway keeps is on /metrics as mdg_fallback_total{path,reason}
// (src/observability/fallbacks.ts): the planner leaving a query to graphql-js, a request's reads
// sent alone instead of combined, a POST the direct way does not take. An expected
// fallback is counted and logs nothing; one that fell back on something thrown is counted as
// `error` and logged at error level with the request's id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { directListener } from '../../src/http/direct.js';
import { FALLBACK_REASONS } from '../../src/observability/fallbacks.js';
import { createLogger } from '../../src/observability/log.js';
import { testConfig, testDatabases } from '../helpers.js';

const BASE = 'http://test';

/** mdg_fallback_total{path,reason} as /metrics shows it. */
async function fallbacks(app: App): Promise<Record<string, number>> {
  const res = await app.fetch(`${BASE}/metrics`);
  expect(res.status).toBe(200);
  const out: Record<string, number> = {};
  for (const m of (await res.text()).matchAll(/^mdg_fallback_total\{path="(\w+)",reason="(\w+)"\} (\S+)$/gm))
    out[`${m[1]}/${m[2]}`] = Number(m[3]);
  return out;
}

/** What `fn` added to each series that moved. */
async function moved(app: App, fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await fallbacks(app);
  await fn();
  const after = await fallbacks(app);
  return Object.fromEntries(
    Object.entries(after).flatMap(([k, v]) => (v !== before[k] ? [[k, v - (before[k] ?? 0)]] : [])),
  );
}

describe.each(testDatabases())('fallbacks on $name', (tdb) => {
  let db: Db;
  let config: ReturnType<typeof testConfig>;
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>),
  });
  const errorLines = () => lines.filter((l) => l.level === 'error');

  beforeAll(async () => {
    const database = await tdb.createSeeded();
    config = testConfig(
      database,
      { sampleData: 'auto' },
      { RATE_LIMIT_ENTERPRISE: '1000000', AUTH_CACHE_SECONDS: '3600', RESPONSE_CACHE_TTL_SECONDS: '0' },
    );
    db = await openDatabase(config);
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  const post = (app: App, query: string, requestId = 'req-fallback') =>
    app.fetch(`${BASE}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise', 'x-request-id': requestId },
      body: JSON.stringify({ query }),
    });
  const ok = async (app: App, query: string, requestId?: string) => {
    const res = await post(app, query, requestId);
    const body = (await res.json()) as { data?: unknown; errors?: unknown };
    expect(res.status).toBe(200);
    expect(body.errors).toBeUndefined();
    return body.data;
  };

  it('every path and reason is on /metrics from the first scrape, at 0', async () => {
    const app = createApp({ config, db, logger });
    const all = await fallbacks(app);
    expect(Object.keys(all).sort()).toEqual(
      Object.entries(FALLBACK_REASONS)
        .flatMap(([path, reasons]) => reasons.map((r) => `${path}/${r}`))
        .sort(),
    );
    expect(Object.values(all).every((n) => n === 0)).toBe(true);
  });

  it('a POST /graphql the direct way does not take goes through the fetch adapter, counted by why', async () => {
    const app = createApp({ config, db, logger });
    // as server.ts listens
    const server = http.createServer(
      directListener({
        fallback: app,
        handle: app.direct,
        RequestClass: app.socket.yoga.fetchAPI.Request,
        fellBack: (r) => app.fallbacks.record('direct', r),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
      const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' };
      const body = JSON.stringify({ query: '{ __typename }' });
      expect(
        await moved(app, async () => expect((await fetch(url, { method: 'POST', headers, body })).status).toBe(200)),
      ).toEqual({});
      const conditional = { ...headers, 'if-none-match': '"x"' };
      expect(
        await moved(app, async () =>
          expect((await fetch(url, { method: 'POST', headers: conditional, body })).status).toBe(200),
        ),
      ).toEqual({ 'direct/conditional': 1 });
      expect(
        await moved(app, async () =>
          expect((await fetch(`${url}?x=1`, { method: 'POST', headers, body })).status).toBe(200),
        ),
      ).toEqual({ 'direct/query_string': 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a document the planner does not plan (totalCount, a Relay id) falls back with not_plannable, and logs no error', async () => {
    const app = createApp({ config, db, logger });
    const planned = '{ securities(search: "N", first: 2) { nodes { symbol name } } }';
    await ok(app, planned);
    expect(await moved(app, () => ok(app, planned))).toEqual({});
    // the resolvers' reads may count as combined/unlearned on their first run: only the planner's series is asked
    expect(
      await moved(app, () => ok(app, '{ securities(search: "N", first: 2) { totalCount nodes { symbol } } }')),
    ).toMatchObject({ 'planner/not_plannable': 1 });
    expect(
      await moved(app, () => ok(app, '{ securities(search: "N", first: 2) { nodes { id symbol } } }')),
    ).toMatchObject({ 'planner/not_plannable': 1 });
    expect(errorLines()).toEqual([]);
  });

  it('a failed read of the planned statement falls back with error, logged with the request id; graphql-js still answers', async () => {
    // the planned statement reads the page as one tree (src/db/tree.ts): `SELECT … AS "tree"`
    const failing = Object.create(db, {
      forRequest: {
        value: (fellBack: Parameters<Db['forRequest']>[0]) => {
          const own = db.forRequest(fellBack);
          const read: Db['read'] = (sql, params) =>
            sql.endsWith('AS "tree"') ? Promise.reject(new Error('injected read failure')) : own.read(sql, params);
          return Object.create(own, { read: { value: read } }) as Db;
        },
      },
    }) as Db;
    const app = createApp({ config, db: failing, logger });
    const query = '{ securities(search: "N", first: 2) { nodes { symbol name } } }';
    const expected = await ok(createApp({ config, db }), query);
    let data: unknown;
    const counted = await moved(app, async () => (data = await ok(app, query, 'req-injected-1')));
    expect(counted['planner/error']).toBe(1);
    expect(Object.keys(counted).filter((k) => k.startsWith('planner/'))).toEqual(['planner/error']);
    expect(data).toEqual(expected);
    const logged = errorLines();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      requestId: 'req-injected-1',
      fallback: { path: 'planner', reason: 'error' },
      err: { message: 'injected read failure' },
    });
    lines.length = 0;
  });

  it('reads of one turn sent alone until a standalone run taught their columns count as combined/unlearned, then stop', async () => {
    // a fresh Db: no read of it has been taught yet; the planner off, so the resolvers' reads go out
    const fresh = await openDatabase(config);
    try {
      const app = createApp({
        config: testConfig(
          config.database,
          { sampleData: 'auto' },
          {
            RATE_LIMIT_ENTERPRISE: '1000000',
            AUTH_CACHE_SECONDS: '3600',
            RESPONSE_CACHE_TTL_SECONDS: '0',
            GRAPHQL_PLANNED: 'false',
          },
        ),
        db: fresh,
        logger,
      });
      const query =
        '{ securities(search: "N", first: 3) { nodes { symbol ratings(first: 1) { nodes { firm } } news(first: 1) { nodes { headline } } } } }';
      await ok(app, '{ me { userId } }'); // the key's lookup
      const first = await moved(app, () => ok(app, query));
      expect(first['combined/unlearned']).toBeGreaterThan(0);
      expect(await moved(app, () => ok(app, query))).toEqual({});
      expect(errorLines()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
