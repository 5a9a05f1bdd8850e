import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma, Rating } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The rating record: the legacy API's documented keys, written down here and not taken from the code, so a key a route drops, adds or misspells fails
const RATING_KEYS = [
  'id',
  'firm',
  'ticker',
  'exchange',
  'company',
  'action',
  'rating',
  'price_target',
  'story',
  'is_rating',
  'created_at',
  'updated_at',
];
const PATH = '/rating/api/v1/ratings';
const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] as const satisfies Prisma.RatingOrderByWithRelationInput[];

/** YYYY-MM-DD HH:MM:SS (UTC), the legacy format for from/to. */
const spaced = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

describe.each(testDatabases())('REST ratings on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: Rating[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    all = await h.db.prisma.rating.findMany({ orderBy: NEWEST_FIRST });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** Every page of `query` at `pageSize`, until a short one: the ids, page by page. */
  async function allPages(query: string, pageSize = 100): Promise<number[][]> {
    const pages: number[][] = [];
    for (let page = 1; ; page++) {
      expect(page).toBeLessThan(1000);
      const r = await rest(h, `${PATH}?${query}${query ? '&' : ''}page=${page}&page_size=${pageSize}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      pages.push(r.body.data.map((x: any) => x.id));
      if (r.body.data.length < pageSize) return pages;
    }
  }
  const ids = (rows: Rating[]) => rows.map((r) => r.id);

  it('the default page is the 10 newest ratings, with exactly the legacy keys and the stored values, message OK', async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'message']);
    expect(r.body.message).toBe('OK');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-total-count')).toBe(String(all.length));
    expect(r.body.data).toHaveLength(10);
    for (const rec of r.body.data) expect(Object.keys(rec).sort()).toEqual([...RATING_KEYS].sort());
    expect(r.body.data).toEqual(
      all.slice(0, 10).map((s) => ({
        id: s.id,
        firm: s.firm,
        ticker: s.ticker,
        exchange: s.exchange,
        company: s.company,
        action: s.action,
        rating: s.rating,
        price_target: s.priceTarget,
        story: s.story,
        is_rating: s.isRating,
        created_at: s.createdAt.toISOString(),
        updated_at: s.updatedAt.toISOString(),
      })),
    );
    expect(typeof r.body.data[0].price_target).toBe('string');
  });

  it('pages to the end by page number without gaps or repeats; a page past the end is empty', async () => {
    expect(all.length).toBeGreaterThan(100);
    const pages = await allPages('', 37);
    expect(pages.flat()).toEqual(ids(all));
    expect(pages.slice(0, -1).every((p) => p.length === 37)).toBe(true);
    const past = await rest(h, `${PATH}?page=${pages.length + 1}&page_size=37`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], message: 'OK' });
    expect(past.headers.get('x-total-count')).toBe(String(all.length));
  });

  it('every filter filters: id, exchange, company, firm, symbol (one or a comma list, any case), from, to', async () => {
    const sample = all[Math.floor(all.length / 3)]!;
    const [a, b] = [...new Set(all.map((r) => r.ticker))].sort();
    const cases: [string, (r: Rating) => boolean][] = [
      [`id=${sample.id}`, (r) => r.id === sample.id],
      [`exchange=${encodeURIComponent(sample.exchange)}`, (r) => r.exchange === sample.exchange],
      [`company=${encodeURIComponent(sample.company)}`, (r) => r.company === sample.company],
      [`firm=${encodeURIComponent(sample.firm)}`, (r) => r.firm === sample.firm],
      [`symbol=${a!.toLowerCase()}`, (r) => r.ticker === a],
      [`symbol=${a},${b!.toLowerCase()}`, (r) => r.ticker === a || r.ticker === b],
      [`from=${encodeURIComponent(spaced(sample.createdAt))}`, (r) => r.createdAt >= sample.createdAt],
      [`to=${encodeURIComponent(spaced(sample.createdAt))}`, (r) => r.createdAt <= sample.createdAt],
      [
        `firm=${encodeURIComponent(sample.firm)}&exchange=${encodeURIComponent(sample.exchange)}&to=${encodeURIComponent(spaced(sample.createdAt))}`,
        (r) => r.firm === sample.firm && r.exchange === sample.exchange && r.createdAt <= sample.createdAt,
      ],
      [`id=${sample.id}&firm=${encodeURIComponent(sample.firm === 'nobody' ? 'x' : 'nobody')}`, () => false],
    ];
    for (const [q, keep] of cases) {
      const want = all.filter(keep);
      expect(want.length === 0 || want.length < all.length, q).toBe(true);
      expect((await allPages(q, 7)).flat(), q).toEqual(ids(want));
      expect((await rest(h, `${PATH}?${q}`)).headers.get('x-total-count'), q).toBe(String(want.length));
    }
    // the cross-check with the database itself, not only with the in-memory list
    const fromDb = await h.db.prisma.rating.findMany({
      where: { ticker: { in: [a!, b!] }, createdAt: { gte: sample.createdAt } },
      orderBy: NEWEST_FIRST,
    });
    expect((await allPages(`symbol=${a},${b}&from=${encodeURIComponent(spaced(sample.createdAt))}`)).flat()).toEqual(
      ids(fromDb),
    );
    // free text is compared, never interpreted
    for (const q of [
      `firm=${encodeURIComponent("' OR 1=1 --")}`,
      `company=${encodeURIComponent('<script>alert(1)</script>')}`,
      `exchange=${encodeURIComponent('%')}`,
    ]) {
      const r = await rest(h, `${PATH}?${q}`);
      expect(r.status, q).toBe(200);
      expect(r.body.data, q).toEqual([]);
    }
  });

  it('firm, company and exchange match in any case, in REST and GraphQL alike (the service declares it once)', async () => {
    const sample = all[Math.floor(all.length / 2)]!;
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    const cases: [string, string, string, (r: Rating) => boolean][] = [
      ['firm', 'firm', sample.firm.toUpperCase(), (r) => same(r.firm, sample.firm)],
      ['company', 'company', sample.company.toLowerCase(), (r) => same(r.company, sample.company)],
      ['exchange', 'exchange', sample.exchange.toLowerCase(), (r) => same(r.exchange, sample.exchange)],
    ];
    for (const [param, field, value, keep] of cases) {
      const want = ids(all.filter(keep));
      expect(want.length, param).toBeGreaterThan(0);
      expect((await allPages(`${param}=${encodeURIComponent(value)}`)).flat(), param).toEqual(want);
      const g = await h.gql('query($f: RatingFilter) { ratings(first: 100, filter: $f) { nodes { ratingId } } }', {
        f: { [field]: value },
      });
      expect(g.errors, param).toBeUndefined();
      expect(
        g.data.ratings.nodes.map((n: any) => n.ratingId),
        param,
      ).toEqual(want.slice(0, 100));
    }
  });

  it("from and to take a date alone (its whole day for to), the spec's form and ISO 8601; GraphQL takes the same", async () => {
    const day = all[Math.floor(all.length / 2)]!.createdAt.toISOString().slice(0, 10);
    const onDay = ids(all.filter((r) => r.createdAt.toISOString().slice(0, 10) === day));
    expect(onDay.length).toBeGreaterThan(0);
    expect(onDay.length).toBeLessThan(all.length);
    for (const q of [
      `from=${day}&to=${day}`,
      `from=${encodeURIComponent(`${day} 00:00:00`)}&to=${encodeURIComponent(`${day} 23:59:59`)}`,
      `from=${day}T00:00:00Z&to=${day}T23:59:59.999Z`,
      `from=${encodeURIComponent(`${day}T05:00:00+05:00`)}&to=${day}`,
    ])
      expect((await allPages(q)).flat(), q).toEqual(onDay);
    const g = await h.gql('query($f: RatingFilter) { ratings(first: 100, filter: $f) { nodes { ratingId } } }', {
      f: { from: day, to: day },
    });
    expect(g.errors).toBeUndefined();
    expect(g.data.ratings.nodes.map((n: any) => n.ratingId)).toEqual(onDay.slice(0, 100));
    // as a literal, and in the spec's own form
    const literal = await h.gql(
      `{ ratings(first: 100, filter: { from: "${day} 00:00:00", to: "${day}" }) { nodes { ratingId } } }`,
    );
    expect(literal.data.ratings.nodes.map((n: any) => n.ratingId)).toEqual(onDay.slice(0, 100));
    // a time the calendar lacks is refused by GraphQL too, with the forms it takes
    const bad = await h.gql('{ ratings(filter: { to: "2026-02-30" }) { nodes { ratingId } } }');
    expect(bad.errors?.[0]?.message).toContain('DateTime must be a date YYYY-MM-DD');
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('agrees with GraphQL ratings: the same ratings in the same order', async () => {
    const firm = all[0]!.firm;
    for (const [filter, query] of [
      ['', 'page_size=50'],
      [
        `filter: { firm: "${firm}", symbol: ["${all[0]!.ticker}", "${all[5]!.ticker}"] }`,
        `page_size=50&firm=${encodeURIComponent(firm)}&symbol=${all[0]!.ticker},${all[5]!.ticker}`,
      ],
    ]) {
      const g = await h.gql(
        `{ ratings(first: 50 ${filter ? `, ${filter}` : ''}) { nodes { ratingId ticker firm priceTarget isRating createdAt } } }`,
      );
      expect(g.errors).toBeUndefined();
      const r = await rest(h, `${PATH}?${query}`);
      expect(g.data.ratings.nodes.length).toBeGreaterThan(0);
      expect(
        r.body.data.map((x: any) => ({
          ratingId: x.id,
          ticker: x.ticker,
          firm: x.firm,
          priceTarget: x.price_target,
          isRating: x.is_rating,
          createdAt: x.created_at,
        })),
      ).toEqual(g.data.ratings.nodes);
    }
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['page=0', 'page', '0'],
      ['page=abc', 'page', 'abc'],
      ['page_size=0', 'page_size', '0'],
      ['page_size=101', 'page_size', '101'],
      ['id=abc', 'id', 'abc'],
      ['id=0', 'id', '0'],
      ['id=99999999999', 'id', '99999999999'],
      [`id=${encodeURIComponent('1 OR 1=1')}`, 'id', '1 OR 1=1'],
      [`from=${encodeURIComponent('2026-02-30 00:00:00')}`, 'from', '2026-02-30 00:00:00'],
      [`to=${encodeURIComponent('2026-01-31 25:00:00')}`, 'to', '2026-01-31 25:00:00'],
      [`from=${encodeURIComponent('2026-02-01 00:00:00')}&to=${encodeURIComponent('2026-01-01 00:00:00')}`, 'from'],
      [`symbol=${encodeURIComponent("' OR 1=1 --")}`, 'symbol', "' OR 1=1 --"],
      [`symbol=${encodeURIComponent('<script>')}`, 'symbol', '<script>'],
      ['symbol=AAPL,', 'symbol', 'AAPL,'],
      [`firm=${'x'.repeat(201)}`, 'firm'],
      ['from=31/01/2026', 'from', '31/01/2026'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, `${PATH}?${q}`), name, value);
  });

  it('401 without or with a wrong key; the free tier is entitled; the apikey parameter works', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'demo-free' })).status).toBe(200);
    const param = await rest(h, `${PATH}?apikey=demo-free&page_size=3`, { key: null });
    expect(param.status).toBe(200);
    expect(param.body.data).toHaveLength(3);
  });
});
