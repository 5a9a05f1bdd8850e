import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma, Rating } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult, expectBadUserInput } from './helpers.js';
import { testDatabases } from '../helpers.js';

const FIELDS =
  'id ratingId firm ticker exchange company action rating priceTarget story isRating createdAt updatedAt security { symbol }';
const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] as const satisfies Prisma.RatingOrderByWithRelationInput[];

interface Node {
  ratingId: number;
  ticker: string;
  firm: string;
  createdAt: string;
}

/** A stored rating in the shape the API answers with. */
function answer(r: Rating) {
  const { id, createdAt, updatedAt, ...rest } = r;
  return {
    ...rest,
    id: expect.any(String),
    ratingId: id,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
    security: { symbol: r.ticker },
  };
}

describe.each(testDatabases())('GraphQL ratings on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  async function ratingsQuery(filter: Record<string, unknown>, first = 100) {
    const res = await h.gql(
      `query($f: RatingFilter, $n: Int) { ratings(filter: $f, first: $n) { totalCount nodes { ${FIELDS} } } }`,
      { f: filter, n: first },
    );
    expect(res.errors).toBeUndefined();
    return res.data.ratings as { totalCount: number; nodes: Node[] };
  }

  it('lists the newest ratings first with every field as stored, and counts them all', async () => {
    const newest = await h.db.prisma.rating.findMany({ orderBy: NEWEST_FIRST, take: 10 });
    const res = await h.gql(`{ ratings { totalCount nodes { ${FIELDS} } pageInfo { hasNextPage } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.ratings.totalCount).toBe(await h.db.prisma.rating.count());
    expect(res.data.ratings.pageInfo.hasNextPage).toBe(true);
    expect(res.data.ratings.nodes).toEqual(newest.map(answer));
  });

  it('filters by symbol: one string, a comma list or a list, case-insensitive', async () => {
    const [a, b] = await h.db.prisma.rating.findMany({ distinct: ['ticker'], orderBy: { ticker: 'asc' }, take: 2 });
    const want = await h.db.prisma.rating.findMany({
      where: { ticker: { in: [a!.ticker, b!.ticker] } },
      orderBy: NEWEST_FIRST,
    });
    const onlyA = want.filter((r) => r.ticker === a!.ticker);
    expect(onlyA.length).toBeGreaterThan(0);
    expect(onlyA.length).toBeLessThan(want.length);

    const single = await ratingsQuery({ symbol: a!.ticker.toLowerCase() });
    expect(single.totalCount).toBe(onlyA.length);
    expect(single.nodes).toEqual(onlyA.map(answer));
    for (const symbol of [`${a!.ticker},${b!.ticker.toLowerCase()}`, [a!.ticker, b!.ticker]]) {
      const both = await ratingsQuery({ symbol });
      expect(both.totalCount).toBe(want.length);
      expect(both.nodes.map((n) => n.ratingId)).toEqual(want.map((r) => r.id));
    }
  });

  it('filters by firm, exchange, company and id, each exactly', async () => {
    const sample = await h.db.prisma.rating.findFirstOrThrow({ orderBy: { id: 'asc' }, skip: 7 });
    for (const key of ['firm', 'exchange', 'company'] as const) {
      const want = await h.db.prisma.rating.findMany({ where: { [key]: sample[key] }, orderBy: NEWEST_FIRST });
      expect(want.length).toBeLessThan(await h.db.prisma.rating.count());
      const got = await ratingsQuery({ [key]: sample[key] });
      expect(got.totalCount).toBe(want.length);
      expect(got.nodes.map((n) => n.ratingId)).toEqual(want.slice(0, 100).map((r) => r.id));
    }
    expect(await ratingsQuery({ id: sample.id })).toEqual({ totalCount: 1, nodes: [answer(sample)] });
    expect(await ratingsQuery({ firm: `${sample.firm.toUpperCase()} X` })).toEqual({ totalCount: 0, nodes: [] });
  });

  it('filters by creation time with inclusive bounds, combined with other conditions', async () => {
    const all = await h.db.prisma.rating.findMany({ orderBy: NEWEST_FIRST });
    const to = all[20]!.createdAt;
    const from = all[80]!.createdAt;
    const got = await ratingsQuery({ from: from.toISOString(), to: to.toISOString() });
    const want = all.filter((r) => r.createdAt >= from && r.createdAt <= to);
    expect(got.totalCount).toBe(want.length);
    expect(got.nodes.map((n) => n.ratingId)).toEqual(want.map((r) => r.id));

    const firm = want[0]!.firm;
    const narrowed = await ratingsQuery({ from: from.toISOString(), to: to.toISOString(), firm });
    expect(narrowed.nodes.map((n) => n.ratingId)).toEqual(want.filter((r) => r.firm === firm).map((r) => r.id));
  });

  it('pages through every rating: `after` continues without overlap and the last page ends', async () => {
    const all = await h.db.prisma.rating.findMany({ orderBy: NEWEST_FIRST, select: { id: true } });
    const seen: number[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(all.length);
      const res: GraphQLResult = await h.gql(
        `query($after: String) { ratings(first: 100, after: $after) { totalCount nodes { ratingId } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(res.errors).toBeUndefined();
      const page: { totalCount: number; nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string } } =
        res.data.ratings;
      expect(page.totalCount).toBe(all.length);
      seen.push(...page.nodes.map((n) => n.ratingId));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });

  it("a security's ratings are its symbol's newest, filtered, and page with `after`", async () => {
    const busiest = await h.db.prisma.rating.groupBy({
      by: ['ticker'],
      _count: { _all: true },
      orderBy: [{ _count: { ticker: 'desc' } }, { ticker: 'asc' }],
      take: 1,
    });
    const symbol = busiest[0]!.ticker;
    const mine = await h.db.prisma.rating.findMany({ where: { ticker: symbol }, orderBy: NEWEST_FIRST });
    const query = `query($s: String, $f: SecurityRatingFilter, $after: String) {
      security(symbol: $s) { ratings(filter: $f, first: 3, after: $after) { totalCount nodes { ${FIELDS} } pageInfo { hasNextPage endCursor } } } }`;
    const first = await h.gql(query, { s: symbol });
    expect(first.errors).toBeUndefined();
    expect(first.data.security.ratings.totalCount).toBeNull();
    expect(first.data.security.ratings.nodes).toEqual(mine.slice(0, 3).map(answer));
    const second = await h.gql(query, { s: symbol, after: first.data.security.ratings.pageInfo.endCursor });
    expect(second.data.security.ratings.nodes).toEqual(mine.slice(3, 6).map(answer));

    const firm = mine[1]!.firm;
    const filtered = await h.gql(query, { s: symbol, f: { firm, to: mine[1]!.createdAt.toISOString() } });
    expect(filtered.errors).toBeUndefined();
    const want = mine.filter((r) => r.firm === firm && r.createdAt <= mine[1]!.createdAt).slice(0, 3);
    expect(filtered.data.security.ratings.nodes).toEqual(want.map(answer));
  });

  it('node(id) answers the same rating', async () => {
    const newest = await h.db.prisma.rating.findFirstOrThrow({ orderBy: NEWEST_FIRST });
    const list = await h.gql(`{ ratings(first: 1) { nodes { id } } }`);
    const { id } = list.data.ratings.nodes[0];
    const res = await h.gql(`query($id: ID!) { node(id: $id) { __typename ... on Rating { ${FIELDS} } } }`, { id });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual({ __typename: 'Rating', ...answer(newest), id });
  });

  it.each([
    ['first: 0', /"first" must be an integer from 1 to 100; got 0/],
    ['first: 101', /"first" must be an integer from 1 to 100; got 101/],
    [
      'filter: { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }',
      /"filter.from" \(2026-02-01T00:00:00.000Z\) is after "filter.to"/,
    ],
    ['filter: { symbol: "AAPL,MS FT" }', /"filter.symbol".*got "MS FT"/],
    ['filter: { symbol: ["TOO-LONG-SYMBOL-XXXXXX"] }', /"filter.symbol".*got "TOO-LONG-SYMBOL-XXXXXX"/],
    [
      'after: "WyJyYXRpbmciLCJkZXNjIiwieCIsMV0"',
      /after: "WyJyYXRpbmciLCJkZXNjIiwieCIsMV0" is not a cursor of this list/,
    ],
  ])('rejects %s with BAD_USER_INPUT naming the argument', async (args, message) => {
    const res = await h.gql(`{ ratings(${args}) { nodes { firm } } }`);
    expect(res.data?.ratings ?? null).toBeNull();
    expectBadUserInput(res, message);
  });

  it('an unknown symbol or id is an empty list, not an error', async () => {
    expect(await ratingsQuery({ symbol: 'NOSUCH' })).toEqual({ totalCount: 0, nodes: [] });
    expect(await ratingsQuery({ id: 987654 })).toEqual({ totalCount: 0, nodes: [] });
  });
});
