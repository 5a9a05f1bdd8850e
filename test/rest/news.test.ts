import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The news record: the legacy API's documented keys, written down here and not taken from the code, so a key a route drops, adds or misspells fails
const NEWS_KEYS = [
  'id',
  'news_id',
  'headline',
  'catalyst',
  'catalyst_created',
  'associated_press_releases',
  'associated_ratings',
  'associated_transcripts',
  'logo_exists',
  'logo_thumbnail_url',
  'on_all_tickers',
  'on_entities',
  'share_class_figi',
  'ticker',
  'type',
  'created_at',
  'updated_at',
  'securities',
];
const SECURITY_KEYS = [
  'figi',
  'name',
  'MIC',
  'exchcode',
  'ticker',
  'compositefigi',
  'securitytype',
  'marketsector',
  'shareclassfigi',
];
const PATH = '/news/api/v1/news';
const NEWEST_FIRST = [
  { createdAt: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.NewsItemOrderByWithRelationInput[];
const WITH_SECURITIES = { securities: { orderBy: { position: 'asc' } } } as const;

describe.each(testDatabases())('REST news on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const counts = await h.db.prisma.newsItem.groupBy({
      by: ['ticker'],
      _count: { _all: true },
      orderBy: [{ _count: { ticker: 'desc' } }, { ticker: 'asc' }],
      take: 1,
    });
    symbol = counts[0]!.ticker;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const stored = (where: Prisma.NewsItemWhereInput = {}) =>
    h.db.prisma.newsItem.findMany({
      where: { ticker: symbol, ...where },
      orderBy: NEWEST_FIRST,
      include: WITH_SECURITIES,
    });

  /** Every page of `query` at `pageSize`, until a short one: the ids, page by page. */
  async function allPages(query: string, pageSize: number): Promise<number[][]> {
    const pages: number[][] = [];
    for (let page = 1; ; page++) {
      expect(page).toBeLessThan(1000);
      const r = await rest(h, `${PATH}?${query}&page=${page}&page_size=${pageSize}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      pages.push(r.body.data.map((x: any) => x.id));
      if (r.body.data.length < pageSize) return pages;
    }
  }

  it("a symbol's newest items with exactly the legacy keys and the stored values, message OK", async () => {
    const items = await stored();
    expect(items.length).toBeGreaterThan(3);
    const r = await rest(h, `${PATH}?symbol=${symbol.toLowerCase()}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'message']);
    expect(r.body.message).toBe('OK');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-total-count')).toBe(String(items.length));
    for (const rec of r.body.data) {
      expect(Object.keys(rec).sort()).toEqual([...NEWS_KEYS].sort());
      expect(rec.securities.length).toBeGreaterThan(0);
      for (const s of rec.securities) expect(Object.keys(s).sort()).toEqual([...SECURITY_KEYS].sort());
    }
    expect(r.body.data).toEqual(
      items.slice(0, 10).map((n) => ({
        id: n.id,
        news_id: n.newsId,
        headline: n.headline,
        catalyst: n.catalyst,
        catalyst_created: n.catalystCreated,
        associated_press_releases: n.associatedPressReleases,
        associated_ratings: n.associatedRatings,
        associated_transcripts: n.associatedTranscripts,
        logo_exists: n.logoExists,
        logo_thumbnail_url: n.logoThumbnailUrl,
        on_all_tickers: n.onAllTickers,
        on_entities: n.onEntities,
        share_class_figi: n.shareClassFigi,
        ticker: n.ticker,
        type: n.type,
        created_at: n.createdAt.toISOString(),
        updated_at: n.updatedAt.toISOString(),
        securities: n.securities.map((s) => ({
          figi: s.figi,
          name: s.name,
          MIC: s.mic,
          exchcode: s.exchcode,
          ticker: s.ticker,
          compositefigi: s.compositefigi,
          securitytype: s.securitytype,
          marketsector: s.marketsector,
          shareclassfigi: s.shareclassfigi,
        })),
      })),
    );
  });

  it('securities=false leaves the securities key out; securities=true is the default', async () => {
    const without = await rest(h, `${PATH}?symbol=${symbol}&securities=false`);
    expect(without.status).toBe(200);
    for (const rec of without.body.data)
      expect(Object.keys(rec).sort()).toEqual(NEWS_KEYS.filter((k) => k !== 'securities').sort());
    const withIt = await rest(h, `${PATH}?symbol=${symbol}&securities=true`);
    const byDefault = await rest(h, `${PATH}?symbol=${symbol}`);
    expect(withIt.body.data).toEqual(byDefault.body.data);
    expect(withIt.body.data.map(({ securities, ...rest }: any) => rest)).toEqual(without.body.data);
  });

  it('pages to the end by page number without gaps or repeats; a page past the end is empty', async () => {
    const items = await stored();
    const pages = await allPages(`symbol=${symbol}`, 2);
    expect(pages.flat()).toEqual(items.map((i) => i.id));
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    const past = await rest(h, `${PATH}?symbol=${symbol}&page=${pages.length + 1}&page_size=2`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], message: 'OK' });
    expect(past.headers.get('x-total-count')).toBe(String(items.length));
    // an unknown symbol has no news: an empty list, not an error
    const none = await rest(h, `${PATH}?symbol=NOSUCH`);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('filters by type, share_class_figi (any case) and id, checked against the database', async () => {
    const items = await stored();
    for (const type of ['gainers', 'losers'] as const) {
      const want = await stored({ type });
      expect((await allPages(`symbol=${symbol}&type=${type}`, 100)).flat(), type).toEqual(want.map((i) => i.id));
      expect(
        (await rest(h, `${PATH}?symbol=${symbol}&type=${type}&page_size=1`)).headers.get('x-total-count'),
        type,
      ).toBe(String(want.length));
    }
    const figi = items[0]!.shareClassFigi;
    expect((await allPages(`symbol=${symbol}&share_class_figi=${figi.toLowerCase()}`, 100)).flat()).toEqual(
      (await stored({ shareClassFigi: figi })).map((i) => i.id),
    );
    expect((await rest(h, `${PATH}?symbol=${symbol}&share_class_figi=BBG000000000`)).body.data).toEqual([]);
    expect((await allPages(`symbol=${symbol}&id=${items[1]!.id}`, 10)).flat()).toEqual([items[1]!.id]);
    // an id of another symbol's item does not match
    const other = await h.db.prisma.newsItem.findFirstOrThrow({ where: { ticker: { not: symbol } } });
    expect((await rest(h, `${PATH}?symbol=${symbol}&id=${other.id}`)).body.data).toEqual([]);
    // every record is about the symbol asked for
    for (const rec of (await rest(h, `${PATH}?symbol=${symbol}&page_size=100`)).body.data)
      expect(rec.ticker).toBe(symbol);
  });

  it('agrees with GraphQL news: the same items in the same order', async () => {
    for (const [args, query] of [
      [`symbol: "${symbol}", first: 100`, `symbol=${symbol}&page_size=100`],
      [`symbol: "${symbol}", first: 100, type: LOSERS`, `symbol=${symbol}&page_size=100&type=losers`],
    ]) {
      const g = await h.gql(
        `{ news(${args}) { nodes { newsItemId newsId type associatedPressReleaseIds createdAt securities { figi mic } } } }`,
      );
      expect(g.errors).toBeUndefined();
      const r = await rest(h, `${PATH}?${query}`);
      expect(
        r.body.data.map((x: any) => ({
          newsItemId: x.id,
          newsId: x.news_id,
          type: x.type.toUpperCase(),
          associatedPressReleaseIds: x.associated_press_releases,
          createdAt: x.created_at,
          securities: x.securities.map((s: any) => ({ figi: s.figi, mic: s.MIC })),
        })),
      ).toEqual(g.data.news.nodes);
    }
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const s = `symbol=${symbol}`;
    const cases: [string, string, string?][] = [
      ['', 'symbol'],
      ['page=1', 'symbol'],
      [`symbol=${encodeURIComponent('<script>')}`, 'symbol', '<script>'],
      [`symbol=${encodeURIComponent("' OR 1=1 --")}`, 'symbol', "' OR 1=1 --"],
      ['symbol=AAPL,MSFT', 'symbol', 'AAPL,MSFT'],
      [`symbol=${'A'.repeat(21)}`, 'symbol'],
      [`${s}&page=0`, 'page', '0'],
      [`${s}&page_size=101`, 'page_size', '101'],
      [`${s}&page_size=0`, 'page_size', '0'],
      [`${s}&type=sideways`, 'type', 'sideways'],
      [`${s}&id=abc`, 'id', 'abc'],
      [`${s}&id=3000000000`, 'id', '3000000000'],
      [`${s}&securities=yes`, 'securities', 'yes'],
      [`${s}&share_class_figi=${encodeURIComponent("' OR 1=1 --")}`, 'share_class_figi', "' OR 1=1 --"],
      [`${s}&share_class_figi=BBG`, 'share_class_figi', 'BBG'],
      [`${s}&securities=TRUE&securities=false`, 'securities'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, `${PATH}?${q}`), name, value);
  });

  it('401 without or with a wrong key; the free tier is entitled; the apikey parameter works', async () => {
    expect((await rest(h, `${PATH}?symbol=${symbol}`, { key: null })).status).toBe(401);
    expect((await rest(h, `${PATH}?symbol=${symbol}`, { key: 'wrong' })).status).toBe(401);
    expect((await rest(h, `${PATH}?symbol=${symbol}`, { key: 'demo-free' })).status).toBe(200);
    const param = await rest(h, `${PATH}?symbol=${symbol}&apikey=demo-free&page_size=1`, { key: null });
    expect(param.status).toBe(200);
    expect(param.body.data).toHaveLength(1);
  });
});
