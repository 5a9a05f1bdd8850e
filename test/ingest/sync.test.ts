// Two instances of the gateway: A (sample data, served over real HTTP) and B (empty). `sync` pulls A
// into B through the legacy REST paths; then every REST answer of B equals A's. A second sync after
// A changes transfers only what changed for the incremental resources.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import type { ImportResource } from '../../src/ingest/importer.js';
import { parseJsonExact } from '../../src/ingest/json.js';
import { importerFor } from '../../src/ingest/registry.js';
import { sync, type ResourceReport } from '../../src/ingest/sync.js';
import { seedSampleData } from '../../src/sample/seed.js';
import { listHighWater } from '../../src/services/sync-state.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { databaseUrlOf, freePort, testConfig, testDatabases } from '../helpers.js';

const KEY = 'demo-enterprise';

async function get(app: App, pathAndQuery: string): Promise<any> {
  const url = pathAndQuery.startsWith('http') ? pathAndQuery : `http://test${pathAndQuery}`;
  const res = await app.fetch(url, { headers: { 'x-api-key': KEY } });
  const text = await res.text();
  expect(res.status, `${pathAndQuery}: ${text.slice(0, 300)}`).toBe(200);
  return parseJsonExact(text);
}

/** Everything a REST client can read, without per-answer noise (request ids, cursor URLs). */
async function everything(app: App): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const pages = async (path: string, size: string, max: number) => {
    const all: unknown[] = [];
    for (let page = 1; ; page++) {
      const body = await get(app, `${path}${path.includes('?') ? '&' : '?'}page=${page}&${size}=${max}`);
      const records = Array.isArray(body) ? body : (body.data ?? body.Logos);
      all.push(...records);
      if (records.length < max) return all;
    }
  };
  const cursor = async (first: string) => {
    const all: unknown[] = [];
    for (let next: string | undefined = first; next; ) {
      const body = await get(app, next);
      all.push(...body.results);
      next = body.next_url;
    }
    return all;
  };
  const securities: any[] = [];
  for (const prefix of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') {
    for (let page = 1; ; page++) {
      const body = await get(
        app,
        `/search/api/v1/securities?search=${prefix}&search_type=symbol&per_page=250&page=${page}`,
      );
      securities.push(...body.data.hits.map((h: any) => h.document));
      if (body.data.hits.length < 250) break;
    }
  }
  out.securities = securities;
  const symbols = [...new Set(securities.map((s) => s.symbol as string))].sort();
  out.logos = await pages('/api/v1/logos', 'page_size', 100);
  out.balanceSheets = await cursor('/stocks/v1/fundamentals/balance-sheet?limit=1000&sort=period_end.asc');
  out.pressReleases = await pages('/streamhive/api/v1/data', 'page_size', 100);
  out.ratings = await pages('/rating/api/v1/ratings', 'page_size', 100);
  out.summaries = await pages('/delivery/api/v1/summaries', 'page_size', 100);
  out.exchanges = (await get(app, '/stocks/v3/reference/exchanges')).results;
  out.splits = await cursor('/stocks/v3/reference/splits?limit=1000&order=asc');
  out.dividends = await cursor('/stocks/v3/reference/dividends?limit=1000&order=asc');
  for (const s of symbols) {
    out[`tickerEvents:${s}`] = (await get(app, `/stocks/vX/reference/tickers/${s}/events`)).results;
    out[`fundamentals:${s}`] = await pages(`/delivery/api/v1/fundamentals/enhanced?symbol=${s}`, 'page_size', 100);
    out[`news:${s}`] = await pages(`/news/api/v1/news?symbol=${s}`, 'page_size', 100);
    out[`trades:${s}`] = await cursor(`/stocks/v3/trades/${s}?order=asc&limit=5000`);
    out[`quotes:${s}`] = await cursor(`/stocks/v3/quotes/${s}?order=asc&limit=5000`);
  }
  return out;
}

