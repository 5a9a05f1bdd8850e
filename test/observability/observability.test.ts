import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createLogger } from '../../src/observability/log.js';
import { MAX_OPERATION_LABELS } from '../../src/observability/request-log.js';
import { createTracing } from '../../src/observability/tracing.js';
import { authHarness, BASE, DEMO_PASSWORD, type AuthHarness } from '../auth/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';

/** The value of the sample `name{labels…}` whose labels include all of `labels` (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

async function scrape(app: App, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.fetch(`${BASE}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

const gql = (app: App, query: string, headers: Record<string, string> = {}) =>
  app.fetch(`${BASE}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

describe.each(testDatabases())('observability on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('/metrics counts a REST request by its route template and a GraphQL request by its operation name', async () => {
    const app = createApp({ config: h.config, db: h.db });
    const before = await scrape(app);
    const rest = await app.fetch(`${BASE}/stocks/v3/trades/NOSUCH?limit=1`, { headers: { 'x-api-key': 'demo-pro' } });
    expect(rest.status).toBe(404);
    const logos = await app.fetch(`${BASE}/api/v1/logos?symbols=NVLX`, { headers: { 'x-api-key': 'demo-free' } });
    expect(logos.status).toBe(200);
    const graphql = await gql(app, 'query LogoList { logos(first: 1) { nodes { symbol } } }', {
      'x-api-key': 'demo-free',
    });
    expect(graphql.status).toBe(200);
    const denied = await gql(app, 'query Denied { trades(symbol: "NVLX", first: 1) { nodes { price } } }', {
      'x-api-key': 'demo-free',
    });
    expect(((await denied.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'FORBIDDEN',
    );
    const after = await scrape(app);

    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    // the template, not the raw URL: one series for every symbol
    expect(delta('mdg_http_requests_total', { method: 'GET', route: '/stocks/v3/trades/:symbol', status: '404' })).toBe(
      1,
    );
    expect(after).not.toContain('NOSUCH');
    expect(
      delta('mdg_http_requests_total', { method: 'GET', route: '/api/v1/logos', operation: '', status: '200' }),
    ).toBe(1);
    expect(delta('mdg_http_request_duration_seconds_count', { route: '/api/v1/logos', status: '200' })).toBe(1);
    expect(
      delta('mdg_http_requests_total', { method: 'POST', route: '/graphql', operation: 'LogoList', status: '200' }),
    ).toBe(1);
    expect(delta('mdg_http_request_duration_seconds_count', { route: '/graphql', operation: 'LogoList' })).toBe(1);
    expect(delta('mdg_http_requests_total', { route: '/graphql', operation: 'Denied', status: '200' })).toBe(1);
    expect(delta('mdg_errors_total', { code: 'FORBIDDEN' })).toBe(1);
    expect(delta('mdg_errors_total', { code: 'NOT_FOUND' })).toBe(1);
    // the first scrape itself was counted too
    expect(sample(after, 'mdg_http_requests_total', { route: '/metrics', status: '200' })).toBe(1);

    expect(delta('mdg_db_statements_total', {})).toBeGreaterThan(0);
    expect(sample(after, 'mdg_build_info', { database: tdb.name, node_version: process.version })).toBe(1);
    expect(after).toMatch(/^mdg_ocr_queue_depth 0$/m);
    expect(after).toMatch(/^mdg_ocr_workers 0$/m);
    expect(after).toMatch(/^mdg_ocr_pixels_in_flight 0$/m);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
    expect(sample(after, 'mdg_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(after).toMatch(/^mdg_db_pool_waiting 0$/m);
  });

  it('each app has its own registry, counts 429s per budget, and caps client-chosen operation names', async () => {
    const app = createApp({ config: testConfig(h.config.database, {}, { RATE_LIMIT_FREE: '2' }), db: h.db });
    const other = createApp({ config: h.config, db: h.db });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await app.fetch(`${BASE}/api/v1/logos`, { headers: { 'x-api-key': 'demo-free' } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const text = await scrape(app);
    expect(sample(text, 'mdg_rate_limit_rejections_total', { limit: 'free' })).toBe(1);
    expect(sample(text, 'mdg_errors_total', { code: 'RATE_LIMITED' })).toBe(1);
    expect(sample(await scrape(other), 'mdg_http_requests_total', { route: '/api/v1/logos' })).toBe(0);

    // with a key: this many requests without one would meet the anonymous budget (RATE_LIMIT_ANONYMOUS)
    for (let i = 0; i < MAX_OPERATION_LABELS + 5; i++)
      await gql(other, `query Op${i} { __typename }`, { 'x-api-key': 'demo-enterprise' });
    const capped = await scrape(other);
    expect(sample(capped, 'mdg_http_requests_total', { operation: 'Op0' })).toBe(1);
    expect(sample(capped, 'mdg_http_requests_total', { operation: 'other' })).toBe(5);
    expect(capped).not.toContain(`operation="Op${MAX_OPERATION_LABELS}"`);
  });

  it('/metrics needs METRICS_TOKEN when it is set, and is refused in production without one', async () => {
    const token = 'scrape-token-0123456789';
    const guarded = createApp({ config: testConfig(h.config.database, {}, { METRICS_TOKEN: token }), db: h.db });
    const anonymous = await guarded.fetch(`${BASE}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(
      (await guarded.fetch(`${BASE}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    await scrape(guarded, { authorization: `Bearer ${token}` });

    const production = createApp({ config: testConfig(h.config.database, { nodeEnv: 'production' }), db: h.db });
    const refused = await production.fetch(`${BASE}/metrics`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('METRICS_TOKEN'),
    });
  });

  it('pretty lines are readable and keep redaction: a credential that reaches a log call is blanked in both formats', () => {
    for (const format of ['json', 'pretty'] as const) {
      const lines: string[] = [];
      const logger = createLogger('info', { write: (line: string) => void lines.push(line) }, format);
      logger.info(
        { password: 'hunter2-secret', headers: { authorization: 'Bearer abc.def' }, requestId: 'r-1' },
        'signed in',
      );
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/hunter2-secret|abc\.def/);
      expect(lines[0]).toContain('[redacted]');
      if (format === 'json')
        expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'signed in', requestId: 'r-1' });
      else expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: signed in \{.*"requestId":"r-1".*\}\n$/);
    }
  });

  it('logs one JSON line per request with its request id, caller id, operation and duration, and no credential', async () => {
    const lines: string[] = [];
    const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const app = createApp({ config: h.config, db: h.db, logger });
    const key = await h.db.prisma.apiKey.findFirstOrThrow({ where: { user: { email: 'pro@example.com' } } });

    await gql(app, 'query CompanyLogos { logos(first: 2) { nodes { symbol } } }', {
      'x-api-key': 'demo-pro',
      'x-request-id': 'req-gql-1',
    });
    await app.fetch(`${BASE}/api/v1/logos?symbols=NVLX&apikey=demo-pro&_=1700000000`, {
      headers: { 'x-request-id': 'req-rest-1' },
    });
    await gql(app, 'query Denied { trades(symbol: "NVLX", first: 1) { nodes { price } } }', {
      'x-api-key': 'demo-free',
      'x-request-id': 'req-denied',
    });
    await app.fetch(`${BASE}/api/v1/logos?apikey=demo-pro-but-wrong`, { headers: { 'x-request-id': 'req-rest-2' } });
    const login = await app.fetch(`${BASE}/kms/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-login' },
      body: JSON.stringify({ email: 'pro@example.com', password: DEMO_PASSWORD }),
    });
    const access = /DT_AUTH_TOKEN=([^;]+)/.exec(login.headers.getSetCookie().join('\n'))![1]!;
    await gql(app, '{ me { email } }', { authorization: `Bearer ${access}`, 'x-request-id': 'req-bearer' });

    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const byId = (id: string) => parsed.find((l) => l.requestId === id && 'status' in l)!;
    expect(byId('req-gql-1')).toMatchObject({
      level: 'info',
      route: '/graphql',
      operation: 'CompanyLogos',
      status: 200,
      caller: `key:${key.id}`,
      userId: key.userId,
      msg: 'POST /graphql CompanyLogos 200',
    });
    expect(byId('req-gql-1').durationMs).toEqual(expect.any(Number));
    expect(byId('req-rest-1')).toMatchObject({
      method: 'GET',
      route: '/api/v1/logos',
      path: '/api/v1/logos',
      status: 200,
      caller: `key:${key.id}`,
      // what the route set aside, as X-Ignored-Parameters names it
      ignoredParameters: '_',
    });
    expect(byId('req-rest-2')).toMatchObject({ status: 401, codes: ['UNAUTHENTICATED'] });
    expect(byId('req-rest-2')).not.toHaveProperty('caller');
    expect(byId('req-login')).toMatchObject({ route: '/kms/api/v1/auth/token', status: 200 });
    expect(byId('req-bearer')).toMatchObject({ operation: 'anonymous', caller: `user:${key.userId}` });
    for (const l of parsed) expect(typeof l.time).toBe('string');
    // Yoga's own line about the refused field carries the request id of its request; the request line stays its own
    expect(parsed.find((l) => l.requestId === 'req-denied' && l.component === 'graphql' && 'err' in l)).toMatchObject({
      level: 'debug',
      err: { message: expect.stringContaining('pro tier') },
    });
    expect(byId('req-denied')).toMatchObject({ level: 'info', operation: 'Denied', status: 200, codes: ['FORBIDDEN'] });
    expect(byId('req-denied')).not.toHaveProperty('err');
    expect(parsed.filter((l) => l.requestId === undefined && 'status' in l)).toEqual([]);

    const all = lines.join('\n');
    for (const secret of ['demo-pro', DEMO_PASSWORD, access, access.slice(-20), 'apikey'])
      expect(all).not.toContain(secret);
  });

  it('a client that disconnects during a GraphQL request is logged at info as 499 CLIENT_CLOSED_REQUEST, not as an internal error', async () => {
    const lines: string[] = [];
    const app = createApp({
      config: h.config,
      db: h.db,
      logger: createLogger('info', { write: (l: string) => void lines.push(l) }),
    });
    const query =
      '{ security(symbol: "NVLX") { symbol logo { png { url } } latestQuote { bidPrice } ratings(first: 5) { nodes { firm } } news(first: 5) { nodes { headline } } } }';
    for (let i = 0; i < 5; i++) {
      const closed = new AbortController();
      const answer = Promise.resolve(
        app.fetch(`${BASE}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro', 'x-request-id': `req-closed-${i}` },
          body: JSON.stringify({ query }),
          signal: closed.signal,
        }),
      ).catch((e: Error) => e);
      queueMicrotask(() => closed.abort()); // while the request is being handled
      await answer;
    }
    // the caller sees its own abort at once; the request's handling ends, and is logged, after
    const requestLines = () =>
      lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => String(l.requestId).startsWith('req-closed-') && 'status' in l);
    await vi.waitFor(() => expect(requestLines()).toHaveLength(5));
    const parsed = requestLines();
    expect(
      parsed.filter((l) => l.status === 499).length,
      'no request was closed mid-way: the test exercises nothing',
    ).toBeGreaterThan(0);
    for (const l of parsed.filter((x) => x.status !== 200)) {
      expect(l).toMatchObject({ level: 'info', status: 499, codes: ['CLIENT_CLOSED_REQUEST'] });
      expect(l).not.toHaveProperty('err');
    }
    expect(lines.filter((l) => /"level":"(error|fatal)"/.test(l))).toEqual([]);
    expect(sample(await scrape(app), 'mdg_errors_total', { code: 'CLIENT_CLOSED_REQUEST' })).toBeGreaterThan(0);
    // the app goes on answering
    expect((await gql(app, '{ security(symbol: "NVLX") { symbol } }', { 'x-api-key': 'demo-pro' })).status).toBe(200);
  });

  it("sends a span per request to the OTLP endpoint when OTEL_EXPORTER_OTLP_ENDPOINT is set, as a child of the caller's traceparent", async () => {
    const received: { path: string; body: string }[] = [];
    const collector: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const config = testConfig(h.config.database, {}, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      const tracing = (await createTracing(config.observability, 'test'))!;
      const lines: string[] = [];
      const app = createApp({
        config,
        db: h.db,
        tracing,
        logger: createLogger('info', { write: (l: string) => void lines.push(l) }),
      });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const res = await gql(app, 'query Traced { logos(first: 1) { nodes { symbol } } }', {
        'x-api-key': 'demo-free',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      });
      expect(res.status).toBe(200);
      await tracing.shutdown();

      expect(received.map((r) => r.path)).toContain('/v1/traces');
      const spans = received.map((r) => r.body).join('\n');
      expect(spans).toContain('graphql Traced');
      expect(spans).toContain(traceId);
      expect(spans).toContain('00f067aa0ba902b7'); // the parent span id
      expect(JSON.parse(lines.find((l) => l.includes('"Traced"'))!)).toMatchObject({ traceId });
    } finally {
      collector.close();
    }
  });
});
