import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The logo record, from the legacy API's documented keys (not from the code): a `logos` object holding png, svg and thumbnail objects.
const LOGO_KEYS = ['symbol', 'company_name', 'created_at', 'updated_at', 'logos', 'security_info'];
const PNG_KEYS = ['url', 'height', 'width', 'size_kb'];
const IMAGE_KEYS = ['url', 'size_kb'];
const SECURITY_INFO_KEYS = [
  'symbol',
  'name',
  'MIC',
  'figi',
  'exch_code',
  'composite_figi',
  'share_class_figi',
  'market_sector',
];
const PATH = '/api/v1/logos';
const sorted = (keys: string[]) => [...keys].sort();

describe.each(testDatabases())('REST logos on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** A stored logo in the REST shape, built from the database alone. */
  async function expectedLogo(symbol: string) {
    const l = await h.db.prisma.logo.findUniqueOrThrow({
      where: { symbol },
      include: { securityInfo: { orderBy: { position: 'asc' } } },
    });
    return {
      symbol: l.symbol,
      company_name: l.companyName,
      created_at: l.createdAt.toISOString(),
      updated_at: l.updatedAt.toISOString(),
      logos: {
        png: { url: l.pngUrl, height: l.pngHeight, width: l.pngWidth, size_kb: l.pngSizeKb },
        svg: { url: l.svgUrl, size_kb: l.svgSizeKb },
        thumbnail: { url: l.thumbnailUrl, size_kb: l.thumbnailSizeKb },
      },
      security_info: l.securityInfo.map((i) => ({
        symbol: i.symbol,
        name: i.name,
        MIC: i.mic,
        figi: i.figi,
        exch_code: i.exchCode,
        composite_figi: i.compositeFigi,
        share_class_figi: i.shareClassFigi,
        market_sector: i.marketSector,
      })),
    };
  }

  it('the default page: 10 logos by symbol with exactly the legacy keys', async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['Logos', 'message']);
    expect(typeof r.body.message).toBe('string');
    const total = await h.db.prisma.logo.count();
    expect(r.headers.get('x-total-count')).toBe(String(total));
    expect(r.body.Logos).toHaveLength(Math.min(10, total));
    const stored = await h.db.prisma.logo.findMany({ orderBy: { symbol: 'asc' }, take: 10 });
    expect(r.body.Logos.map((l: any) => l.symbol)).toEqual(stored.map((l) => l.symbol));
    for (const logo of r.body.Logos) {
      expect(sorted(Object.keys(logo))).toEqual(sorted(LOGO_KEYS));
      expect(sorted(Object.keys(logo.logos))).toEqual(['png', 'svg', 'thumbnail']);
      expect(sorted(Object.keys(logo.logos.png))).toEqual(sorted(PNG_KEYS));
      expect(sorted(Object.keys(logo.logos.svg))).toEqual(sorted(IMAGE_KEYS));
      expect(sorted(Object.keys(logo.logos.thumbnail))).toEqual(sorted(IMAGE_KEYS));
      expect(logo.security_info.length).toBeGreaterThan(0);
      for (const info of logo.security_info) expect(sorted(Object.keys(info))).toEqual(sorted(SECURITY_INFO_KEYS));
      expect(logo).toEqual(await expectedLogo(logo.symbol));
    }
  });

  it('keeps security_info in stored order with repeated FIGIs, a `*` marker and an empty MIC', async () => {
    const rows = await h.db.prisma.logoSecurityInfo.groupBy({
      by: ['logoId', 'figi'],
      _count: { _all: true },
      orderBy: { logoId: 'asc' },
    });
    const repeated = rows.find((x) => x._count._all > 1)!;
    const logo = await h.db.prisma.logo.findUniqueOrThrow({ where: { id: repeated.logoId } });
    const r = await rest(h, `${PATH}?symbols=${logo.symbol.toLowerCase()}`);
    expect(r.status).toBe(200);
    expect(r.body.Logos).toHaveLength(1);
    const [got] = r.body.Logos;
    expect(got).toEqual(await expectedLogo(logo.symbol));
    const figis = got.security_info.map((i: any) => i.figi);
    expect(new Set(figis).size).toBeLessThan(figis.length);
    expect(got.security_info.some((i: any) => i.symbol.endsWith('*'))).toBe(true);
    expect(got.security_info.some((i: any) => i.MIC === '')).toBe(true);
  });

  it('symbols filters (comma list, any case, spaces after commas), and unknown symbols give an empty list', async () => {
    const all = await h.db.prisma.logo.findMany({ orderBy: { symbol: 'asc' } });
    const pick = [all[7]!.symbol, all[2]!.symbol, all[30]!.symbol];
    const r = await rest(
      h,
      `${PATH}?symbols=${encodeURIComponent(`${pick[0]!.toLowerCase()}, ${pick[1]},${pick[2]}`)}`,
    );
    expect(r.status).toBe(200);
    expect(r.body.Logos.map((l: any) => l.symbol)).toEqual([...pick].sort());
    expect(r.headers.get('x-total-count')).toBe('3');
    const none = await rest(h, `${PATH}?symbols=NOSUCH`);
    expect(none.status).toBe(200);
    expect(none.body.Logos).toEqual([]);
  });

  it('pages to the end without gaps or repeats; a page past the end is empty', async () => {
    const stored = (await h.db.prisma.logo.findMany({ orderBy: { symbol: 'asc' } })).map((l) => l.symbol);
    for (const size of [7, 100]) {
      const seen: string[] = [];
      const pageCount = Math.ceil(stored.length / size);
      for (let page = 1; page <= pageCount; page++) {
        const r = await rest(h, `${PATH}?page=${page}&page_size=${size}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('x-total-count')).toBe(String(stored.length));
        expect(r.body.message).toContain(`of ${pageCount}`);
        seen.push(...r.body.Logos.map((l: any) => l.symbol));
      }
      expect(seen).toEqual(stored);
      const past = await rest(h, `${PATH}?page=${pageCount + 1}&page_size=${size}`);
      expect(past.status).toBe(200);
      expect(past.body.Logos).toEqual([]);
    }
    // pages past 1,000,000 are refused (as on every page-numbered route) rather than scanned
    expectBadParam(await rest(h, `${PATH}?page=999999999999999&page_size=100`), 'page', '999999999999999');
  });

  it('agrees with GraphQL logos: same symbols, images and security info in the same order', async () => {
    const g =
      await h.gql(`{ logos(first: 25) { nodes { symbol companyName createdAt png { url height width sizeKb } svg { url sizeKb } thumbnail { url sizeKb }
      securityInfo { symbol name mic figi exchCode compositeFigi shareClassFigi marketSector } } } }`);
    expect(g.errors).toBeUndefined();
    const r = await rest(h, `${PATH}?page_size=25`);
    expect(
      r.body.Logos.map((l: any) => ({
        symbol: l.symbol,
        companyName: l.company_name,
        createdAt: l.created_at,
        png: {
          url: l.logos.png.url,
          height: l.logos.png.height,
          width: l.logos.png.width,
          sizeKb: l.logos.png.size_kb,
        },
        svg: { url: l.logos.svg.url, sizeKb: l.logos.svg.size_kb },
        thumbnail: { url: l.logos.thumbnail.url, sizeKb: l.logos.thumbnail.size_kb },
        securityInfo: l.security_info.map((i: any) => ({
          symbol: i.symbol,
          name: i.name,
          mic: i.MIC,
          figi: i.figi,
          exchCode: i.exch_code,
          compositeFigi: i.composite_figi,
          shareClassFigi: i.share_class_figi,
          marketSector: i.market_sector,
        })),
      })),
    ).toEqual(g.data.logos.nodes);
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['?page=0', 'page', '0'],
      ['?page=-1', 'page', '-1'],
      ['?page=two', 'page', 'two'],
      ['?page_size=101', 'page_size', '101'],
      ['?page_size=0', 'page_size', '0'],
      ['?page_size=1.5', 'page_size', '1.5'],
      [`?symbols=${encodeURIComponent("' OR 1=1 --")}`, 'symbols'],
      [`?symbols=${encodeURIComponent('<script>alert(1)</script>')}`, 'symbols'],
      ['?symbols=AAPL,,MSFT', 'symbols'],
      [`?symbols=${'A'.repeat(21)}`, 'symbols'],
      [`?symbols=${Array.from({ length: 101 }, (_, i) => `S${i}`).join(',')}`, 'symbols'],
      ['?page=1&page=2', 'page'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, PATH + q), name, value);
  });

  it('401 without or with a wrong key; the free tier is entitled; apikey works as a parameter', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'demo-free' })).status).toBe(200);
    expect((await rest(h, `${PATH}?apikey=demo-free&page_size=1`, { key: null })).status).toBe(200);
  });
});
