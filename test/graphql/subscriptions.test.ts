// Subscriptions: tradeAdded, quoteAdded, pressReleaseAdded, newsAdded over Server-Sent Events
// (through app.fetch, as every HTTP request goes: router, auth, rate limits) and over WebSocket
// (graphql-ws on a listening server); events come from the import path after each batch commits.
// With TEST_REDIS_URL: two server processes and the CLI import sharing one Redis (limits, caches),
// the events between them through the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { createDb } from '../../src/db/client.js';
import { memoryEventBus, PRESS_RELEASE_TOPIC, type EventBus } from '../../src/runtime/events.js';
import { outboxEventBus } from '../../src/db/outbox.js';
import { importStream } from '../../src/ingest/import-stream.js';
import type { ImportResource } from '../../src/ingest/importer.js';
import { importerFor } from '../../src/ingest/registry.js';
import { sync } from '../../src/ingest/sync.js';
import { migrate } from '../../src/db/migrate.js';
import { attachWebSocket, MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../src/graphql/ws.js';
import { createApiKey } from '../../src/services/account.js';
import { authHarness, freshUser, RELAXED, type AuthHarness } from '../auth/helpers.js';
import { databaseUrlOf, REPLAY_LIMITS, testConfig, testDatabases, TEST_JWT_SECRET, freePort } from '../helpers.js';
import { COSTED } from './helpers.js';
import { countingBus, fetchOf, ndjson, SEQ, SIP, sse, trade, within, wsClients } from './subscription-helpers.js';

// ------------------------------------------------------------------ records, as the import reads them

const quote = (symbol: string, sequence: bigint) => ({
  symbol,
  ask_exchange: 1,
  ask_price: 2.5,
  ask_size: 3,
  bid_exchange: 1,
  bid_price: 2.25,
  bid_size: 3,
  conditions: [],
  sequence_number: sequence,
  sip_timestamp: SIP,
  tape: 1,
});
const release = (wireId: string, tickers: string[]) => ({
  WireDataID: wireId,
  Vendor: 'Wire',
  ReleaseID: `r-${wireId}`,
  ExternalID: `e-${wireId}`,
  TransmissionID: `t-${wireId}`,
  Headline: `Release ${wireId}`,
  SubHeadline: '',
  Dateline: 'NEW YORK',
  Language: 'en',
  Source: 'Test',
  SourceURL: 'https://example.com/r',
  Summary: 'summary',
  BodyHTML: '<p>body</p>',
  BodyText: 'body',
  PublishTime: '2026-11-20T14:30:00Z',
  Categories: null,
  Keywords: [],
  ExternalLinks: [],
  Tickers: tickers,
  Exchanges: tickers.map((t) => `NYSE:${t}`),
  Securities: [],
  Contacts: [],
  MediaAssets: null,
});
const news = (id: number, ticker: string) => ({
  id,
  news_id: randomUUID(),
  headline: `${ticker} moves`,
  catalyst: 'Earnings',
  catalyst_created: false,
  associated_press_releases: [],
  associated_ratings: [],
  associated_transcripts: [],
  logo_exists: false,
  logo_thumbnail_url: '',
  on_all_tickers: false,
  on_entities: false,
  share_class_figi: 'BBG001S5N8V8',
  ticker,
  type: 'gainers',
  created_at: '2026-11-20T14:30:00Z',
  updated_at: '2026-11-20T14:30:00Z',
  securities: [
    {
      figi: 'BBG000B9XRY4',
      name: `${ticker} Inc`,
      MIC: 'XNAS',
      exchcode: 'UW',
      ticker,
      compositefigi: 'BBG000B9XRY4',
      securitytype: 'Common Stock',
      marketsector: 'Equity',
      shareclassfigi: 'BBG001S5N8V8',
    },
  ],
});

async function importRecords(h: { db: AuthHarness['db'] }, bus: EventBus, resource: ImportResource, records: object[]) {
  const importer = await importerFor(resource);
  const result = await importStream(h.db, importer, { stream: Readable.from([ndjson(records)]) }, { events: bus });
  expect(result.counts.rejected, JSON.stringify(result.rejects)).toBe(0);
  return result.counts;
}

const TRADE_FIELDS = 'id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time';

// ------------------------------------------------------------------ in process, per database

describe.each(testDatabases())('subscriptions on $name', (tdb) => {
  let h: AuthHarness;
  let counted: ReturnType<typeof countingBus>;
  let app: App;
  const subscribe = (query: string, key: string | null = 'demo-pro', variables?: object) =>
    sse(fetchOf(app), 'http://test', query, key ? { 'x-api-key': key } : {}, variables);
  const gql = async (query: string, key = 'demo-pro') => {
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: any; errors?: any[] };
  };

  beforeAll(async () => {
    h = await authHarness(tdb);
    counted = countingBus();
    app = createApp({ config: h.config, db: h.db, events: counted.bus });
  });
  afterAll(async () => {
    await counted.bus.close();
    await h.close();
    await tdb.cleanup();
  });

  it('tradeAdded over SSE: each imported trade of the symbol, after its batch commits, with every digit; a client that goes away unsubscribes', async () => {
    const stream = await subscribe(`subscription { tradeAdded(symbol: "nvlx") { ${TRADE_FIELDS} } }`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.response.headers.get('x-request-id')).toBeTruthy();
    expect(counted.open()).toBe(1); // listening before the response started

    expect(
      await importRecords(h, counted.bus, 'trades', [
        trade('NVLX', SEQ),
        trade('ORBT', 1n),
        trade('NVLX', SEQ + 1n, SIP + 1n),
      ]),
    ).toMatchObject({ inserted: 3 });
    const first = (await stream.next()).data.tradeAdded;
    const second = (await stream.next()).data.tradeAdded;
    expect(first).toMatchObject({
      symbol: 'NVLX',
      sipTimestamp: '1795208399869397596',
      sequenceNumber: '9007199254740993',
      conditions: [12, 37],
      price: 412.5,
    });
    expect(second).toMatchObject({ sipTimestamp: '1795208399869397597', sequenceNumber: '9007199254740994' });
    // the very objects the query answers with
    const page = await gql(`{ trades(symbol: "NVLX", order: ASC) { nodes { ${TRADE_FIELDS} } } }`);
    expect([first, second]).toEqual(page.data.trades.nodes);

    // a rerun inserts nothing, so it publishes nothing
    expect(await importRecords(h, counted.bus, 'trades', [trade('NVLX', SEQ)])).toMatchObject({
      inserted: 0,
      unchanged: 1,
    });
    await counted.bus.publish('trade:NVLX', {
      ...(await h.db.prisma.trade.findFirstOrThrow({ where: { symbol: 'NVLX' }, orderBy: { sequenceNumber: 'asc' } })),
      tradeId: 'marker',
    });
    expect((await stream.next()).data.tradeAdded.tradeId).toBe('marker');

    await stream.cancel();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('refused like the queries: free tier FORBIDDEN, no credential UNAUTHENTICATED, a bad symbol BAD_USER_INPUT naming the argument; a wrong key is a 401', async () => {
    const cases: [string, string | null, string, RegExp][] = [
      [
        'subscription { tradeAdded(symbol: "NVLX") { price } }',
        'demo-free',
        'FORBIDDEN',
        /trades needs the pro tier or higher; this caller's tier is free/,
      ],
      [
        'subscription { quoteAdded(symbol: "NVLX") { bidPrice } }',
        'demo-free',
        'FORBIDDEN',
        /quotes needs the pro tier/,
      ],
      ['subscription { pressReleaseAdded { headline } }', 'demo-free', 'FORBIDDEN', /pressReleases needs the pro tier/],
      ['subscription { tradeAdded(symbol: "NVLX") { price } }', null, 'UNAUTHENTICATED', /authentication required/],
      ['subscription { newsAdded(symbol: "NVLX") { headline } }', null, 'UNAUTHENTICATED', /authentication required/],
      [
        'subscription { tradeAdded(symbol: "NV LX") { price } }',
        'demo-pro',
        'BAD_USER_INPUT',
        /argument "symbol": a symbol must be 1 to 20 characters .*got "NV LX"/,
      ],
      ['subscription { newsAdded(symbol: "") { headline } }', 'demo-free', 'BAD_USER_INPUT', /argument "symbol"/],
      [
        'subscription { pressReleaseAdded(tickers: ["NVLX", "bad!"]) { headline } }',
        'demo-pro',
        'BAD_USER_INPUT',
        /argument "tickers".*got "bad!"/,
      ],
    ];
    for (const [query, key, code, message] of cases) {
      const stream = await subscribe(query, key);
      const { errors, data } = await stream.next();
      expect(data, query).toBeUndefined();
      expect(errors, query).toHaveLength(1);
      expect(errors[0].extensions.code, query).toBe(code);
      expect(errors[0].message, query).toMatch(message);
      await stream.completed();
    }
    expect(counted.open()).toBe(0);

    const wrongKey = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-api-key': 'nope' },
      body: JSON.stringify({ query: 'subscription { newsAdded(symbol: "NVLX") { headline } }' }),
    });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('a subscription is a request for the rate limit', async () => {
    const limited = createApp({
      config: testConfig(h.config.database, {}, { ...RELAXED, RATE_LIMIT_FREE: '1' }),
      db: h.db,
      events: counted.bus,
    });
    const first = await sse(
      fetchOf(limited),
      'http://test',
      'subscription { newsAdded(symbol: "NVLX") { headline } }',
      { 'x-api-key': 'demo-free' },
    );
    expect(first.response.status).toBe(200);
    const second = await limited.fetch('http://test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-api-key': 'demo-free' },
      body: JSON.stringify({ query: 'subscription { newsAdded(symbol: "NVLX") { headline } }' }),
    });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    await first.cancel();
    await expect.poll(() => counted.open()).toBe(0);
  });

  it('quoteAdded: imported quotes of the symbol', async () => {
    const stream = await subscribe(
      'subscription { quoteAdded(symbol: "ORBT") { symbol sequenceNumber sipTimestamp bidPrice askPrice } }',
    );
    await importRecords(h, counted.bus, 'quotes', [quote('NVLX', 1n), quote('ORBT', SEQ)]);
    expect((await stream.next()).data.quoteAdded).toEqual({
      symbol: 'ORBT',
      sequenceNumber: '9007199254740993',
      sipTimestamp: '1795208399869397596',
      bidPrice: 2.25,
      askPrice: 2.5,
    });
    await stream.cancel();
  });

  it('pressReleaseAdded: every new release, or only those naming any of `tickers`; as the pressReleases query shows them', async () => {
    const fields = 'id pressReleaseId wireDataId headline tickers exchanges publishTime createdAt';
    const some = await subscribe(`subscription { pressReleaseAdded(tickers: ["nvlx", "zzz,ACME"]) { ${fields} } }`);
    const all = await subscribe(`subscription { pressReleaseAdded { ${fields} } }`);
    await importRecords(h, counted.bus, 'press-releases', [
      release('9101', ['ORBT']),
      release('9102', ['ACME', 'NVLX']),
    ]);
    const named = (await some.next()).data.pressReleaseAdded;
    expect(named).toMatchObject({
      wireDataId: '9102',
      pressReleaseId: 9102,
      tickers: ['ACME', 'NVLX'],
      publishTime: '2026-11-20T14:30:00.000Z',
    });
    expect([
      (await all.next()).data.pressReleaseAdded.wireDataId,
      (await all.next()).data.pressReleaseAdded.wireDataId,
    ]).toEqual(['9101', '9102']);
    const page = await gql(`{ pressReleases(tickers: ["NVLX"]) { nodes { ${fields} } } }`);
    expect(page.data.pressReleases.nodes).toEqual([named]);
    // the ORBT release reached the filtered subscription too, and was dropped: the next one it shows is this
    await importRecords(h, counted.bus, 'press-releases', [release('9103', ['NVLX'])]);
    expect((await some.next()).data.pressReleaseAdded.wireDataId).toBe('9103');
    await Promise.all([some.cancel(), all.cancel()]);
    await expect.poll(() => counted.open()).toBe(0);
  });

  it('a sync publishes what it inserts, as an import does', async () => {
    const target = await tdb.create();
    await migrate(target);
    const db = await createDb(target);
    const bus = memoryEventBus();
    const releases = bus.subscribe<{ wireDataId: string; tickers: { ticker: string }[] }>(PRESS_RELEASE_TOPIC);
    try {
      await sync(db, {
        from: 'http://test',
        apikey: 'demo-pro',
        resources: ['press-releases'],
        fetch: fetchOf(app) as typeof fetch,
        events: bus,
      });
      const got: { wireDataId: string; tickers: { ticker: string }[] }[] = [];
      for (let i = 0; i < 3; i++) got.push((await releases.next()).value!);
      expect(got.map((r) => [r.wireDataId, r.tickers.map((t) => t.ticker)]).sort()).toEqual([
        ['9101', ['ORBT']],
        ['9102', ['ACME', 'NVLX']],
        ['9103', ['NVLX']],
      ]);
    } finally {
      await bus.close();
      await db.close();
    }
  });

  it('newsAdded: the new items about the symbol (free tier), with their securities; also over GET, as EventSource asks', async () => {
    const query =
      'subscription { newsAdded(symbol: "NVLX") { newsItemId ticker headline type securities { ticker mic } } }';
    const stream = await subscribe(query, 'demo-free');
    const overGet = await sse(
      async (url, _init) =>
        app.fetch(`${url}?${new URLSearchParams({ query, apikey: 'demo-free' })}`, {
          headers: { accept: 'text/event-stream' },
        }),
      'http://test',
      query,
      {},
    );
    expect(overGet.response.status).toBe(200);
    await importRecords(h, counted.bus, 'news', [news(71, 'ORBT'), news(72, 'NVLX')]);
    const expected = {
      newsItemId: 72,
      ticker: 'NVLX',
      headline: 'NVLX moves',
      type: 'GAINERS',
      securities: [{ ticker: 'NVLX', mic: 'XNAS' }],
    };
    expect((await stream.next()).data.newsAdded).toEqual(expected);
    expect((await overGet.next()).data.newsAdded).toEqual(expected);
    await Promise.all([stream.cancel(), overGet.cancel()]);
  });

  it('closing the bus (the shutdown hook) completes the open streams', async () => {
    const own = countingBus();
    const closing = createApp({ config: h.config, db: h.db, events: own.bus });
    const stream = await sse(
      fetchOf(closing),
      'http://test',
      'subscription { newsAdded(symbol: "NVLX") { headline } }',
      { 'x-api-key': 'demo-free' },
    );
    await own.bus.close();
    await stream.completed();
  });
});

