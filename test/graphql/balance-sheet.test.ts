import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BALANCE_SHEET_OPTIONAL, BALANCE_SHEET_REQUIRED, camelOf } from '../../src/domain/fundamentals.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult } from './helpers.js';
import { testDatabases } from '../helpers.js';

const AMOUNTS = [...BALANCE_SHEET_REQUIRED, ...BALANCE_SHEET_OPTIONAL].map(camelOf);
const FIELDS = `id cik symbols fiscalYear fiscalQuarter reportingPeriodEnd timeframe createdAt updatedAt ${AMOUNTS.join(' ')}`;
const LIST = `query($filter: BalanceSheetFilter, $orderBy: BalanceSheetOrder, $first: Int, $after: String) {
  balanceSheets(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${FIELDS} } }
  }
}`;

interface Node {
  id: string;
  cik: string;
  symbols: string[];
  fiscalYear: number;
  fiscalQuarter: number;
  reportingPeriodEnd: string;
  timeframe: string;
  [amount: string]: unknown;
}

const withSymbols = { symbols: { orderBy: { position: 'asc' } } } as const;
type Row = Prisma.BalanceSheetGetPayload<{ include: typeof withSymbols }>;

/** A database row in the shape the API answers with (global id aside). */
function expected(row: Row) {
  return {
    cik: row.cik,
    symbols: row.symbols.map((s) => s.symbol),
    fiscalYear: row.fiscalYear,
    fiscalQuarter: row.fiscalQuarter,
    reportingPeriodEnd: row.reportingPeriodEnd,
    timeframe: row.timeframe.toUpperCase(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...Object.fromEntries(AMOUNTS.map((a) => [a, row[a as keyof Row]])),
  };
}

describe.each(testDatabases())('GraphQL balance sheets on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  async function list(variables: Record<string, unknown>) {
    const res = await h.gql(LIST, variables);
    expect(res.errors).toBeUndefined();
    return res.data.balanceSheets as {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      edges: { cursor: string; node: Node }[];
    };
  }

  /** Every page of a list, following `endCursor`. */
  async function allPages(variables: Record<string, unknown>, first: number) {
    const nodes: Node[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const page = await list({ ...variables, first, after });
      nodes.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) return nodes;
      expect(page.edges).toHaveLength(first);
      after = page.pageInfo.endCursor;
    }
  }

  const sheetsOf = (
    symbol: string,
    orderBy: Prisma.BalanceSheetOrderByWithRelationInput[] = [{ reportingPeriodEnd: 'asc' }, { id: 'asc' }],
  ) => h.db.prisma.balanceSheet.findMany({ where: { symbols: { some: { symbol } } }, include: withSymbols, orderBy });

  it("answers a symbol's first balance sheet exactly as stored, with every amount and the total count", async () => {
    const rows = await sheetsOf('NVLX');
    expect(rows.length).toBeGreaterThan(1);
    const page = await list({ filter: { symbols: ['NVLX'] }, first: 1 });
    expect(page.totalCount).toBe(rows.length);
    expect(page.pageInfo.hasNextPage).toBe(true);
    expect(page.edges[0]!.node).toEqual({ id: expect.any(String), ...expected(rows[0]!) });
    // optional amounts are null where the filing has none, not 0
    const bank = (await h.db.prisma.balanceSheet.findFirst({
      where: { stockInventory: null },
      include: withSymbols,
      orderBy: { id: 'asc' },
    }))!;
    const answer = await list({
      filter: { cik: bank.cik, periodEnd: bank.reportingPeriodEnd, timeframe: bank.timeframe.toUpperCase() },
    });
    expect(answer.edges.map((e) => e.node)).toContainEqual({ id: expect.any(String), ...expected(bank) });
    expect(answer.edges.find((e) => e.node.timeframe === bank.timeframe.toUpperCase())!.node.stockInventory).toBeNull();
  });

  it('keeps the balance-sheet identities in what it answers', async () => {
    const nodes = (await list({ first: 1000 })).edges.map((e) => e.node);
    expect(nodes.length).toBe(await h.db.prisma.balanceSheet.count());
    for (const n of nodes) {
      expect(n.totalLiabilitiesPlusEquity).toBe(n.totalAssets);
      expect((n.totalLiabilities as number) + (n.totalEquity as number)).toBeCloseTo(n.totalAssets as number, 0);
      expect(n.sumOfCurrentAssets as number).toBeLessThanOrEqual(n.totalAssets as number);
    }
  });

  it('filters by cik with or without leading zeros, and by period, year, quarter and timeframe', async () => {
    const { cik } = await h.db.prisma.balanceSheet.findFirstOrThrow({
      where: { cik: { startsWith: '000' } },
      orderBy: { id: 'asc' },
    });
    const unpadded = cik.replace(/^0+/, '');
    const byCik = await list({ filter: { cik: unpadded } });
    expect(byCik.totalCount).toBe(await h.db.prisma.balanceSheet.count({ where: { cik } }));
    expect(byCik.totalCount).toBeGreaterThan(0);
    expect(new Set(byCik.edges.map((e) => e.node.cik))).toEqual(new Set([cik]));
    expect((await list({ filter: { cik } })).totalCount).toBe(byCik.totalCount);

    const sample = await h.db.prisma.balanceSheet.findFirstOrThrow({
      where: { timeframe: 'quarterly' },
      orderBy: { id: 'desc' },
    });
    const where = {
      fiscalYear: sample.fiscalYear,
      fiscalQuarter: sample.fiscalQuarter,
      timeframe: 'quarterly' as const,
    };
    const filtered = await list({ filter: { ...where, timeframe: 'QUARTERLY' }, first: 1000 });
    expect(filtered.totalCount).toBe(await h.db.prisma.balanceSheet.count({ where }));
    expect(filtered.totalCount).toBeLessThan(await h.db.prisma.balanceSheet.count());
    for (const { node } of filtered.edges) {
      expect([node.fiscalYear, node.fiscalQuarter, node.timeframe]).toEqual([
        sample.fiscalYear,
        sample.fiscalQuarter,
        'QUARTERLY',
      ]);
    }

    const byPeriod = await list({ filter: { periodEnd: sample.reportingPeriodEnd, timeframe: 'ANNUAL' }, first: 1000 });
    expect(byPeriod.totalCount).toBe(
      await h.db.prisma.balanceSheet.count({
        where: { reportingPeriodEnd: sample.reportingPeriodEnd, timeframe: 'annual' },
      }),
    );
    for (const { node } of byPeriod.edges)
      expect([node.reportingPeriodEnd, node.timeframe]).toEqual([sample.reportingPeriodEnd, 'ANNUAL']);
  });

  it('filters by any of several symbols, a second share class included', async () => {
    const [nvlx, orbt] = [await sheetsOf('NVLX'), await sheetsOf('ORBT')];
    const both = await list({ filter: { symbols: ['NVLX', 'ORBT'] }, first: 1000 });
    expect(both.totalCount).toBe(nvlx.length + orbt.length);
    expect(both.edges.map((e) => e.node.symbols[0]).sort()).toEqual(
      [...nvlx, ...orbt].map((r) => r.symbols[0]!.symbol).sort(),
    );

    const classB = await list({ filter: { symbols: ['DRFT.B'] } });
    expect(classB.totalCount).toBe((await sheetsOf('DRFT')).length);
    for (const { node } of classB.edges) expect(node.symbols).toEqual(['DRFT', 'DRFT.B']);
  });

  it('orders by each sort field in either direction; DESC reverses ASC', async () => {
    const asc = (await list({ filter: { symbols: ['ORBT'] } })).edges.map((e) => e.node);
    const desc = (await list({ filter: { symbols: ['ORBT'] }, orderBy: { direction: 'DESC' } })).edges.map(
      (e) => e.node,
    );
    expect(asc.map(({ id: _id, ...rest }) => rest)).toEqual((await sheetsOf('ORBT')).map(expected));
    expect(desc.map((n) => n.id)).toEqual([...asc].reverse().map((n) => n.id));
    expect(asc.map((n) => n.reportingPeriodEnd)).toEqual(asc.map((n) => n.reportingPeriodEnd).sort());

    const byYear = (await list({ orderBy: { field: 'FISCAL_YEAR', direction: 'DESC' }, first: 1000 })).edges.map(
      (e) => e.node,
    );
    const keys = byYear.map((n) => n.fiscalYear * 10 + n.fiscalQuarter);
    expect(keys).toEqual([...keys].sort((a, b) => b - a));
    expect(new Set(keys).size).toBeGreaterThan(1);
  });

  it('pages with `after` without overlap, in database order, until hasNextPage is false', async () => {
    const filter = { symbols: ['NVLX', 'ORBT', 'HLCN'] };
    const rows = await h.db.prisma.balanceSheet.findMany({
      where: { symbols: { some: { symbol: { in: filter.symbols } } } },
      orderBy: [{ fiscalQuarter: 'desc' }, { id: 'desc' }],
      include: withSymbols,
    });
    const nodes = await allPages({ filter, orderBy: { field: 'FISCAL_QUARTER', direction: 'DESC' } }, 4);
    expect(new Set(nodes.map((n) => n.id)).size).toBe(nodes.length);
    expect(nodes.map(({ id: _id, ...rest }) => rest)).toEqual(rows.map(expected));
  });

  it('rejects a forged cursor, and a cursor of another order, as BAD_USER_INPUT', async () => {
    const forged = await h.gql(LIST, {
      after: Buffer.from('["balance-sheet.period_end","asc","x"]').toString('base64url'),
    });
    expect(forged.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(forged.errors?.[0]?.message).toMatch(/after/);
    const { pageInfo } = await list({ first: 2 });
    const otherOrder = await h.gql(LIST, { after: pageInfo.endCursor, orderBy: { field: 'FISCAL_YEAR' } });
    expect(otherOrder.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it.each([
    ['first: 0', { first: 0 }, /"first".*1 to 1000.*got 0/],
    ['first: 1001', { first: 1001 }, /"first".*1 to 1000.*got 1001/],
    ['a cik with a letter', { filter: { cik: '12a' } }, /"filter\.cik".*digits.*"12a"/],
    ['a cik of 11 digits', { filter: { cik: '12345678901' } }, /"filter\.cik".*"12345678901"/],
    // lower case is a symbol (as everywhere: test/graphql/symbol-rule.test.ts); a blank inside is not
    ['a symbol with a blank inside', { filter: { symbols: ['NV LX'] } }, /"filter\.symbols".*"NV LX"/],
    [
      'symbols longer than 200 characters',
      { filter: { symbols: Array.from({ length: 41 }, (_, i) => `SYM${i}`) } },
      /"filter\.symbols".*200 characters/,
    ],
    ['fiscal year 1899', { filter: { fiscalYear: 1899 } }, /"filter\.fiscalYear".*1900 to 2100.*1899/],
    ['fiscal quarter 5', { filter: { fiscalQuarter: 5 } }, /"filter\.fiscalQuarter".*5/],
  ])('rejects %s with BAD_USER_INPUT naming the argument and the value', async (_label, variables, message) => {
    const res = await h.gql(LIST, variables);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(message);
  });

  it('round-trips node(id); an unknown id is null', async () => {
    const [edge] = (await list({ filter: { symbols: ['DRFT'] }, orderBy: { direction: 'DESC' }, first: 1 })).edges;
    const res = await h.gql(`query($id: ID!) { node(id: $id) { __typename ... on BalanceSheet { ${FIELDS} } } }`, {
      id: edge!.node.id,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual({ __typename: 'BalanceSheet', ...edge!.node });
    const unknown = await h.gql('query($id: ID!) { node(id: $id) { id } }', {
      id: Buffer.from('BalanceSheet:999999').toString('base64'),
    });
    expect(unknown).toMatchObject({ data: { node: null } });
    expect(unknown.errors).toBeUndefined();
  });

  describe('Security edges', () => {
    const EDGES = `symbol
      balanceSheets(filter: $filter, orderBy: $orderBy, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { ${FIELDS} } } }
      latestBalanceSheet(timeframe: $timeframe) { ${FIELDS} }`;
    const ONE = `query($symbol: String!, $filter: BalanceSheetPeriodFilter, $orderBy: BalanceSheetOrder, $first: Int, $after: String, $timeframe: Timeframe) {
      security(symbol: $symbol) { ${EDGES} } }`;
    const MANY = `query($search: String!, $n: Int, $filter: BalanceSheetPeriodFilter, $orderBy: BalanceSheetOrder, $first: Int, $after: String, $timeframe: Timeframe) {
      securities(search: $search, first: $n) { edges { node { ${EDGES} } } } }`;

    it("answers a security's balance sheets and its latest one as the database has them", async () => {
      const rows = (await sheetsOf('PLVX')).filter((r) => r.timeframe === 'annual');
      const res = await h.gql(ONE, { symbol: 'PLVX', filter: { timeframe: 'ANNUAL' }, timeframe: 'QUARTERLY' });
      expect(res.errors).toBeUndefined();
      const { balanceSheets, latestBalanceSheet } = res.data.security;
      expect(balanceSheets.totalCount).toBeNull();
      expect(balanceSheets.edges.map((e: { node: Node }) => ({ ...e.node, id: undefined }))).toEqual(
        rows.map((r) => ({ ...expected(r), id: undefined })),
      );
      const latest = (await sheetsOf('PLVX', [{ reportingPeriodEnd: 'desc' }, { id: 'desc' }])).find(
        (r) => r.timeframe === 'quarterly',
      )!;
      expect(latestBalanceSheet).toEqual({ id: expect.any(String), ...expected(latest) });
    });

    it('pages a security’s balance sheets with `after` until the end', async () => {
      const rows = await sheetsOf('HLCN', [{ reportingPeriodEnd: 'desc' }, { id: 'desc' }]);
      const seen: string[] = [];
      let after: string | null = null;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(rows.length);
        const res: GraphQLResult = await h.gql(ONE, {
          symbol: 'HLCN',
          orderBy: { direction: 'DESC' },
          first: 3,
          after,
        });
        expect(res.errors).toBeUndefined();
        const page = res.data.security.balanceSheets;
        seen.push(...page.edges.map((e: { node: Node }) => `${e.node.reportingPeriodEnd}/${e.node.timeframe}`));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(seen).toEqual(rows.map((r) => `${r.reportingPeriodEnd}/${r.timeframe.toUpperCase()}`));
    });

    it('costs the same number of SQL statements for 1 security as for 5', async () => {
      const variables = { search: 'C', filter: { timeframe: 'QUARTERLY' }, first: 2 };
      const run = (n: number) => async () => {
        const res = await h.gql(MANY, { ...variables, n });
        expect(res.errors).toBeUndefined();
        expect(res.data.securities.edges).toHaveLength(n);
        for (const { node } of res.data.securities.edges) {
          expect(node.balanceSheets.edges).toHaveLength(2);
          expect(node.balanceSheets.edges[0].node.symbols).toContain(node.symbol);
          expect(node.latestBalanceSheet.symbols).toContain(node.symbol);
        }
      };
      const one = await h.countStatements(run(1));
      const five = await h.countStatements(run(5));
      expect(five).toBe(one);
      expect(one).toBeLessThanOrEqual(6);
    });
  });
});
