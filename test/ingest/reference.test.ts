import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { RejectError, type Importer, type ImportResource } from '../../src/ingest/importer.js';
import type { WriteCounts } from '../../src/db/upsert.js';
import { importerFor } from '../../src/ingest/registry.js';
import { testConfig, testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from '../rest/helpers.js';

// Import of the reference resources from their own REST bodies: instance A (sample data) serves
// every page of each route, each page body goes through recordsOf + parse + write into an empty
// instance B, and B then serves the very same pages.

const RESOURCES = [
  'securities',
  'logos',
  'balance-sheets',
  'press-releases',
  'ratings',
  'call-summaries',
  'news',
  'exchanges',
] as const satisfies readonly ImportResource[];
type Resource = (typeof RESOURCES)[number];
type App = Pick<GraphQLHarness, 'app'>;

/** A page-numbered route: pages until a short one. `items` finds the records in a body. */
async function numberedPages(
  h: App,
  path: (page: number) => string,
  size: number,
  items: (body: any) => unknown[],
): Promise<unknown[]> {
  const bodies: unknown[] = [];
  for (let page = 1; page < 1000; page++) {
    const r = await rest(h, path(page));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    bodies.push(r.body);
    if (items(r.body).length < size) return bodies;
  }
  throw new Error(`more than 1000 pages of ${path(1)}`);
}

/** Every response body of a resource's route, page by page, in the order served. */
async function bodiesOf(h: App, resource: Resource, newsTickers: readonly string[]): Promise<unknown[]> {
  switch (resource) {
    case 'securities':
      // every sample security is listed in the US: one query that matches them all
      return numberedPages(
        h,
        (p) => `/search/api/v1/securities?search_type=exchange_info.exchange_country&search=US&per_page=20&page=${p}`,
        20,
        (b) => b.data.hits,
      );
    case 'logos':
      return numberedPages(
        h,
        (p) => `/api/v1/logos?page_size=20&page=${p}`,
        20,
        (b) => b.Logos,
      );
    case 'balance-sheets': {
      const bodies: unknown[] = [];
      let next: string | undefined = '/stocks/v1/fundamentals/balance-sheet?limit=250';
      while (next) {
        const r = await rest(h, next);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        bodies.push(r.body);
        next = r.body.next_url;
      }
      return bodies;
    }
    case 'press-releases':
      return numberedPages(
        h,
        (p) => `/streamhive/api/v1/data?page_size=50&page=${p}`,
        50,
        (b) => b,
      );
    case 'ratings':
      return numberedPages(
        h,
        (p) => `/rating/api/v1/ratings?page_size=100&page=${p}`,
        100,
        (b) => b.data,
      );
    case 'call-summaries':
      return numberedPages(
        h,
        (p) => `/delivery/api/v1/summaries?page_size=50&page=${p}`,
        50,
        (b) => b.data,
      );
    case 'exchanges': {
      // the whole list on one page
      const r = await rest(h, '/stocks/v3/reference/exchanges');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return [r.body];
    }
    case 'news': {
      const bodies: unknown[] = [];
      for (const t of newsTickers)
        bodies.push(
          ...(await numberedPages(
            h,
            (p) => `/news/api/v1/news?symbol=${t}&page_size=5&page=${p}`,
            5,
            (b) => b.data,
          )),
        );
      return bodies;
    }
  }
}

/**
 * A next_url with its cursor opened, less the one thing an import cannot carry over: the row id at
 * the end of the keyset position. Balance-sheet ids are internal (the record has none), so the
 * copy numbers them itself; the cursor's filters and period end must still agree.
 */
function openNextUrl(nextUrl: string) {
  const url = new URL(nextUrl);
  const [payload] = url.searchParams.get('cursor')!.split('.');
  const state = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  const after = JSON.parse(Buffer.from(state.after, 'base64url').toString('utf8')) as unknown[];
  expect(typeof after.at(-1)).toBe('number');
  return {
    origin: url.origin,
    path: url.pathname,
    route: state.route,
    params: state.params,
    after: after.slice(0, -1),
  };
}

/** What differs between two answers of the same request by nature: the request id, the measured time, a next_url's row id. */
function comparable(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const { request_id: _r, ...rest } = body as Record<string, unknown>;
  if (typeof rest.next_url === 'string') rest.next_url = openNextUrl(rest.next_url);
  if (typeof rest.data === 'object' && rest.data !== null && 'search_time_ms' in rest.data) {
    const { search_time_ms: _t, ...data } = rest.data as Record<string, unknown>;
    return { ...rest, data };
  }
  return rest;
}

const sum = (counts: WriteCounts[]): WriteCounts =>
  counts.reduce(
    (a, c) => ({
      inserted: a.inserted + c.inserted,
      updated: a.updated + c.updated,
      unchanged: a.unchanged + c.unchanged,
    }),
    { inserted: 0, updated: 0, unchanged: 0 },
  );

/** The rows of one body, parsed (every one must parse). */
function parseBody(importer: Importer<unknown>, body: unknown): unknown[] {
  const records = importer.recordsOf(body);
  expect(records, 'recordsOf must find the records of a whole response body').not.toBeNull();
  return records!.map((r) => importer.parse(r));
}

/** Writes each body as one batch. */
async function importBodies(db: Db, importer: Importer<unknown>, bodies: readonly unknown[]): Promise<WriteCounts> {
  const counts: WriteCounts[] = [];
  for (const body of bodies) counts.push(await importer.write(db, parseBody(importer, body)));
  return sum(counts);
}

/** Every stored row's id and updatedAt (children by parent), to prove a rerun touches nothing. */
async function snapshot(db: Db) {
  const p = db.prisma;
  const stamp = { select: { id: true, updatedAt: true, createdAt: true }, orderBy: { id: 'asc' } } as const;
  return {
    securities: await p.security.findMany(stamp),
    logos: await p.logo.findMany(stamp),
    logoInfo: await p.logoSecurityInfo.findMany({ orderBy: [{ logoId: 'asc' }, { position: 'asc' }] }),
    balanceSheets: await p.balanceSheet.findMany(stamp),
    balanceSheetSymbols: await p.balanceSheetSymbol.findMany({
      orderBy: [{ balanceSheetId: 'asc' }, { position: 'asc' }],
    }),
    pressReleases: await p.pressRelease.findMany(stamp),
    pressReleaseTickers: await p.pressReleaseTicker.findMany({
      orderBy: [{ pressReleaseId: 'asc' }, { position: 'asc' }],
    }),
    ratings: await p.rating.findMany(stamp),
    callSummaries: await p.callSummary.findMany(stamp),
    news: await p.newsItem.findMany(stamp),
    newsSecurities: await p.newsSecurity.findMany({ orderBy: [{ newsItemId: 'asc' }, { position: 'asc' }] }),
  };
}

function rejection(importer: Importer<unknown>, record: unknown): string {
  try {
    importer.parse(record);
  } catch (e) {
    expect(e).toBeInstanceOf(RejectError);
    return (e as RejectError).reason;
  }
  throw new Error(`accepted a bad ${importer.resource} record: ${JSON.stringify(record).slice(0, 300)}`);
}

const clone = <T>(v: T): T => structuredClone(v);

/** Bad variants of a good record: [what is done to it, the field the reason must name, the value it must show]. */
type Breakage = [change: (r: any) => void, field: string, shown: string];

const BREAKAGES: Record<Resource, Breakage[]> = {
  securities: [
    [(r) => delete r['identifiers.figi'], 'identifiers.figi', 'missing'],
    [(r) => (r['company_info.list_date'] = '2020-02-30'), 'company_info.list_date', '"2020-02-30"'],
    [(r) => (r['ticker_meta.active'] = 'yes'), 'ticker_meta.active', '"yes"'],
    [(r) => (r.id = 'BBG000000000_XNAS'), 'id', '"BBG000000000_XNAS"'],
    [(r) => (r['financials.market_cap'] = 1.5), 'financials.market_cap', '1.5'],
  ],
  logos: [
    [(r) => (r.logos.png.height = '256'), 'logos.png.height', '"256"'],
    [(r) => delete r.security_info[0].MIC, 'security_info[0].MIC', 'missing'],
    [(r) => (r.updated_at = 'yesterday'), 'updated_at', '"yesterday"'],
    [(r) => (r.security_info = {}), 'security_info', '{}'],
  ],
  'balance-sheets': [
    [(r) => (r.timeframe = 'monthly'), 'timeframe', '"monthly"'],
    [(r) => (r.fiscal_quarter = 5), 'fiscal_quarter', '5'],
    [(r) => (r.total_assets = '1000'), 'total_assets', '"1000"'],
    [(r) => (r.cik = 'abc'), 'cik', '"abc"'],
    [(r) => (r.reporting_period_end = '2024-13-01'), 'reporting_period_end', '"2024-13-01"'],
  ],
  'press-releases': [
    [(r) => (r.PublishTime = '31/01/2026'), 'PublishTime', '"31/01/2026"'],
    [(r) => (r.Tickers = 'AAPL'), 'Tickers', '"AAPL"'],
    [(r) => delete r.WireDataID, 'WireDataID', 'missing'],
    [(r) => (r.Securities[0].figi = null), 'Securities[0].figi', 'null'],
  ],
  ratings: [
    [(r) => (r.id = 'x'), 'id', '"x"'],
    [(r) => (r.is_rating = 'true'), 'is_rating', '"true"'],
    [(r) => (r.created_at = 'not a date'), 'created_at', '"not a date"'],
  ],
  'call-summaries': [
    [(r) => (r.fiscal_period = 'Q5'), 'fiscal_period', '"Q5"'],
    [(r) => (r.sentiment_score = 2), 'sentiment_score', '2'],
    [(r) => delete r.call_date, 'call_date', 'missing'],
    [(r) => (r.participants[1].role = 3), 'participants[1].role', '3'],
  ],
  exchanges: [
    [(r) => (r.asset_class = 'bonds'), 'asset_class', '"bonds"'],
    [(r) => (r.locale = 'US'), 'locale', '"US"'],
    [(r) => (r.id = '1'), 'id', '"1"'],
    [(r) => (r.mic = 'xase'), 'mic', '"xase"'],
    [(r) => delete r.name, 'name', 'missing'],
  ],
  news: [
    [(r) => (r.type = 'flat'), 'type', '"flat"'],
    [(r) => (r.news_id = 'nope'), 'news_id', '"nope"'],
    [(r) => (r.associated_press_releases = [1.5]), 'associated_press_releases[0]', '1.5'],
    [(r) => (r.catalyst_created = 1), 'catalyst_created', '1'],
  ],
};

describe.each(testDatabases())('import of REST response bodies on $name', (tdb) => {
  let source: GraphQLHarness;
  let target: { app: GraphQLHarness['app']; db: Db };
  const importers = {} as Record<Resource, Importer<unknown>>;
  const sourceBodies = {} as Record<Resource, unknown[]>;
  const firstImport = {} as Record<Resource, WriteCounts>;
  let newsTickers: string[];

  beforeAll(async () => {
    source = await graphqlHarness(tdb);
    // what openDatabase makes of an empty database (migrations, demo accounts), copied from the run's template
    const config = testConfig(
      await tdb.createSeeded('none'),
      {},
      { RATE_LIMIT_ENTERPRISE: '1000000', AUTH_CACHE_SECONDS: '3600' },
    );
    const db = await openDatabase(config);
    target = { app: createApp({ config, db }), db };
    newsTickers = (
      await source.db.prisma.newsItem.findMany({
        distinct: ['ticker'],
        select: { ticker: true },
        orderBy: { ticker: 'asc' },
      })
    ).map((n) => n.ticker);
    for (const resource of RESOURCES) {
      importers[resource] = await importerFor(resource);
      sourceBodies[resource] = await bodiesOf(source, resource, newsTickers);
      firstImport[resource] = await importBodies(target.db, importers[resource], sourceBodies[resource]);
    }
  });
  afterAll(async () => {
    await source?.close();
    await target?.db.close();
    await tdb.cleanup();
  });

  it('target starts empty: every record of every page is inserted, none updated', async () => {
    expect(await target.db.prisma.appMeta.findUnique({ where: { key: 'sample_data' } })).toBeNull();
    for (const resource of RESOURCES) {
      const records = sourceBodies[resource].flatMap((b) => importers[resource].recordsOf(b)!);
      expect(records.length, resource).toBeGreaterThan(resource === 'call-summaries' ? 10 : 20);
      expect(firstImport[resource], resource).toEqual({ inserted: records.length, updated: 0, unchanged: 0 });
    }
  });

  it.each(RESOURCES)('%s: the imported copy serves the very same pages as the source', async (resource) => {
    const again = await bodiesOf(target, resource, newsTickers);
    expect(again.map(comparable)).toEqual(sourceBodies[resource].map(comparable));
  });

  it('the route totals agree too (every record arrived)', async () => {
    const counts = async (db: Db) => ({
      securities: await db.prisma.security.count(),
      logos: await db.prisma.logo.count(),
      balanceSheets: await db.prisma.balanceSheet.count(),
      pressReleases: await db.prisma.pressRelease.count(),
      ratings: await db.prisma.rating.count(),
      callSummaries: await db.prisma.callSummary.count(),
      news: await db.prisma.newsItem.count(),
      newsSecurities: await db.prisma.newsSecurity.count(),
      exchanges: await db.prisma.exchange.count(),
    });
    expect(await counts(target.db)).toEqual(await counts(source.db));
  });

  it('press releases keep their ids (numbered by WireDataID), so news links point at the same releases', async () => {
    const ids = (db: Db) =>
      db.prisma.pressRelease.findMany({ select: { id: true, wireDataId: true }, orderBy: { id: 'asc' } });
    expect(await ids(target.db)).toEqual(await ids(source.db));
  });

  it('a second import of the same bodies changes nothing: all unchanged, no statement writes, no updatedAt moves', async () => {
    const before = await snapshot(target.db);
    const writes: string[] = [];
    const stop = target.db.onStatement((sql) => {
      if (/^\s*(INSERT|UPDATE|DELETE)/i.test(sql)) writes.push(sql);
    });
    try {
      for (const resource of RESOURCES) {
        const counts = await importBodies(target.db, importers[resource], sourceBodies[resource]);
        expect(counts, resource).toEqual({ inserted: 0, updated: 0, unchanged: firstImport[resource].inserted });
      }
    } finally {
      stop();
    }
    expect(writes).toEqual([]);
    expect(await snapshot(target.db)).toEqual(before);
  });

  it('a batch reads its stored rows with one query per table, however many records it holds', async () => {
    const importer = importers['balance-sheets'];
    const selects = async (rows: unknown[]) => {
      const seen: string[] = [];
      const stop = target.db.onStatement((sql) => seen.push(sql));
      try {
        expect(await importer.write(target.db, rows)).toMatchObject({ inserted: 0, updated: 0 });
      } finally {
        stop();
      }
      return seen.filter((sql) => /^\s*SELECT/i.test(sql));
    };
    const rows = parseBody(importer, sourceBodies['balance-sheets'][0]);
    expect(rows.length).toBe(250);
    const many = await selects(rows);
    // the sheets and their symbols (a join)
    expect(many.length).toBeGreaterThan(0);
    expect(many.length).toBeLessThanOrEqual(2);
    expect(await selects(rows.slice(0, 3))).toHaveLength(many.length);
  });

  it.each(RESOURCES)(
    '%s: bad records are rejected with a reason naming the field and the value received',
    (resource) => {
      const importer = importers[resource];
      const good = importer.recordsOf(sourceBodies[resource][0])![0];
      expect(() => importer.parse(clone(good))).not.toThrow();
      for (const [change, field, shown] of BREAKAGES[resource]) {
        const bad = clone(good) as any;
        change(bad);
        const reason = rejection(importer, bad);
        expect(reason.startsWith(`${field}: `), `${reason} names ${field}`).toBe(true);
        expect(reason).toContain(shown);
      }
      expect(rejection(importer, 'not a record')).toContain('"not a record"');
    },
  );

  it('recordsOf: a single record is not an envelope; a bare array is a list of records', async () => {
    for (const resource of RESOURCES) {
      const record = importers[resource].recordsOf(sourceBodies[resource][0])![0];
      expect(importers[resource].recordsOf(record), resource).toBeNull();
      expect(importers[resource].recordsOf([record]), resource).toEqual([record]);
    }
    // a security search hit is taken as its document, whether in a body or alone
    const hit = (sourceBodies.securities[0] as any).data.hits[0];
    expect(importers.securities.recordsOf({ hits: [hit] })).toEqual([hit.document]);
    expect(importers.securities.parse(hit)).toEqual(importers.securities.parse(hit.document));
  });

  it('highWater: the timestamp or date a feed advances by, as sortable ISO text', () => {
    const first = (resource: Resource) =>
      importers[resource].parse(importers[resource].recordsOf(sourceBodies[resource][0])![0]);
    const rec = (resource: Resource) => importers[resource].recordsOf(sourceBodies[resource][0])![0] as any;
    expect(importers.securities.highWater!(first('securities'))).toBe(rec('securities').updated_at);
    expect(importers.logos.highWater!(first('logos'))).toBe(rec('logos').updated_at);
    expect(importers['balance-sheets'].highWater!(first('balance-sheets'))).toBe(
      rec('balance-sheets').reporting_period_end,
    );
    expect(importers['press-releases'].highWater!(first('press-releases'))).toBe(rec('press-releases').PublishTime);
    expect(importers.ratings.highWater!(first('ratings'))).toBe(rec('ratings').created_at);
    expect(importers['call-summaries'].highWater!(first('call-summaries'))).toBe(rec('call-summaries').call_date);
    expect(importers.news.highWater!(first('news'))).toBe(rec('news').created_at);
  });

  describe('a changed record replaces its child rows', () => {
    const restOf = (path: string) => rest(target, path);

    it('logo: security_info rows replaced, the record served as sent, a rerun unchanged', async () => {
      const body = (await restOf('/api/v1/logos?page_size=100')).body;
      const logo = clone(body.Logos.find((l: any) => l.security_info.length >= 2));
      const changed = {
        ...logo,
        company_name: `${logo.company_name} (renamed)`,
        updated_at: '2030-01-02T03:04:05.000Z',
        security_info: [{ ...logo.security_info[1], name: 'NEW NAME' }],
      };
      const importer = importers.logos;
      expect(await importer.write(target.db, [importer.parse(changed)])).toEqual({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
      const served = (await restOf(`/api/v1/logos?symbols=${logo.symbol}`)).body.Logos;
      expect(served).toEqual([changed]);
      const stored = await target.db.prisma.logo.findUniqueOrThrow({
        where: { symbol: logo.symbol },
        include: { securityInfo: true },
      });
      expect(stored.securityInfo).toHaveLength(1);
      expect(await importer.write(target.db, [importer.parse(changed)])).toEqual({
        inserted: 0,
        updated: 0,
        unchanged: 1,
      });
    });

    it('balance sheet: symbols replaced; the store stamps updatedAt (the record has none)', async () => {
      const sheet = clone((sourceBodies['balance-sheets'][0] as any).results[0]);
      const key = { cik: sheet.cik, reportingPeriodEnd: sheet.reporting_period_end, timeframe: sheet.timeframe };
      const before = await target.db.prisma.balanceSheet.findUniqueOrThrow({
        where: { cik_reportingPeriodEnd_timeframe: key },
      });
      const changed = { ...sheet, symbols: ['NEWSYM', ...sheet.symbols], total_assets: sheet.total_assets + 1 };
      const importer = importers['balance-sheets'];
      expect(await importer.write(target.db, [importer.parse(changed)])).toEqual({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
      const after = await target.db.prisma.balanceSheet.findUniqueOrThrow({
        where: { cik_reportingPeriodEnd_timeframe: key },
        include: { symbols: { orderBy: { position: 'asc' } } },
      });
      expect(after.id).toBe(before.id);
      expect(after.symbols.map((s) => s.symbol)).toEqual(changed.symbols);
      expect(after.totalAssets).toBe(changed.total_assets);
      expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
      const served = (await restOf(`/stocks/v1/fundamentals/balance-sheet?symbols=NEWSYM`)).body.results;
      expect(served).toEqual([changed]);
    });

    it('press release: tickers and securities replaced, id kept', async () => {
      const release = clone((sourceBodies['press-releases'][0] as any)[0]);
      const before = await target.db.prisma.pressRelease.findUniqueOrThrow({
        where: { wireDataId: release.WireDataID },
      });
      const security = { ...release.Securities[0], symbol: 'ZZZZ', figi: 'BBG00ZZZZZZ1' };
      const changed = {
        ...release,
        Tickers: ['ZZZZ'],
        Securities: [security],
        UpdatedAt: '2030-01-01T00:00:00.000Z',
        Raw: { replaced: true },
      };
      const importer = importers['press-releases'];
      expect(await importer.write(target.db, [importer.parse(changed)])).toMatchObject({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
      const served = (await restOf('/streamhive/api/v1/data?tickers=ZZZZ')).body;
      expect(served).toEqual([changed]);
      const stored = await target.db.prisma.pressRelease.findUniqueOrThrow({
        where: { wireDataId: release.WireDataID },
        include: { tickers: true, securities: true },
      });
      expect(stored.id).toBe(before.id);
      expect(stored.tickers.map((t) => t.ticker)).toEqual(['ZZZZ']);
      expect(stored.securities).toHaveLength(1);
    });

    it('news: securities replaced; an item naming releases and ratings this database lacks still imports', async () => {
      const item = clone((sourceBodies.news[0] as any).data[0]);
      const changed = {
        ...item,
        headline: `${item.headline} (updated)`,
        associated_press_releases: [987_654],
        associated_ratings: [876_543],
        securities: [...item.securities, { ...item.securities[0], MIC: 'XNYS', ticker: `${item.ticker}.X` }],
      };
      const importer = importers.news;
      expect(await importer.write(target.db, [importer.parse(changed)])).toMatchObject({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
      const served = (await restOf(`/news/api/v1/news?symbol=${item.ticker}&id=${item.id}`)).body.data;
      expect(served).toEqual([changed]);
      expect(await target.db.prisma.newsSecurity.count({ where: { newsItemId: item.id } })).toBe(2);
      // without `securities` (as securities=false serves it) the stored ones stay
      const { securities: _, ...bare } = changed;
      expect(await importer.write(target.db, [importer.parse(bare)])).toMatchObject({
        inserted: 0,
        updated: 0,
        unchanged: 1,
      });
      expect(await target.db.prisma.newsSecurity.count({ where: { newsItemId: item.id } })).toBe(2);
    });

    it('news: a new item whose id is taken by another item gets the next free id', async () => {
      const item = clone((sourceBodies.news[0] as any).data[0]);
      const fresh = { ...item, news_id: '00000000-0000-4000-8000-000000000001', headline: 'Another story' };
      const importer = importers.news;
      expect(await importer.write(target.db, [importer.parse(fresh)])).toMatchObject({
        inserted: 1,
        updated: 0,
        unchanged: 0,
      });
      const top = await target.db.prisma.newsItem.aggregate({ _max: { id: true } });
      const stored = await target.db.prisma.newsItem.findUniqueOrThrow({ where: { newsId: fresh.news_id } });
      expect(stored.id).toBe(top._max.id);
      expect(stored.id).not.toBe(item.id);
    });
  });

  it('press releases without an integer WireDataID take the next id past the imported ones', async () => {
    const release = clone((sourceBodies['press-releases'][0] as any)[0]);
    const top = (await target.db.prisma.pressRelease.aggregate({ _max: { id: true } }))._max.id!;
    const importer = importers['press-releases'];
    const rows = ['wire-a', 'wire-b'].map((w) => importer.parse({ ...release, WireDataID: w }));
    expect(await importer.write(target.db, rows)).toMatchObject({ inserted: 2, updated: 0, unchanged: 0 });
    const ids = await target.db.prisma.pressRelease.findMany({
      where: { wireDataId: { in: ['wire-a', 'wire-b'] } },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    expect(ids.map((r) => r.id)).toEqual([top + 1, top + 2]);
  });

  it('call summaries: natural key symbol + call date; a re-dated call is a new record with a fresh id', async () => {
    const summary = clone((sourceBodies['call-summaries'][0] as any).data[0]);
    const importer = importers['call-summaries'];
    const moved = { ...summary, call_date: '2031-05-06T21:30:00.000Z' };
    expect(await importer.write(target.db, [importer.parse(moved)])).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    const stored = await target.db.prisma.callSummary.findFirstOrThrow({
      where: { symbol: summary.symbol, callDate: new Date(moved.call_date) },
    });
    expect(stored.id).not.toBe(summary.id);
    expect(await importer.write(target.db, [importer.parse(moved)])).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
  });

  it('of records sharing a key in one batch the last wins, and the counts add up to the batch', async () => {
    const rating = clone((sourceBodies.ratings[0] as any).data[0]);
    const importer = importers.ratings;
    const rows = [importer.parse({ ...rating, story: 'first' }), importer.parse({ ...rating, story: 'second' })];
    expect(await importer.write(target.db, rows)).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    expect((await target.db.prisma.rating.findUniqueOrThrow({ where: { id: rating.id } })).story).toBe('second');
  });
});
