import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logoAtPage } from '../../src/services/logo.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult, expectBadUserInput } from './helpers.js';
import { testDatabases } from '../helpers.js';

const LOGO_FIELDS = `
  id symbol companyName createdAt updatedAt
  png { url height width sizeKb }
  svg { url sizeKb }
  thumbnail { url sizeKb }
  securityInfo { symbol name mic figi exchCode compositeFigi shareClassFigi marketSector }
  securities { securityId symbol }
`;

describe.each(testDatabases())('GraphQL logos on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The database's logo of `symbol` in the shape the API answers with. */
  async function expectedLogo(symbol: string) {
    const logo = await h.db.prisma.logo.findUniqueOrThrow({
      where: { symbol },
      include: { securityInfo: { orderBy: { position: 'asc' } } },
    });
    const figis = [...new Set(logo.securityInfo.map((i) => i.figi))];
    const securities = await h.db.prisma.security.findMany({ where: { figi: { in: figis } }, orderBy: { id: 'asc' } });
    return {
      symbol: logo.symbol,
      companyName: logo.companyName,
      createdAt: logo.createdAt.toISOString(),
      updatedAt: logo.updatedAt.toISOString(),
      png: { url: logo.pngUrl, height: logo.pngHeight, width: logo.pngWidth, sizeKb: logo.pngSizeKb },
      svg: { url: logo.svgUrl, sizeKb: logo.svgSizeKb },
      thumbnail: { url: logo.thumbnailUrl, sizeKb: logo.thumbnailSizeKb },
      securityInfo: logo.securityInfo.map(({ logoId: _l, position: _p, ...info }) => info),
      securities: figis
        .flatMap((f) => securities.filter((s) => s.figi === f).slice(0, 1))
        .map((s) => ({ securityId: s.id, symbol: s.symbol })),
    };
  }

  /** The logo whose info rows repeat a FIGI (the sample's first company has every quirk of the format). */
  async function logoWithRepeatedFigi() {
    const rows = await h.db.prisma.logoSecurityInfo.groupBy({
      by: ['logoId', 'figi'],
      _count: { _all: true },
      orderBy: { logoId: 'asc' },
    });
    const repeated = rows.find((r) => r._count._all > 1);
    expect(repeated).toBeDefined();
    return h.db.prisma.logo.findUniqueOrThrow({
      where: { id: repeated!.logoId },
      include: { securityInfo: { orderBy: { position: 'asc' } } },
    });
  }

  it("answers a logo's urls, sizes and security-info rows as stored, in position order, repeated FIGI included", async () => {
    const logo = await logoWithRepeatedFigi();
    const res = await h.gql(`query($s: [String!]) { logos(symbols: $s) { totalCount nodes { ${LOGO_FIELDS} } } }`, {
      s: [logo.symbol.toLowerCase()],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.logos.totalCount).toBe(1);
    const [node] = res.data.logos.nodes;
    expect(node).toEqual({ id: expect.any(String), ...(await expectedLogo(logo.symbol)) });

    const figis = node.securityInfo.map((i: { figi: string }) => i.figi);
    expect(new Set(figis).size).toBeLessThan(figis.length);
    expect(node.securityInfo.map((i: { symbol: string }) => i.symbol)).toContain(`${logo.symbol}*`);
    expect(node.securityInfo.map((i: { mic: string }) => i.mic)).toContain('');
    // the composite FIGI of the exchange-less row is not a listing, so it adds no security
    const known = await h.db.prisma.security.count({ where: { figi: { in: figis } } });
    expect(known).toBeLessThan(new Set(figis).size);
    expect(node.securities).toHaveLength(known);
  });

  it('pages through every logo by symbol: `after` continues without overlap and the last page ends', async () => {
    const all = await h.db.prisma.logo.findMany({
      orderBy: [{ symbol: 'asc' }, { id: 'asc' }],
      select: { symbol: true },
    });
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: GraphQLResult = await h.gql(
        `query($after: String) { logos(first: 7, after: $after) { totalCount nodes { symbol } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(res.errors).toBeUndefined();
      const { nodes, pageInfo, totalCount } = res.data.logos;
      expect(totalCount).toBe(all.length);
      seen.push(...nodes.map((n: { symbol: string }) => n.symbol));
      pages++;
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((l) => l.symbol));
    expect(pages).toBe(Math.ceil(all.length / 7));
  });

  it('the offset-paged service (for REST) answers page N as the N-th keyset page, with the same total', async () => {
    const second = await h.gql('{ logos(first: 7) { pageInfo { endCursor } } }');
    const res = await h.gql(
      'query($after: String) { logos(first: 7, after: $after) { totalCount nodes { symbol } } }',
      { after: second.data.logos.pageInfo.endCursor },
    );
    const page = await logoAtPage(h.db, {}, { page: 2, pageSize: 7 });
    expect(page.nodes.map((l) => l.symbol)).toEqual(res.data.logos.nodes.map((n: { symbol: string }) => n.symbol));
    expect(page.totalCount).toBe(res.data.logos.totalCount);
    expect(page.nodes[0]!.securityInfo.map((i) => i.position)).toEqual(page.nodes[0]!.securityInfo.map((_i, n) => n));
  });

  it('filters by any of the given symbols, leaving unknown symbols out', async () => {
    const logos = await h.db.prisma.logo.findMany({ orderBy: { id: 'asc' }, select: { symbol: true } });
    const wanted = [logos[9]!.symbol, logos[0]!.symbol, logos[4]!.symbol];
    const res = await h.gql(`query($s: [String!]) { logos(symbols: $s) { totalCount nodes { symbol } } }`, {
      s: [...wanted, 'NOSUCH'],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.logos.totalCount).toBe(3);
    expect(res.data.logos.nodes.map((n: { symbol: string }) => n.symbol)).toEqual([...wanted].sort());

    const none = await h.gql(
      `{ logos(symbols: ["NOSUCH"]) { totalCount nodes { symbol } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(none.data.logos).toEqual({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('node(id) returns the same logo', async () => {
    const symbol = (await logoWithRepeatedFigi()).symbol;
    const listed = await h.gql(`query($s: [String!]) { logos(symbols: $s) { nodes { ${LOGO_FIELDS} } } }`, {
      s: [symbol],
    });
    const logo = listed.data.logos.nodes[0];
    const res = await h.gql(`query($id: ID!) { node(id: $id) { ... on Logo { ${LOGO_FIELDS} } } }`, { id: logo.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual(logo);
  });

  it("Security.logo is the company's logo, and null for a security without one", async () => {
    const security = await h.db.prisma.security.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const res = await h.gql(`query($s: String!) { security(symbol: $s) { logo { ${LOGO_FIELDS} } } }`, {
      s: security.symbol,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.security.logo).toEqual({ id: expect.any(String), ...(await expectedLogo(security.symbol)) });

    await h.db.prisma.security.create({
      data: {
        id: 'BBGNOLOGO001_XNYS',
        symbol: 'NOLOGO',
        name: 'No Logo Inc.',
        status: 'ACTIVE',
        micCode: 'XNYS',
        figi: 'BBGNOLOGO001',
      },
    });
    try {
      const bare = await h.gql(`{ security(symbol: "NOLOGO") { symbol logo { symbol } } }`);
      expect(bare.errors).toBeUndefined();
      expect(bare.data.security).toEqual({ symbol: 'NOLOGO', logo: null });
    } finally {
      await h.db.prisma.security.delete({ where: { id: 'BBGNOLOGO001_XNYS' } });
    }
  });

  it.each([
    ['first: 0', '{ logos(first: 0) { nodes { symbol } } }', ['"first"', '0']],
    ['first: 101', '{ logos(first: 101) { nodes { symbol } } }', ['"first"', '101']],
    ['a malformed symbol', '{ logos(symbols: ["AAPL", "BRK B"]) { nodes { symbol } } }', ['"symbols"', '"BRK B"']],
    [
      'an overlong symbol',
      '{ logos(symbols: ["ABCDEFGHIJKLMNOPQRSTU"]) { nodes { symbol } } }',
      ['"symbols"', 'ABCDEFGHIJKLMNOPQRSTU'],
    ],
    ['an empty symbols list', '{ logos(symbols: []) { nodes { symbol } } }', ['"symbols"', 'got 0']],
    ['a forged cursor', '{ logos(after: "bm90LWEtY3Vyc29y") { nodes { symbol } } }', ['after', 'bm90LWEtY3Vyc29y']],
  ])('rejects %s with BAD_USER_INPUT naming the argument and the value', async (_case, query, mentions) => {
    const res = await h.gql(query);
    expect(res.data?.logos ?? null).toBeNull();
    expectBadUserInput(res, ...mentions);
  });

  it("rejects another list's cursor", async () => {
    const calls = await h.gql('{ callSummaries(first: 1) { pageInfo { endCursor } } }');
    const cursor = calls.data.callSummaries.pageInfo.endCursor;
    expect(cursor).toEqual(expect.any(String));
    const res = await h.gql('query($after: String) { logos(after: $after) { nodes { symbol } } }', { after: cursor });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('is not a cursor of this list');
  });

  it('20 securities with logos, their securities and call summaries run as many SQL statements as 2', async () => {
    const query = `query($first: Int!) {
      securities(searchType: EXCHANGE_COUNTRY, search: "US", first: $first) {
        nodes {
          symbol
          logo { symbol securityInfo { figi } securities { symbol } }
          callSummaries(first: 2) { nodes { title } }
        }
      }
    }`;
    const run = async (first: number) => {
      let res: GraphQLResult | undefined;
      const statements = await h.countWarmStatements(async () => {
        res = await h.gql(query, { first });
      });
      expect(res!.errors).toBeUndefined();
      const nodes = res!.data.securities.nodes;
      expect(nodes).toHaveLength(first);
      for (const n of nodes) {
        expect(n.logo.symbol).toBe(n.symbol);
        expect(n.logo.securities.map((s: { symbol: string }) => s.symbol)).toContain(n.symbol);
        expect(n.callSummaries.nodes).toHaveLength(2);
      }
      return statements;
    };
    const few = await run(2);
    const many = await run(20);
    expect(many).toBe(few);
  });
});
