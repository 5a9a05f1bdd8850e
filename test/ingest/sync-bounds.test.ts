// A hostile (or broken) upstream on 127.0.0.1: next_url links that lead back into the pull or to
// another origin, and answers larger than SYNC_MAX_BODY_BYTES (small here, from the test's
// configuration). Each stops its resource with one line after a bounded number of requests, and a
// refused answer is neither read to its end nor asked for again. Nothing is written.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/client.js';
import type { ImportResource } from '../../src/ingest/importer.js';
import { sync, type ResourceReport, type SyncOptions } from '../../src/ingest/sync.js';
import { testConfig, testDatabases } from '../helpers.js';

const CAP = 64 * 1024;
const BALANCE_SHEETS = '/stocks/v1/fundamentals/balance-sheet';
const EXCHANGES = '/stocks/v3/reference/exchanges';

const byResource = (reports: ResourceReport[]) =>
  Object.fromEntries(reports.map((r) => [r.resource, r])) as Record<ImportResource, ResourceReport>;

/** The requests a server got, by path, as the server saw them (the key included). */
type Seen = Record<string, string[]>;

describe('sync reads a bounded amount from its upstream', () => {
  const [tdb] = testDatabases();
  const servers: Server[] = [];
  let db: Db;
  let config: Readonly<Config>;
  const listen = async (handler: (req: IncomingMessage, res: ServerResponse, path: string) => void) => {
    const seen: Seen = {};
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      (seen[path] ??= []).push(req.url ?? '');
      handler(req, res, path);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  };
  const send = (res: ServerResponse, body: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const pull = (from: string, resources: ImportResource[], options: Partial<SyncOptions> = {}) =>
    sync(db, {
      from,
      apikey: 'k',
      resources,
      attempts: 3,
      backoffMs: 1,
      maxBodyBytes: config.ingest.syncMaxBodyBytes,
      ...options,
    }).then(byResource);

  beforeAll(async () => {
    config = testConfig(await tdb!.create(), { sampleData: 'none' }, { SYNC_MAX_BODY_BYTES: String(CAP) });
    db = await openDatabase(config);
  });
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await db?.close();
    await tdb!.cleanup();
  });

  it('a next_url that leads back to a page of the pull stops the resource at the repeat: the page is not asked for again', async () => {
    const { origin, seen } = await listen((req, res, path) => {
      const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
      // balance sheets: the second page names itself, absolutely
      if (path === BALANCE_SHEETS)
        send(res, { results: [], status: 'OK', next_url: `${origin}${BALANCE_SHEETS}?cursor=p2` });
      // exchanges: the second page leads back to the first, by a path on its origin and without the key
      else if (path === EXCHANGES)
        send(res, { results: [], status: 'OK', next_url: cursor ? EXCHANGES : `${EXCHANGES}?cursor=p2` });
      else res.writeHead(404).end();
    });
    const lines: string[] = [];
    const reports = await pull(origin, ['balance-sheets', 'exchanges'], { log: (l) => lines.push(l) });
    const sheetsLoop = `the upstream's next_url leads back to GET ${BALANCE_SHEETS}?cursor=p2&apikey=…, asked for already in this pull (after 2 pages): stopped there instead of going round again`;
    expect(reports['balance-sheets']).toMatchObject({ requests: 2, skipped: sheetsLoop });
    expect(lines).toContain(`  balance-sheets: not synced: ${sheetsLoop}`);
    expect(seen[BALANCE_SHEETS]).toEqual([
      `${BALANCE_SHEETS}?limit=1000&sort=period_end.asc&apikey=k`,
      `${BALANCE_SHEETS}?cursor=p2&apikey=k`,
    ]);
    expect(reports.exchanges).toMatchObject({
      requests: 2,
      skipped: `the upstream's next_url leads back to GET ${EXCHANGES}?apikey=…, asked for already in this pull (after 2 pages): stopped there instead of going round again`,
    });
    expect(seen[EXCHANGES]).toEqual([`${EXCHANGES}?apikey=k`, `${EXCHANGES}?cursor=p2&apikey=k`]);
  });

  it('a next_url to another port of 127.0.0.1 is another origin: refused after the pages before it, and that port gets nothing', async () => {
    const other = await listen((_req, res) => send(res, { results: [], status: 'OK' }));
    const { origin } = await listen((req, res, path) => {
      const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
      if (path === EXCHANGES)
        send(res, {
          results: [],
          status: 'OK',
          next_url: cursor ? `${other.origin}${EXCHANGES}?cursor=p3` : `${EXCHANGES}?cursor=p2`,
        });
      else res.writeHead(404).end();
    });
    const { exchanges } = await pull(origin, ['exchanges']);
    expect(exchanges).toMatchObject({
      requests: 2,
      skipped: `the upstream links to ${other.origin}, another origin than --from (${origin}); stopped there, and nothing (the key least of all) was sent to it`,
    });
    expect(other.seen).toEqual({});
  });

  it('an answer larger than SYNC_MAX_BODY_BYTES is refused as it arrives, declared or not, and asked for once: the connection is closed before its end', async () => {
    const closed: Record<string, Promise<number>> = {};
    const { origin, seen } = await listen((_req, res, path) => {
      // written until the client stops reading (at most 64 MiB), then held open: only a client that
      // stops at its limit ends this request, one that reads to the end waits for its timeout
      let written = 0;
      closed[path] = new Promise((resolve) => res.on('close', () => resolve(written)));
      if (path === '/api/v1/logos') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, ' ');
        res.write('{"Logos": [');
        const more = () => {
          while (written < 64 * 1024 * 1024 && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
        };
        more();
      } else if (path === '/rating/api/v1/ratings') {
        // a length past the limit is refused before a byte of the body is read
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 40) });
        res.flushHeaders();
      } else res.writeHead(404).end();
    });
    const lines: string[] = [];
    const reports = await pull(origin, ['logos', 'ratings'], { requestTimeoutMs: 10_000, log: (l) => lines.push(l) });
    const refused = (shown: string) =>
      `the answer to GET ${shown} is larger than 65,536 bytes (SYNC_MAX_BODY_BYTES): read no further and not asked for again`;
    expect(reports.logos).toMatchObject({
      requests: 1,
      skipped: refused('/api/v1/logos?page=1&page_size=100&apikey=…'),
    });
    expect(reports.ratings).toMatchObject({
      requests: 1,
      skipped: refused('/rating/api/v1/ratings?page=1&page_size=100&apikey=…'),
    });
    expect(lines.filter((l) => l.includes('retrying'))).toEqual([]);
    expect(seen['/api/v1/logos']).toHaveLength(1);
    expect(seen['/rating/api/v1/ratings']).toHaveLength(1);
    // the client closed both connections: of the 64 MiB on offer, what sockets buffer was sent
    expect(await closed['/api/v1/logos']).toBeLessThan(32 * 1024 * 1024);
    await closed['/rating/api/v1/ratings'];
  });
});