// ------------------------------------------------------------------ WebSocket on a listening server

describe('subscriptions over WebSocket (graphql-ws)', () => {
  const [tdb] = testDatabases();
  let h: AuthHarness;
  let counted: ReturnType<typeof countingBus>;
  let server: Server;
  let socket: ReturnType<typeof attachWebSocket>;
  let url: string;
  let accessToken: string;
  const { client, run, disposeAll } = wsClients(() => url);

  beforeAll(async () => {
    // more than one connection's operations for one user (the per-user cap is tested in graphql/subscriptions-live.test.ts)
    h = await authHarness(tdb!, { SUBSCRIPTIONS_PER_CALLER: String(2 * MAX_SUBSCRIPTIONS_PER_CONNECTION) });
    counted = countingBus();
    const app = createApp({ config: h.config, db: h.db, events: counted.bus });
    server = createServer(app);
    socket = attachWebSocket(server, app, { isProd: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const login = await app.fetch('http://test/kms/api/v1/auth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'pro@example.com', password: 'demo-password' }),
    });
    expect(login.status).toBe(200);
    accessToken = /DT_AUTH_TOKEN=([^;]+)/.exec(login.headers.getSetCookie().join('\n'))![1]!;
  });
  afterAll(async () => {
    await disposeAll();
    await socket.close();
    await new Promise((resolve) => server.close(resolve));
    await counted.bus.close();
    await h.close();
    await tdb!.cleanup();
  });

  it('connectionParams { apiKey }: imported trades arrive with every digit; a client that goes away unsubscribes', async () => {
    const { client: c } = client({ apiKey: 'demo-pro' });
    const op = run(c, 'subscription { tradeAdded(symbol: "NVLX") { symbol sequenceNumber sipTimestamp } }');
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(1);
    await importRecords(h, counted.bus, 'trades', [trade('NVLX', SEQ), trade('ORBT', SEQ)]);
    await expect.poll(() => op.results.length, { timeout: 5_000 }).toBe(1);
    expect(op.results[0]).toEqual({
      data: { tradeAdded: { symbol: 'NVLX', sequenceNumber: '9007199254740993', sipTimestamp: '1795208399869397596' } },
    });
    await c.dispose();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('{ authorization: "Bearer …" } and the session cookie of the upgrade authenticate; the cookie from another site does not (4403)', async () => {
    const query = '{ me { email tier } }';
    const bearer = run(client({ authorization: `Bearer ${accessToken}` }).client, query);
    const cookie = run(
      client(undefined, { cookie: `DT_AUTH_TOKEN=${accessToken}`, origin: new URL(url).origin.replace('ws:', 'http:') })
        .client,
      query,
    );
    const foreign = client(undefined, { cookie: `DT_AUTH_TOKEN=${accessToken}`, origin: 'https://evil.example' });
    const hijack = run(foreign.client, query);
    await expect.poll(() => bearer.done && cookie.done && hijack.done, { timeout: 5_000 }).toBe(true);
    expect(bearer.results).toEqual([{ data: { me: { email: 'pro@example.com', tier: 'PRO' } }, ...COSTED }]);
    expect(cookie.results).toEqual(bearer.results);
    expect(foreign.closed.code).toBe(4403);
    expect(foreign.closed.reason).toContain('CSRF');
  });

  it('no credential or a wrong one closes the connection with 4401; free tier gets FORBIDDEN, a bad symbol BAD_USER_INPUT', async () => {
    const none = client({});
    const wrong = client({ apiKey: 'nope' });
    const badType = client({ apiKey: 42 });
    const ops = [
      run(none.client, '{ me { email } }'),
      run(wrong.client, '{ me { email } }'),
      run(badType.client, '{ me { email } }'),
    ];
    await expect.poll(() => ops.every((o) => o.done), { timeout: 5_000 }).toBe(true);
    expect(none.closed).toMatchObject({ code: 4401, reason: expect.stringContaining('authentication required') });
    expect(wrong.closed).toMatchObject({ code: 4401, reason: 'the API key is not valid' });
    expect(badType.closed).toMatchObject({
      code: 4400,
      reason: expect.stringContaining('connectionParams.apiKey must be a string'),
    });

    const free = run(client({ apiKey: 'demo-free' }).client, 'subscription { tradeAdded(symbol: "NVLX") { price } }');
    const bad = run(client({ apiKey: 'demo-pro' }).client, 'subscription { tradeAdded(symbol: "no way") { price } }');
    await expect.poll(() => free.done && bad.done, { timeout: 5_000 }).toBe(true);
    expect(free.results[0].errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringContaining('trades needs the pro tier'),
    });
    expect(bad.results[0].errors[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringContaining('argument "symbol"'),
    });
  });

  it(`at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations at once on one connection`, async () => {
    const { client: c } = client({ apiKey: 'demo-pro' });
    // a symbol each: identical subscriptions would share one bus subscription (graphql/live.ts)
    const news = (i: number) => `subscription { newsAdded(symbol: "S${i}") { headline } }`;
    const ops = Array.from({ length: MAX_SUBSCRIPTIONS_PER_CONNECTION }, (_, i) => run(c, news(i)));
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(MAX_SUBSCRIPTIONS_PER_CONNECTION);
    const over = run(c, news(MAX_SUBSCRIPTIONS_PER_CONNECTION));
    await expect.poll(() => over.done, { timeout: 5_000 }).toBe(true);
    expect(over.error).toEqual([
      expect.objectContaining({
        extensions: { code: 'RATE_LIMITED' },
        message: expect.stringContaining(`at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations`),
      }),
    ]);
    expect(ops.some((o) => o.done)).toBe(false);
    ops[0]!.dispose();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(MAX_SUBSCRIPTIONS_PER_CONNECTION - 1);
    const again = run(c, news(0));
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(MAX_SUBSCRIPTIONS_PER_CONNECTION);
    expect(again.done).toBe(false);
    await c.dispose();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('close() (the shutdown hook) tells the clients to go away with 1001', async () => {
    const own = client({ apiKey: 'demo-pro' });
    const op = run(own.client, 'subscription { newsAdded(symbol: "NVLX") { headline } }');
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(1);
    await socket.close();
    await expect.poll(() => own.closed.code, { timeout: 5_000 }).toBe(1001);
    expect(op.done).toBe(true);
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });
});

// ------------------------------------------------------------------ two server processes, one Redis, events through the database

describe('across processes with REDIS_URL', { tags: ['redis'] }, () => {
  const tdb = testDatabases()[0]!;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-subs-'));
  const children: ChildProcess[] = [];
  let database: DatabaseConfig;
  let env: Record<string, string>;
  const servers: { port: number; child: ChildProcess; output: () => string; exited: Promise<number | null> }[] = [];

  async function start(): Promise<(typeof servers)[number]> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { port, child, output: () => out, exited };
  }

  async function healthy(s: (typeof servers)[number]): Promise<void> {
    const t0 = Date.now();
    // tsx compiles the whole server on start: seconds, more on a busy machine
    while (Date.now() - t0 < 60_000) {
      if (s.child.exitCode !== null) throw new Error(`server exited early:\n${s.output()}`);
      if (
        (await fetch(`http://127.0.0.1:${s.port}/healthz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no 200 from /healthz:\n${s.output()}`);
  }

  beforeAll(async () => {
    // a copy of the run's template of an empty database opened once (migrations, demo accounts)
    database = await tdb.createSeeded('none');
    // migrations and demo accounts once, before two processes would race to make them
    await (await openDatabase(testConfig(database))).close();
    env = {
      ...process.env,
      DATABASE_URL: databaseUrlOf(database),
      REDIS_URL: process.env.TEST_REDIS_URL!,
      JWT_SECRET: TEST_JWT_SECRET,
      NODE_ENV: 'test',
      SAMPLE_DATA: 'none',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      // rights of live subscriptions are checked every AUTH_CACHE_SECONDS / 2
      AUTH_CACHE_SECONDS: '1',
    } as Record<string, string>;
    servers.push(...(await Promise.all([start(), start()])));
    await Promise.all(servers.map(healthy));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await tdb.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm run cli -- <args>` against the shared database and Redis; resolves with its exit code and output. */
  async function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
    const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(cli);
    let out = '';
    cli.stdout!.on('data', (d) => (out += d));
    cli.stderr!.on('data', (d) => (out += d));
    return { code: await new Promise((resolve) => cli.on('exit', resolve)), out };
  }

  it('a key revoked with the CLI ends its subscriptions on both instances, each checking the database itself, with UNAUTHENTICATED', async () => {
    const db = await createDb(database);
    const key = await freshUser(db, 'pro')
      .then((u) => createApiKey(db, u.id, 'live', 10))
      .finally(() => db.close());
    const query = 'subscription { tradeAdded(symbol: "NVLX") { symbol } }';
    const streams = await Promise.all(
      servers.map((s) => sse(fetch, `http://127.0.0.1:${s.port}`, query, { 'x-api-key': key.key })),
    );
    for (const s of streams) expect(s.response.status).toBe(200);
    const revoked = await runCli(['apikeys', 'revoke', '--id', key.record.id]);
    expect(revoked.code, revoked.out).toBe(0);
    for (const s of streams) {
      expect(await s.rest(15_000)).toEqual([
        {
          event: 'next',
          data: {
            errors: [
              {
                message: 'the API key was revoked; this subscription has ended',
                extensions: { code: 'UNAUTHENTICATED' },
              },
            ],
          },
        },
        { event: 'complete', data: '' },
      ]);
    }
  });

  it('a trade the CLI imports reaches the subscribers of both instances; SIGTERM completes the open streams and the instance exits', async () => {
    const [a, b] = servers as [(typeof servers)[number], (typeof servers)[number]];
    const query = 'subscription { tradeAdded(symbol: "NVLX") { symbol sequenceNumber sipTimestamp } }';
    const [onA, onB] = await Promise.all(
      [a, b].map((s) => sse(fetch, `http://127.0.0.1:${s.port}`, query, { 'x-api-key': 'demo-pro' })),
    );
    expect(onB!.response.status).toBe(200);

    const file = path.join(dataDir, 'trades.ndjson');
    fs.writeFileSync(file, ndjson([trade('NVLX', SEQ), trade('ORBT', 2n)]));
    const imported = await runCli(['import', 'trades', file]);
    expect(imported.code, imported.out).toBe(0);

    const expected = {
      data: { tradeAdded: { symbol: 'NVLX', sequenceNumber: '9007199254740993', sipTimestamp: '1795208399869397596' } },
    };
    expect(await onB!.next(10_000)).toEqual(expected);
    expect(await onA!.next(10_000)).toEqual(expected);

    b.child.kill('SIGTERM');
    await onB!.completed(5_000);
    expect(await within(b.exited, 10_000, 'exit after SIGTERM'), b.output()).toBe(0);
    await onA!.cancel();
  });

  it('press releases and news come through the database whole: dates, JSON, child rows, ids', async () => {
    const db = await createDb(database);
    const bus = outboxEventBus(db, REPLAY_LIMITS);
    const app = createApp({ config: testConfig(database), db, events: bus });
    try {
      const fields = 'id pressReleaseId wireDataId tickers publishTime createdAt categories raw';
      const releases = await sse(
        fetchOf(app),
        'http://test',
        `subscription { pressReleaseAdded(tickers: ["NVLX"]) { ${fields} } }`,
        { 'x-api-key': 'demo-pro' },
      );
      const items = await sse(
        fetchOf(app),
        'http://test',
        'subscription { newsAdded(symbol: "NVLX") { id newsItemId newsId createdAt securities { ticker } } }',
        { 'x-api-key': 'demo-pro' },
      );
      await importRecords({ db }, bus, 'press-releases', [
        { ...release('9201', ['NVLX']), Categories: [{ name: 'Earnings' }], Raw: { n: 1 } },
      ]);
      await importRecords({ db }, bus, 'news', [news(81, 'NVLX')]);
      const got = (await releases.next()).data.pressReleaseAdded;
      expect(got).toMatchObject({
        pressReleaseId: 9201,
        tickers: ['NVLX'],
        publishTime: '2026-11-20T14:30:00.000Z',
        categories: [{ name: 'Earnings' }],
        raw: { n: 1 },
      });
      const query = await app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro' },
        body: JSON.stringify({ query: `{ pressReleases(tickers: ["NVLX"]) { nodes { ${fields} } } }` }),
      });
      expect(((await query.json()) as any).data.pressReleases.nodes).toEqual([got]);
      expect((await items.next()).data.newsAdded).toMatchObject({
        newsItemId: 81,
        createdAt: '2026-11-20T14:30:00.000Z',
        securities: [{ ticker: 'NVLX' }],
      });
      await Promise.all([releases.cancel(), items.cancel()]);
    } finally {
      await bus.close();
      await db.close();
    }
  });
});