const byResource = (reports: ResourceReport[]) =>
  Object.fromEntries(reports.map((r) => [r.resource, r])) as Record<ImportResource, ResourceReport>;

describe.each(testDatabases())('sync from another instance on $name', (tdb) => {
  let a: GraphQLHarness;
  let server: Server;
  let base: string;
  let b: { db: Db; app: App };

  beforeAll(async () => {
    a = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    // a smaller data set than the default keeps the file quick; it still has every resource
    await seedSampleData(a.db, { seed: 42, scale: 0.2, securities: 12 });
    server = createServer(a.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // what openDatabase makes of an empty database (migrations, demo accounts), copied from the run's template
    const config = testConfig(
      await tdb.createSeeded('none'),
      { sampleData: 'none' },
      { RATE_LIMIT_ENTERPRISE: '1000000' },
    );
    const db = await openDatabase(config);
    b = { db, app: createApp({ config, db }) };
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await a?.close();
    await b?.db.close();
    await tdb.cleanup();
  });

  it('B (empty) ends with the same records as A, then a second sync transfers only what changed', async () => {
    const lines: string[] = [];
    const first = byResource(await sync(b.db, { from: base, apikey: KEY, log: (l) => lines.push(l) }));
    for (const r of Object.values(first)) {
      expect(r.skipped, r.resource).toBeUndefined();
      expect(r.rejected, r.resource).toBe(0);
      expect(r.inserted, r.resource).toBeGreaterThan(0);
    }
    expect(await everything(b.app)).toEqual(await everything(a.app));
    expect(lines.join('\n')).not.toContain(KEY); // the key never reaches a log line

    const marks = await listHighWater(b.db);
    expect(marks.map((m) => m.resource)).toEqual(
      expect.arrayContaining(['press-releases', 'ratings', 'call-summaries', 'trades:NVLX', 'quotes:NVLX']),
    );

    // A changes: new trades for one symbol (imported through A's own import path), one rating edited
    const trades = await importerFor('trades');
    const newest: any = (await get(a.app, '/stocks/v3/trades/NVLX?limit=1')).results[0];
    const added = [1n, 2n, 3n].map((i) => ({
      ...newest,
      sequence_number: BigInt(newest.sequence_number) + 1_000_000n + i,
      sip_timestamp: BigInt(newest.sip_timestamp) + i,
      id: `sync-test-${i}`,
    }));
    await trades.write(
      a.db,
      added.map((r) => trades.parse({ ...r, symbol: 'NVLX' })),
    );
    const ratings = await importerFor('ratings');
    const latestRating: any = (await get(a.app, '/rating/api/v1/ratings?page_size=1')).data[0];
    await ratings.write(a.db, [
      ratings.parse({
        ...latestRating,
        rating: `${latestRating.rating} (revised)`,
        updated_at: new Date().toISOString(),
      }),
    ]);

    const second = byResource(await sync(b.db, { from: base, apikey: KEY }));
    expect(second.trades).toMatchObject({ inserted: 3, updated: 0 });
    // incremental: per symbol only the records at or after its mark come back
    const symbolCount = new Set(
      (await listHighWater(b.db)).filter((m) => m.resource.startsWith('trades:')).map((m) => m.resource),
    ).size;
    expect(second.trades.fetched).toBeLessThan(symbolCount * 3 + 3);
    expect(second.quotes.inserted).toBe(0);
    expect(second.quotes.fetched).toBeLessThan(symbolCount * 3);
    expect(second.ratings.updated).toBe(1);
    expect(second.ratings.fetched).toBeLessThan(first.ratings.fetched);
    // whole-pulled resources come back unchanged and are not rewritten
    for (const r of [
      'securities',
      'logos',
      'balance-sheets',
      'fundamentals',
      'news',
      'press-releases',
      'call-summaries',
      'exchanges',
      'splits',
      'dividends',
      'ticker-events',
    ] as const) {
      expect(second[r], r).toMatchObject({ inserted: 0, updated: 0 });
    }
    expect(await everything(b.app)).toEqual(await everything(a.app));
  });

  it('retries transient failures and waits out a 429 before giving up', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed (ECONNRESET)');
      if (calls === 2) return new Response('{"message":"busy"}', { status: 503 });
      if (calls === 3) return new Response('{"message":"slow down"}', { status: 429, headers: { 'retry-after': '0' } });
      return fetch(input, init);
    };
    const lines: string[] = [];
    const [logos] = await sync(b.db, {
      from: base,
      apikey: KEY,
      resources: ['logos'],
      fetch: flaky,
      backoffMs: 1,
      log: (l) => lines.push(l),
    });
    expect(logos).toMatchObject({ resource: 'logos', inserted: 0, updated: 0 });
    expect(logos!.skipped).toBeUndefined();
    expect(lines.filter((l) => l.includes('retrying'))).toHaveLength(3);

    const down: typeof fetch = async () => new Response('{"message":"down"}', { status: 502 });
    const [failed] = await sync(b.db, {
      from: base,
      apikey: KEY,
      resources: ['ratings'],
      fetch: down,
      attempts: 3,
      backoffMs: 1,
    });
    expect(failed!.skipped).toMatch(
      /^502 from GET \/rating\/api\/v1\/ratings\?.*apikey=….*\(gave up after 3 attempts\)$/,
    );
  });

  it('reports a resource the key may not read and carries on with the rest', async () => {
    const reports = byResource(await sync(b.db, { from: base, apikey: 'demo-free', resources: ['logos', 'trades'] }));
    expect(reports.logos.skipped).toBeUndefined();
    expect(reports.trades.skipped).toMatch(/^403 from GET \/stocks\/v3\/trades\//);
  });

  it('runs as `cli sync` and `cli sync status`, and refuses bad options with exit code 2', async () => {
    // async: the upstream is served by this very process
    const cli = (database: DatabaseConfig, args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        const url = databaseUrlOf(database);
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/cli.ts', ...args],
          { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'test' }, timeout: 120_000 },
          (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
        );
      });
    const database = await tdb.create();
    const run = await cli(database, ['sync', '--from', base, '--apikey', KEY, '--resources', 'logos,ratings']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^logos: \d+ fetched in \d+ requests, \d+ new, 0 changed, 0 unchanged/m);
    expect(run.out).toMatch(/^ratings: \d+ fetched/m);
    expect(run.out).toContain(`sync from ${base}: 2 of 2 resources complete`);
    expect(run.out).not.toContain(KEY);
    // these three only read the database (the refused two stop at their options): they may run at once
    const [status, bad, noKey] = await Promise.all([
      cli(database, ['sync', 'status']),
      cli(database, ['sync', '--from', base, '--apikey', KEY, '--resources', 'logos,charts']),
      cli(database, ['sync', '--from', 'ftp://x']),
    ]);
    expect(status.out).toMatch(new RegExp(`^${base.replace(/[.]/g, '\\.')}  ratings  up to \\d{4}-`, 'm'));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--resources: unknown resource "charts"');
    expect(noKey.code).toBe(2);
  });
});

