import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The press-release record: the legacy API's documented keys, written down here and not taken from the code, so a key a route drops, adds or misspells fails
const RELEASE_KEYS = [
  'WireDataID',
  'Vendor',
  'ReleaseID',
  'ExternalID',
  'TransmissionID',
  'Headline',
  'SubHeadline',
  'Dateline',
  'Language',
  'PublishTime',
  'Source',
  'SourceURL',
  'Summary',
  'BodyHTML',
  'BodyText',
  'Categories',
  'Keywords',
  'ExternalLinks',
  'Tickers',
  'Exchanges',
  'Securities',
  'Contacts',
  'MediaAssets',
  'Raw',
  'CreatedAt',
  'UpdatedAt',
];
const SECURITY_KEYS = [
  'figi',
  'isin',
  'name',
  'symbol',
  'mic_code',
  'figi_composite',
  'figi_share_class',
  'vendorx_exch_code',
];
const PATH = '/streamhive/api/v1/data';
const NEWEST_FIRST = [
  { publishTime: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.PressReleaseOrderByWithRelationInput[];
const INCLUDE = { tickers: { orderBy: { position: 'asc' } }, securities: { orderBy: { position: 'asc' } } } as const;

describe.each(testDatabases())('REST press releases on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** Every page of `query` at `pageSize`, until a short one; the wire ids in order. */
  async function allPages(query: string, pageSize: number): Promise<string[][]> {
    const pages: string[][] = [];
    for (let page = 1; ; page++) {
      expect(page).toBeLessThan(1000);
      const r = await rest(h, `${PATH}?${query}${query ? '&' : ''}page=${page}&page_size=${pageSize}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      pages.push(r.body.map((x: any) => x.WireDataID));
      if (r.body.length < pageSize) return pages;
    }
  }

  it('the default page is a bare array of the 10 newest releases, each with exactly the legacy keys and the stored values', async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-total-count')).toBe(String(await h.db.prisma.pressRelease.count()));
    const stored = await h.db.prisma.pressRelease.findMany({ orderBy: NEWEST_FIRST, take: 10, include: INCLUDE });
    expect(r.body).toHaveLength(10);
    expect(r.body.map((x: any) => x.WireDataID)).toEqual(stored.map((s) => s.wireDataId));
    for (const [i, rec] of (r.body as any[]).entries()) {
      expect(Object.keys(rec).sort()).toEqual([...RELEASE_KEYS].sort());
      const s = stored[i]!;
      expect(rec).toEqual({
        WireDataID: s.wireDataId,
        Vendor: s.vendor,
        ReleaseID: s.releaseId,
        ExternalID: s.externalId,
        TransmissionID: s.transmissionId,
        Headline: s.headline,
        SubHeadline: s.subHeadline,
        Dateline: s.dateline,
        Language: s.language,
        PublishTime: s.publishTime.toISOString(),
        Source: s.source,
        SourceURL: s.sourceUrl,
        Summary: s.summary,
        BodyHTML: s.bodyHtml,
        BodyText: s.bodyText,
        Categories: s.categories,
        Keywords: s.keywords,
        ExternalLinks: s.externalLinks,
        Tickers: s.tickers.map((t) => t.ticker),
        Exchanges: s.exchanges,
        Securities: s.securities.map((x) => ({
          figi: x.figi,
          isin: x.isin,
          name: x.name,
          symbol: x.symbol,
          mic_code: x.micCode,
          figi_composite: x.figiComposite,
          figi_share_class: x.figiShareClass,
          vendorx_exch_code: x.vendorxExchCode,
        })),
        Contacts: s.contacts,
        MediaAssets: s.mediaAssets,
        Raw: s.raw,
        CreatedAt: s.createdAt.toISOString(),
        UpdatedAt: s.updatedAt.toISOString(),
      });
      for (const sec of rec.Securities) expect(Object.keys(sec).sort()).toEqual([...SECURITY_KEYS].sort());
      for (const c of rec.Contacts) expect(Object.keys(c)).toEqual(['organization']);
      expect(typeof rec.Raw).toBe('object');
    }
  });

  it('keeps a stringified-map ReleaseID as the exact string, and a missing Categories as null', async () => {
    const all = await h.db.prisma.pressRelease.findMany({
      orderBy: NEWEST_FIRST,
      select: { wireDataId: true, releaseId: true, categories: true },
    });
    const mapped = all.find((x) => x.releaseId.startsWith('{'));
    const noCategories = all.find((x) => x.categories === null);
    expect(mapped && noCategories).toBeTruthy();
    const got = (await allPages('', 100)).flat();
    expect(got).toEqual(all.map((x) => x.wireDataId));
    const pageOf = async (wireDataId: string) => {
      const index = all.findIndex((x) => x.wireDataId === wireDataId);
      const r = await rest(h, `${PATH}?page=${Math.floor(index / 100) + 1}&page_size=100`);
      return r.body[index % 100];
    };
    const m = await pageOf(mapped!.wireDataId);
    expect(m.ReleaseID).toBe(mapped!.releaseId);
    expect(typeof m.ReleaseID).toBe('string');
    const n = await pageOf(noCategories!.wireDataId);
    expect(n.Categories).toBeNull();
    expect(n.MediaAssets).toBeNull();
  });

  it('pages to the end by page number without gaps or repeats; a page past the end is an empty array', async () => {
    const all = await h.db.prisma.pressRelease.findMany({ orderBy: NEWEST_FIRST, select: { wireDataId: true } });
    expect(all.length).toBeGreaterThan(40);
    const pages = await allPages('', 17);
    const ids = pages.flat();
    expect(ids).toEqual(all.map((x) => x.wireDataId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.slice(0, -1).every((p) => p.length === 17)).toBe(true);
    const past = await rest(h, `${PATH}?page=${pages.length + 1}&page_size=17`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect(past.headers.get('x-total-count')).toBe(String(all.length));
    const far = await rest(h, `${PATH}?page=1000000&page_size=100`);
    expect(far.body).toEqual([]);
  });

  it('filters by tickers (comma list, any case) and by publish time, alone and together', async () => {
    const counts = await h.db.prisma.pressReleaseTicker.groupBy({
      by: ['ticker'],
      _count: { _all: true },
      orderBy: { ticker: 'asc' },
    });
    const [a, b] = counts.filter((c) => c._count._all >= 3);
    const want = await h.db.prisma.pressRelease.findMany({
      where: { tickers: { some: { ticker: { in: [a!.ticker, b!.ticker] } } } },
      orderBy: NEWEST_FIRST,
      select: { wireDataId: true, publishTime: true },
    });
    const onlyA = await h.db.prisma.pressRelease.findMany({
      where: { tickers: { some: { ticker: a!.ticker } } },
      orderBy: NEWEST_FIRST,
      select: { wireDataId: true },
    });
    expect(onlyA.length).toBeLessThan(want.length);
    expect((await allPages(`tickers=${a!.ticker.toLowerCase()}`, 100)).flat()).toEqual(onlyA.map((x) => x.wireDataId));
    expect((await allPages(`tickers=${a!.ticker},${b!.ticker.toLowerCase()}`, 2)).flat()).toEqual(
      want.map((x) => x.wireDataId),
    );
    expect((await rest(h, `${PATH}?tickers=${a!.ticker},${b!.ticker}`)).headers.get('x-total-count')).toBe(
      String(want.length),
    );
    for (const rec of (await rest(h, `${PATH}?tickers=${a!.ticker}`)).body) expect(rec.Tickers).toContain(a!.ticker);
    expect((await rest(h, `${PATH}?tickers=NOSUCH`)).body).toEqual([]);

    // time bounds are inclusive; without a zone a time is UTC
    const all = await h.db.prisma.pressRelease.findMany({
      orderBy: NEWEST_FIRST,
      select: { wireDataId: true, publishTime: true },
    });
    const mid = all[Math.floor(all.length / 2)]!.publishTime;
    const iso = mid.toISOString();
    const from = (await allPages(`from=${iso}`, 100)).flat();
    expect(from).toEqual(all.filter((x) => x.publishTime >= mid).map((x) => x.wireDataId));
    const to = (await allPages(`to=${iso.slice(0, 19)}`, 100)).flat();
    expect(to).toEqual(
      all.filter((x) => x.publishTime.getTime() <= Math.floor(mid.getTime() / 1000) * 1000).map((x) => x.wireDataId),
    );
    // a bare date as `to` includes that whole day
    const day = iso.slice(0, 10);
    const toDay = (await allPages(`to=${day}`, 100)).flat();
    expect(toDay).toEqual(all.filter((x) => x.publishTime.toISOString().slice(0, 10) <= day).map((x) => x.wireDataId));
    const both = (
      await allPages(
        `tickers=${a!.ticker},${b!.ticker}&from=${want.at(-1)!.publishTime.toISOString()}&to=${want[1]!.publishTime.toISOString()}`,
        100,
      )
    ).flat();
    expect(both).toEqual(want.slice(1).map((x) => x.wireDataId));
    const offset = (
      await allPages(`from=${encodeURIComponent(`${mid.toISOString().slice(0, 19)}+02:00`)}`, 100)
    ).flat();
    expect(offset).toEqual(
      all
        .filter((x) => x.publishTime.getTime() >= Math.floor(mid.getTime() / 1000) * 1000 - 7_200_000)
        .map((x) => x.wireDataId),
    );
  });

  it('agrees with GraphQL pressReleases: the same releases in the same order', async () => {
    const [t] = await h.db.prisma.pressReleaseTicker.groupBy({
      by: ['ticker'],
      _count: { _all: true },
      orderBy: [{ _count: { ticker: 'desc' } }, { ticker: 'asc' }],
      take: 1,
    });
    for (const [args, query] of [
      ['first: 25', 'page_size=25'],
      [`first: 100, tickers: ["${t!.ticker}"]`, `page_size=100&tickers=${t!.ticker}`],
    ]) {
      const g = await h.gql(
        `{ pressReleases(${args}) { nodes { wireDataId releaseId headline publishTime tickers categories securities { figi micCode figiShareClass } } } }`,
      );
      expect(g.errors).toBeUndefined();
      const r = await rest(h, `${PATH}?${query}`);
      expect(
        r.body.map((x: any) => ({
          wireDataId: x.WireDataID,
          releaseId: x.ReleaseID,
          headline: x.Headline,
          publishTime: x.PublishTime,
          tickers: x.Tickers,
          categories: x.Categories,
          securities: x.Securities.map((s: any) => ({
            figi: s.figi,
            micCode: s.mic_code,
            figiShareClass: s.figi_share_class,
          })),
        })),
      ).toEqual(g.data.pressReleases.nodes);
    }
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['page=0', 'page', '0'],
      ['page=-1', 'page', '-1'],
      ['page=1000001', 'page', '1000001'],
      ['page=1.5', 'page', '1.5'],
      ['page_size=0', 'page_size', '0'],
      ['page_size=101', 'page_size', '101'],
      ['page_size=ten', 'page_size', 'ten'],
      ['from=2026-13-45', 'from', '2026-13-45'],
      ['from=2026-02-30T00:00:00Z', 'from', '2026-02-30T00:00:00Z'],
      ['to=yesterday', 'to', 'yesterday'],
      ['from=2026-02-01&to=2026-01-01T00:00:00', 'from'],
      [`tickers=${encodeURIComponent("' OR 1=1 --")}`, 'tickers', "' OR 1=1 --"],
      [`tickers=${encodeURIComponent('<script>alert(1)</script>')}`, 'tickers', '<script>'],
      ['tickers=AAPL,,MSFT', 'tickers', 'AAPL,,MSFT'],
      [`tickers=${'A'.repeat(21)}`, 'tickers'],
      [`tickers=${Array.from({ length: 101 }, (_, i) => `T${i}`).join(',')}`, 'tickers'],
      ['ticker=AAPL&tickers=MSFT', 'ticker'],
      ['page=1&page=2', 'page'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, `${PATH}?${q}`), name, value);
  });

  it('401 without or with a wrong key; 403 for the free tier; the pro tier and the apikey parameter work', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    const free = await rest(h, PATH, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toContain('pro');
    const pro = await rest(h, `${PATH}?apikey=demo-pro&page_size=2`, { key: null });
    expect(pro.status).toBe(200);
    expect(pro.body).toHaveLength(2);
  });
});
