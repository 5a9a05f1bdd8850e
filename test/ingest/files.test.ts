// Every resource imports from a file holding what its REST route returns (whole bodies, one per
// NDJSON line), into an empty database, through the same importStream the CLI runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { importStream } from '../../src/ingest/import-stream.js';
import { IMPORT_RESOURCES, type ImportResource } from '../../src/ingest/importer.js';
import { importerFor } from '../../src/ingest/registry.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';
import { bodiesLackSymbol } from './helpers.js';

/** A first page of each importable resource's route, as a legacy client would have saved it (keyed by the manifests' names: one missing does not compile). */
const PAGES: Record<ImportResource, string> = {
  securities: '/search/api/v1/securities?search=N&search_type=symbol&per_page=250',
  logos: '/api/v1/logos?page_size=100',
  'balance-sheets': '/stocks/v1/fundamentals/balance-sheet?symbols=NVLX&limit=50',
  fundamentals: '/delivery/api/v1/fundamentals/enhanced?symbol=NVLX&page_size=100',
  'press-releases': '/streamhive/api/v1/data?page_size=100',
  ratings: '/rating/api/v1/ratings?page_size=100',
  'call-summaries': '/delivery/api/v1/summaries?page_size=100',
  news: '/news/api/v1/news?symbol=NVLX&page_size=100',
  trades: '/stocks/v3/trades/NVLX?limit=500',
  quotes: '/stocks/v3/quotes/NVLX?limit=500',
  exchanges: '/stocks/v3/reference/exchanges',
  splits: '/stocks/v3/reference/splits?limit=1000',
  dividends: '/stocks/v3/reference/dividends?limit=1000',
  // a security the securities' page above holds: the events are stored under it
  'ticker-events': '/stocks/vX/reference/tickers/NVLX/events',
};

describe.each(testDatabases())('import of every resource from a file on $name', (tdb) => {
  let a: GraphQLHarness;
  let b: Db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-files-'));
  beforeAll(async () => {
    a = await graphqlHarness(tdb);
    // what openDatabase makes of an empty database (migrations, demo accounts), copied from the run's template
    b = await openDatabase(testConfig(await tdb.createSeeded('none'), { sampleData: 'none' }));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await tdb.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(IMPORT_RESOURCES)(
    '%s: a saved REST body imports, and importing it again changes nothing',
    async (resource) => {
      const page = await rest(a, PAGES[resource]);
      expect(page.status).toBe(200);
      const file = path.join(dir, `${resource}.ndjson`);
      fs.writeFileSync(file, `${page.text.replace(/\n/g, ' ')}\n`); // the exact text, big integers and all
      const importer = await importerFor(resource);
      const options = bodiesLackSymbol(resource) ? { defaults: { symbol: 'NVLX' } } : {};
      const first = await importStream(b, importer, file, options);
      expect(first.counts.rejected, resource).toBe(0);
      expect(first.counts.inserted, resource).toBeGreaterThan(0);
      const again = await importStream(b, importer, file, options);
      expect(again.counts).toMatchObject({ inserted: 0, updated: 0, rejected: 0, unchanged: first.counts.inserted });
    },
  );
});