// A hostile (or misconfigured) upstream names another host in next_url or a redirect: the key must
// go nowhere but the origin of --from. The database does not matter here: nothing is written.
describe('sync sends the key only to the origin of --from', () => {
  const [tdb] = testDatabases();
  const servers: Server[] = [];
  let db: Db;
  const listen = async (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    db = await openDatabase(testConfig(await tdb!.create(), { sampleData: 'none' }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await db?.close();
    await tdb!.cleanup();
  });

  it('a next_url or a redirect to another origin stops that resource with both origins named, and the other origin gets no request at all; JSON nested past any record is refused', async () => {
    const elsewhere: string[] = [];
    const other = await listen((req, res) => {
      elsewhere.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[],"status":"OK"}');
    });
    const seen: string[] = [];
    const upstream = await listen((req, res) => {
      seen.push(req.url ?? '');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path === '/stocks/v1/fundamentals/balance-sheet')
        send({ results: [], status: 'OK', next_url: `${other}/stocks/v1/fundamentals/balance-sheet?cursor=abc` });
      else if (path === '/api/v1/logos') res.writeHead(302, { location: `${other}/api/v1/logos` }).end();
      // a redirect on the same origin is followed, with the key
      else if (path === '/streamhive/api/v1/data') res.writeHead(307, { location: '/streamhive/api/v1/moved' }).end();
      else if (path === '/streamhive/api/v1/moved') send([]);
      // nested past any record: refused as it is parsed, before anything walks it recursively
      else if (path === '/rating/api/v1/ratings')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"data":${'['.repeat(5000)}1${']'.repeat(5000)}}`);
      else res.writeHead(404).end();
    });
    const reports = byResource(
      await sync(db, {
        from: upstream,
        apikey: 'the-secret-key',
        resources: ['balance-sheets', 'logos', 'press-releases', 'ratings'],
        attempts: 1,
      }),
    );
    expect(elsewhere).toEqual([]);
    for (const resource of ['balance-sheets', 'logos'] as const) {
      expect(reports[resource].skipped, resource).toBe(
        `the upstream links to ${other}, another origin than --from (${upstream}); stopped there, and nothing (the key least of all) was sent to it`,
      );
    }
    expect(reports['press-releases'].skipped).toBeUndefined();
    expect(reports.ratings.skipped).toMatch(
      /^GET \/rating\/api\/v1\/ratings\?.*apikey=… failed: arrays and objects nest more than 64 levels deep; no record needs more \(gave up after 1 attempts\)$/,
    );
    expect(seen.filter((u) => u.startsWith('/streamhive/api/v1/moved'))).toEqual([
      expect.stringContaining('apikey=the-secret-key'),
    ]);
  });

  it('an upstream that cannot be reached is named with the cause in one line, and the resources after it are not tried', async () => {
    const port = await freePort(); // closed again: nothing listens there
    const lines: string[] = [];
    const reports = byResource(
      await sync(db, {
        from: `http://127.0.0.1:${port}`,
        apikey: 'k',
        resources: ['logos', 'ratings', 'news'],
        attempts: 3,
        backoffMs: 1,
        log: (l) => lines.push(l),
      }),
    );
    const refused = `cannot reach 127.0.0.1:${port}: connection refused: nothing listens there (ECONNREFUSED)`;
    expect(reports.logos.skipped).toBe(
      `GET /api/v1/logos?page=1&page_size=100&apikey=… failed: ${refused} (gave up after 3 attempts)`,
    );
    expect(reports.ratings).toMatchObject({ requests: 0, skipped: `not tried: ${refused}` });
    expect(reports.news).toMatchObject({ requests: 0, skipped: `not tried: ${refused}` });
    // the cause once; the retries after it only say when
    expect(lines.filter((l) => l.includes('ECONNREFUSED'))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('  retrying'))).toEqual([
      expect.stringMatching(
        /^ {2}retrying in \d+ ms \(attempt 2 of 3\): GET \/api\/v1\/logos\?.* failed: cannot reach .*\(ECONNREFUSED\)$/,
      ),
      expect.stringMatching(/^ {2}retrying in \d+ ms \(attempt 3 of 3\)$/),
    ]);
    expect(lines.at(-1)).toBe(`stopped: ${refused}; not tried: ratings, news`);
  });

  it('names a TLS failure, a host that does not resolve and a timeout, each with its code', async () => {
    // a plain-text server answering a TLS handshake: OpenSSL's "wrong version number"
    const plain = net.createServer((c) => c.end('HTTP/1.1 200 OK\r\n\r\n'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const [tls] = await sync(db, {
        from: `https://127.0.0.1:${(plain.address() as AddressInfo).port}`,
        apikey: 'k',
        resources: ['logos'],
        attempts: 1,
      });
      expect(tls!.skipped).toMatch(
        /failed: cannot reach 127\.0\.0\.1:\d+: TLS failed: wrong version number \(ERR_SSL_WRONG_VERSION_NUMBER\)/,
      );
    } finally {
      plain.close();
    }
    // no DNS or remote host is asked: fetch fails as undici does
    const failing =
      (code: string, message: string): typeof fetch =>
      async () => {
        throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code }) });
      };
    const reports = async (code: string, message: string) =>
      sync(db, {
        from: 'https://vendor.example.com',
        apikey: 'k',
        resources: ['logos', 'ratings'],
        attempts: 1,
        fetch: failing(code, message),
      });
    const [dns, dnsNext] = await reports('ENOTFOUND', 'getaddrinfo ENOTFOUND vendor.example.com');
    expect(dns!.skipped).toContain('failed: cannot reach vendor.example.com:443: no such host (DNS) (ENOTFOUND)');
    expect(dnsNext!.skipped).toMatch(/^not tried: /);
    // a timeout may pass: the next resource is tried
    const [slow, slowNext] = await reports('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error');
    expect(slow!.skipped).toContain(
      'failed: cannot reach vendor.example.com:443: timed out waiting for the answer (UND_ERR_HEADERS_TIMEOUT)',
    );
    expect(slowNext!.skipped).toContain('(UND_ERR_HEADERS_TIMEOUT)');
  });

  it('records that break the same rule are one line with their count, the first of each rule in full', async () => {
    // a page of 5 logos: 3 without any image, 2 with a PNG and no SVG
    const bad = [{}, {}, {}, { logos: { png: {} } }, { logos: { png: {} } }];
    const upstream: typeof fetch = async () =>
      new Response(JSON.stringify({ Logos: bad }), { headers: { 'content-type': 'application/json' } });
    const lines: string[] = [];
    const [logos] = await sync(db, {
      from: 'https://vendor.example.com',
      apikey: 'k',
      resources: ['logos'],
      attempts: 1,
      fetch: upstream,
      log: (l) => lines.push(l),
    });
    expect(logos).toMatchObject({ fetched: 5, rejected: 5 });
    const rejected = lines.filter((l) => l.includes('rejected'));
    // per rule: its first record in full, then the count; 4 lines for 5 records, not 5
    expect(rejected.filter((l) => l.startsWith('  logos: rejected a record: '))).toHaveLength(2);
    expect(rejected.filter((l) => / of 5 records rejected: /.test(l))).toEqual([
      expect.stringMatching(/^ {2}logos: 3 of 5 records rejected: .* \(the first at record 1 fetched\)$/),
      expect.stringMatching(/^ {2}logos: 2 of 5 records rejected: .* \(the first at record 4 fetched\)$/),
    ]);
  });

  it('an upstream that takes the connection and never answers fails each request after requestTimeoutMs, not fetch’s 5 minutes', async () => {
    // headers sent, then the body never ends: a timeout of the headers alone would not end it
    const sockets = new Set<net.Socket>();
    const hung = net.createServer((c) => {
      sockets.add(c);
      c.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"results": [');
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      // without the bound, fetch waits for the rest of the body until the test's own timeout
      const port = (hung.address() as AddressInfo).port;
      const [logos, ratings] = await sync(db, {
        from: `http://127.0.0.1:${port}`,
        apikey: 'k',
        resources: ['logos', 'ratings'],
        attempts: 2,
        backoffMs: 1,
        requestTimeoutMs: 300,
      });
      expect(logos!.skipped).toBe(
        `GET /api/v1/logos?page=1&page_size=100&apikey=… got no whole answer from 127.0.0.1:${port} within 0.3 s (gave up after 2 attempts)`,
      );
      // a slow upstream may answer the next resource: it is tried
      expect(ratings!.requests).toBe(2);
    } finally {
      for (const s of sockets) s.destroy();
      hung.close();
    }
  });
});
