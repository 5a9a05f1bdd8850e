import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { COSTED, graphqlHarness, type GraphQLHarness, type GraphQLResult, expectBadUserInput } from './helpers.js';
import { testDatabases } from '../helpers.js';

const FIELDS = `
  id pressReleaseId wireDataId vendor releaseId externalId transmissionId headline subHeadline dateline language
  publishTime source sourceUrl summary bodyHtml bodyText categories keywords externalLinks tickers exchanges
  contacts { organization } mediaAssets raw createdAt updatedAt
  securities { figi isin name symbol micCode figiComposite figiShareClass vendorxExchCode security { identifiers { figi } } }
`;

const NEWEST_FIRST = [
  { publishTime: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.PressReleaseOrderByWithRelationInput[];

interface Node {
  pressReleaseId: number;
  publishTime: string;
  tickers: string[];
}

describe.each(testDatabases())('GraphQL press releases on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The database's release in the shape the API answers with. */
  async function expected(id: number) {
    const r = await h.db.prisma.pressRelease.findUniqueOrThrow({
      where: { id },
      include: { tickers: { orderBy: { position: 'asc' } }, securities: { orderBy: { position: 'asc' } } },
    });
    const { tickers, securities, id: pressReleaseId, publishTime, createdAt, updatedAt, ...scalars } = r;
    return {
      ...scalars,
      id: expect.any(String),
      pressReleaseId,
      publishTime: publishTime.toISOString(),
      createdAt: createdAt.toISOString(),
      updatedAt: updatedAt.toISOString(),
      tickers: tickers.map((t) => t.ticker),
      securities: securities.map(({ pressReleaseId: _id, position: _p, ...s }) => ({
        ...s,
        security: { identifiers: { figi: s.figi } },
      })),
    };
  }

  /** A release naming two companies (the sample's partnership announcements). */
  async function twoTickerRelease() {
    const second = await h.db.prisma.pressReleaseTicker.findFirstOrThrow({
      where: { position: 1 },
      orderBy: { pressReleaseId: 'asc' },
    });
    return h.db.prisma.pressRelease.findUniqueOrThrow({
      where: { id: second.pressReleaseId },
      include: { tickers: { orderBy: { position: 'asc' } } },
    });
  }

  it('lists the newest releases first with every field as stored, and counts them all', async () => {
    const newest = await h.db.prisma.pressRelease.findMany({ orderBy: NEWEST_FIRST, take: 5, select: { id: true } });
    const res = await h.gql(`{ pressReleases(first: 5) { totalCount nodes { ${FIELDS} } pageInfo { hasNextPage } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.pressReleases.totalCount).toBe(await h.db.prisma.pressRelease.count());
    expect(res.data.pressReleases.pageInfo.hasNextPage).toBe(true);
    expect(res.data.pressReleases.nodes).toEqual(await Promise.all(newest.map((r) => expected(r.id))));
  });

  it('answers a two-company release with both tickers, contacts and securities in feed order', async () => {
    const release = await twoTickerRelease();
    const res = await h.gql(`query($t: [String!]) { pressReleases(tickers: $t, first: 10) { nodes { ${FIELDS} } } }`, {
      t: [release.tickers[1]!.ticker],
    });
    expect(res.errors).toBeUndefined();
    const node = res.data.pressReleases.nodes.find((n: Node) => n.pressReleaseId === release.id);
    expect(node).toEqual(await expected(release.id));
    expect(node.tickers).toHaveLength(2);
    expect(node.contacts).toHaveLength(2);
  });

  it('filters by tickers (any of, case-insensitive, comma lists accepted)', async () => {
    const release = await twoTickerRelease();
    const [a, b] = release.tickers.map((t) => t.ticker) as [string, string];
    const want = await h.db.prisma.pressRelease.findMany({
      where: { tickers: { some: { ticker: { in: [a, b] } } } },
      orderBy: NEWEST_FIRST,
      select: { id: true },
    });
    for (const tickers of [[a.toLowerCase(), b], [`${a},${b.toLowerCase()}`]]) {
      const res = await h.gql(
        `query($t: [String!]) { pressReleases(tickers: $t, first: 100) { totalCount nodes { pressReleaseId tickers } } }`,
        { t: tickers },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.pressReleases.totalCount).toBe(want.length);
      expect(res.data.pressReleases.nodes.map((n: Node) => n.pressReleaseId)).toEqual(want.map((r) => r.id));
      for (const n of res.data.pressReleases.nodes as Node[])
        expect(n.tickers.some((t) => t === a || t === b)).toBe(true);
    }
  });

  it('filters by publish time with inclusive bounds', async () => {
    const all = await h.db.prisma.pressRelease.findMany({
      orderBy: NEWEST_FIRST,
      select: { id: true, publishTime: true },
    });
    const to = all[10]!.publishTime;
    const from = all[30]!.publishTime;
    const res = await h.gql(
      `query($from: DateTime, $to: DateTime) { pressReleases(from: $from, to: $to, first: 100) { totalCount nodes { pressReleaseId publishTime } } }`,
      {
        from: from.toISOString(),
        to: to.toISOString(),
      },
    );
    expect(res.errors).toBeUndefined();
    const want = all.filter((r) => r.publishTime >= from && r.publishTime <= to).map((r) => r.id);
    expect(want.length).toBeGreaterThanOrEqual(21);
    expect(res.data.pressReleases.totalCount).toBe(want.length);
    expect(res.data.pressReleases.nodes.map((n: Node) => n.pressReleaseId)).toEqual(want);
  });

  it('pages through every release: `after` continues without overlap and the last page ends', async () => {
    const all = await h.db.prisma.pressRelease.findMany({ orderBy: NEWEST_FIRST, select: { id: true } });
    const seen: number[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(all.length);
      const res: GraphQLResult = await h.gql(
        `query($after: String) { pressReleases(first: 17, after: $after) { nodes { pressReleaseId } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(res.errors).toBeUndefined();
      const page: { nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string } } = res.data.pressReleases;
      seen.push(...page.nodes.map((n) => n.pressReleaseId));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });

  it("a security's press releases are the newest naming its symbol, and page with `after`", async () => {
    const release = await twoTickerRelease();
    const symbol = release.tickers[1]!.ticker;
    const want = await h.db.prisma.pressRelease.findMany({
      where: { tickers: { some: { ticker: symbol } } },
      orderBy: NEWEST_FIRST,
      select: { id: true },
    });
    expect(want.length).toBeGreaterThan(1);
    const query = `query($s: String, $after: String) { security(symbol: $s) { pressReleases(first: 1, after: $after) { totalCount nodes { pressReleaseId tickers } pageInfo { hasNextPage endCursor } } } }`;
    const first = await h.gql(query, { s: symbol });
    expect(first.errors).toBeUndefined();
    const page = first.data.security.pressReleases;
    expect(page.totalCount).toBeNull();
    expect(page.nodes.map((n: Node) => n.pressReleaseId)).toEqual([want[0]!.id]);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const second = await h.gql(query, { s: symbol, after: page.pageInfo.endCursor });
    expect(second.errors).toBeUndefined();
    expect(second.data.security.pressReleases.nodes.map((n: Node) => n.pressReleaseId)).toEqual([want[1]!.id]);
    expect(second.data.security.pressReleases.nodes[0].tickers).toContain(symbol);
  });

  it('node(id) answers the same release', async () => {
    const list = await h.gql(`{ pressReleases(first: 1) { nodes { id pressReleaseId } } }`);
    const { id, pressReleaseId } = list.data.pressReleases.nodes[0];
    const res = await h.gql(`query($id: ID!) { node(id: $id) { __typename ... on PressRelease { ${FIELDS} } } }`, {
      id,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual({ __typename: 'PressRelease', ...(await expected(pressReleaseId)), id });
  });

  it.each([
    ['first: 0', 'first', /"first" must be an integer from 1 to 100; got 0/],
    ['first: 101', 'first', /"first" must be an integer from 1 to 100; got 101/],
    [
      'from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z"',
      'from',
      /"from" \(2026-02-01T00:00:00.000Z\) is after "to"/,
    ],
    ['tickers: ["AB C"]', 'tickers', /"tickers".*got "AB C"/],
    ['tickers: ["A,"]', 'tickers', /"tickers".*got ""/],
    ['tickers: []', 'tickers', /"tickers" must name 1 to 100 symbols; got 0/],
    ['after: "bm90IGEgY3Vyc29y"', 'after', /after: "bm90IGEgY3Vyc29y" is not a cursor of this list/],
  ])('rejects %s with BAD_USER_INPUT naming %s', async (args, _name, message) => {
    const res = await h.gql(`{ pressReleases(${args}) { nodes { headline } } }`);
    expect(res.data?.pressReleases ?? null).toBeNull();
    expectBadUserInput(res, message);
  });

  it('rejects a cursor of another list', async () => {
    const ratings = await h.gql(`{ ratings(first: 1) { pageInfo { endCursor } } }`);
    const res = await h.gql(`query($after: String) { pressReleases(after: $after) { nodes { headline } } }`, {
      after: ratings.data.ratings.pageInfo.endCursor,
    });
    expect(res.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toMatch(/^after: .* is not a cursor of this list/);
  });

  it('an unknown ticker is an empty list, not an error', async () => {
    const res = await h.gql(
      `{ pressReleases(tickers: ["NOSUCH"]) { totalCount nodes { headline } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(res).toEqual({
      status: 200,
      data: { pressReleases: { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } },
      ...COSTED,
    });
  });
});
