import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BALANCE_SHEET,
  CASH_FLOW,
  columnOf,
  INCOME_STATEMENT,
  type StatementLine,
} from '../../src/domain/fundamentals.js';
import type { Fundamental, FundamentalMetrics } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';
import { testDatabases } from '../helpers.js';

const lines = (list: readonly StatementLine[]) => list.map(columnOf).join(' ');
const RECORD = `id symbol endPeriod quarter year
  incomeStatement { ${lines(INCOME_STATEMENT)} }
  balanceSheet { ${lines(BALANCE_SHEET)} }
  cashFlow { ${lines(CASH_FLOW)} }`;
const ENHANCED = `${RECORD} cik createdAt updatedAt
  metrics { peRatio priceToBook debtToEquity returnOnAssets returnOnEquity revenuePerEmployee roic fcfYield }
  workingCapitalDays { dso dio dpo }
  riskFactors { count topThemes averageSentimentScore mostNegativeRisk { heading sentiment } }
  mdna { forwardLookingTermCount forwardToHistoricalRatio toneScore keyTopics }
  litigationMentions { count recentHeadings }`;
const ARGS = '$symbol: String!, $fiscalYear: Int, $fiscalPeriod: FiscalPeriod, $first: Int, $after: String';
const PASS = 'symbol: $symbol, fiscalYear: $fiscalYear, fiscalPeriod: $fiscalPeriod, first: $first, after: $after';
const PAGE = 'totalCount pageInfo { hasNextPage endCursor } edges { cursor node';
const LITE = `query(${ARGS}) { fundamentals(${PASS}) { ${PAGE} { ${RECORD} } } } }`;
const RICH = `query(${ARGS}) { enhancedFundamentals(${PASS}) { ${PAGE} { ${ENHANCED} } } } }`;

interface Node {
  id: string;
  endPeriod: string;
  quarter: string;
  year: number;
  incomeStatement: Record<string, number>;
  balanceSheet: Record<string, number | null>;
  cashFlow: Record<string, number>;
  [field: string]: unknown;
}
interface Connection {
  totalCount: number | null;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: Node }[];
}

const group = (row: Fundamental, list: readonly StatementLine[]) =>
  Object.fromEntries(list.map((l) => [columnOf(l), row[columnOf(l) as keyof Fundamental]]));

/** A lite database row in the shape the API answers with (global id aside). */
function expectedLite(row: Fundamental) {
  return {
    symbol: row.symbol,
    endPeriod: row.endPeriod,
    quarter: row.quarter,
    year: row.year,
    incomeStatement: group(row, INCOME_STATEMENT),
    balanceSheet: group(row, BALANCE_SHEET),
    cashFlow: group(row, CASH_FLOW),
  };
}

function expectedEnhanced(row: Fundamental & { metrics: FundamentalMetrics | null }) {
  const m = row.metrics!;
  return {
    ...expectedLite(row),
    cik: row.cik,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    metrics: {
      peRatio: m.peRatio,
      priceToBook: m.priceToBook,
      debtToEquity: m.debtToEquity,
      returnOnAssets: m.returnOnAssets,
      returnOnEquity: m.returnOnEquity,
      revenuePerEmployee: m.revenuePerEmployee,
      roic: m.roic,
      fcfYield: m.fcfYield,
    },
    workingCapitalDays: { dso: m.dso, dio: m.dio, dpo: m.dpo },
    riskFactors: {
      count: m.riskFactorCount,
      topThemes: m.riskTopThemes,
      averageSentimentScore: m.riskAverageSentimentScore,
      mostNegativeRisk: { heading: m.riskMostNegativeHeading, sentiment: m.riskMostNegativeSentiment },
    },
    mdna: {
      forwardLookingTermCount: m.mdnaForwardLookingTermCount,
      forwardToHistoricalRatio: m.mdnaForwardToHistoricalRatio,
      toneScore: m.mdnaToneScore,
      keyTopics: m.mdnaKeyTopics,
    },
    litigationMentions: { count: m.litigationCount, recentHeadings: m.litigationRecentHeadings },
  };
}

const withoutId = ({ id: _id, ...rest }: Node) => rest;

describe.each(testDatabases())('GraphQL fundamentals on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  async function page(query: string, variables: Record<string, unknown>): Promise<Connection> {
    const res = await h.gql(query, variables);
    expect(res.errors).toBeUndefined();
    return query === LITE ? res.data.fundamentals : res.data.enhancedFundamentals;
  }

  /** Every page of a list, following `endCursor`. */
  async function allPages(query: string, variables: Record<string, unknown>, first: number): Promise<Node[]> {
    const nodes: Node[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(50);
      const p = await page(query, { ...variables, first, after });
      nodes.push(...p.edges.map((e) => e.node));
      if (!p.pageInfo.hasNextPage) return nodes;
      expect(p.edges).toHaveLength(first);
      after = p.pageInfo.endCursor;
    }
  }

  const rowsOf = (symbol: string, where: { year?: number; quarter?: Fundamental['quarter'] } = {}) =>
    h.db.prisma.fundamental.findMany({
      where: { symbol, ...where },
      include: { metrics: true },
      orderBy: [{ endPeriod: 'desc' }, { id: 'desc' }],
    });

  it("answers a symbol's newest lite record exactly as stored, with the total count", async () => {
    const rows = await rowsOf('NVLX');
    const p = await page(LITE, { symbol: 'nvlx', first: 1 });
    expect(p.totalCount).toBe(rows.length);
    expect(p.pageInfo.hasNextPage).toBe(true);
    expect(p.edges[0]!.node).toEqual({ id: expect.any(String), ...expectedLite(rows[0]!) });
    // a fiscal year's FY record shares its period end with Q4 and comes first
    expect(rows[0]!.quarter).toBe('FY');
    expect(p.edges[0]!.node.balanceSheet.totalLiabilitiesEquity).toBe(p.edges[0]!.node.balanceSheet.totalAssets);
  });

  it('pages lite records newest first with `after`, without overlap, until hasNextPage is false', async () => {
    const rows = await rowsOf('ORBT');
    const nodes = await allPages(LITE, { symbol: 'ORBT' }, 3);
    expect(nodes.map(withoutId)).toEqual(rows.map(expectedLite));
    expect(new Set(nodes.map((n) => n.id)).size).toBe(rows.length);
  });

  it('filters by fiscal year and fiscal period', async () => {
    const { year } = (await rowsOf('HLCN'))[0]!;
    const fy = await page(LITE, { symbol: 'HLCN', fiscalPeriod: 'FY' });
    const fyRows = await rowsOf('HLCN', { quarter: 'FY' });
    expect(fy.totalCount).toBe(fyRows.length);
    expect(fy.edges.map((e) => withoutId(e.node))).toEqual(fyRows.map(expectedLite));

    const q2 = await page(LITE, { symbol: 'HLCN', fiscalYear: year, fiscalPeriod: 'Q2' });
    expect(q2.edges.map((e) => withoutId(e.node))).toEqual(
      (await rowsOf('HLCN', { year, quarter: 'Q2' })).map(expectedLite),
    );
    expect(q2.totalCount).toBe(1);

    const ofYear = await page(LITE, { symbol: 'HLCN', fiscalYear: year });
    expect(ofYear.totalCount).toBe((await rowsOf('HLCN', { year })).length);
    expect(new Set(ofYear.edges.map((e) => e.node.year))).toEqual(new Set([year]));
  });

  it('answers enhanced records with their metrics and insights as stored', async () => {
    const rows = await rowsOf('QNTR');
    const nodes = await allPages(RICH, { symbol: 'QNTR' }, 4);
    expect(nodes.map(withoutId)).toEqual(rows.map(expectedEnhanced));
  });

  it('answers the same statement numbers in the lite and the enhanced record of a period', async () => {
    const lite = (await page(LITE, { symbol: 'BRKW', first: 100 })).edges.map((e) => e.node);
    const rich = (await page(RICH, { symbol: 'BRKW', first: 100 })).edges.map((e) => e.node);
    expect(lite.length).toBeGreaterThan(0);
    const pick = ({ endPeriod, quarter, year, incomeStatement, balanceSheet, cashFlow }: Node) => ({
      endPeriod,
      quarter,
      year,
      incomeStatement,
      balanceSheet,
      cashFlow,
    });
    expect(rich.map(pick)).toEqual(lite.map(pick));
  });

  it('leaves records without metrics out of the enhanced list only', async () => {
    const [newest] = await rowsOf('ZNTR');
    await h.db.prisma.fundamentalMetrics.delete({ where: { fundamentalId: newest!.id } });
    const lite = await page(LITE, { symbol: 'ZNTR', first: 100 });
    const rich = await page(RICH, { symbol: 'ZNTR', first: 100 });
    expect(rich.totalCount).toBe(lite.totalCount! - 1);
    expect(rich.edges).toHaveLength(lite.edges.length - 1);
    expect(rich.edges.map((e) => e.node.endPeriod + e.node.quarter)).toEqual(
      lite.edges.slice(1).map((e) => e.node.endPeriod + e.node.quarter),
    );
    // its enhanced node is gone too, the lite one is not
    const id = Buffer.from(`EnhancedFundamental:${newest!.id}`).toString('base64');
    const res = await h.gql('query($id: ID!) { node(id: $id) { id } }', { id });
    expect(res).toMatchObject({ data: { node: null } });
    expect(res.errors).toBeUndefined();
    const liteNode = await h.gql('query($id: ID!) { node(id: $id) { id } }', {
      id: Buffer.from(`Fundamental:${newest!.id}`).toString('base64'),
    });
    expect(liteNode.data.node).toEqual({ id: expect.any(String) });
  });

  it('round-trips node(id) for lite and enhanced records, each under its own global id', async () => {
    const lite = (await page(LITE, { symbol: 'TRLN', first: 1 })).edges[0]!.node;
    const rich = (await page(RICH, { symbol: 'TRLN', first: 1 })).edges[0]!.node;
    expect(rich.id).not.toBe(lite.id);
    const res = await h.gql(
      `query($a: ID!, $b: ID!) {
      a: node(id: $a) { __typename ... on Fundamental { ${RECORD} } }
      b: node(id: $b) { __typename ... on EnhancedFundamental { ${ENHANCED} } } }`,
      { a: lite.id, b: rich.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.a).toEqual({ __typename: 'Fundamental', ...lite });
    expect(res.data.b).toEqual({ __typename: 'EnhancedFundamental', ...rich });
  });

  it.each([
    ['first: 0', { first: 0 }, /"first".*1 to 100.*got 0/],
    ['first: 101', { first: 101 }, /"first".*1 to 100.*got 101/],
    ['an empty symbol', { symbol: ' ' }, /"symbol"/],
    // the years REST's fiscal_year and every fiscal filter take (domain/fiscal.ts)
    ['fiscal year 1899', { fiscalYear: 1899 }, /"fiscalYear".*1900 to 2100.*got 1899/],
    ['fiscal year 2101', { fiscalYear: 2101 }, /"fiscalYear".*1900 to 2100.*got 2101/],
    ['a forged cursor', { after: 'bm90LWEtY3Vyc29y' }, /after/],
  ])('rejects %s with BAD_USER_INPUT', async (_label, variables, message) => {
    for (const query of [LITE, RICH]) {
      const res = await h.gql(query, { symbol: 'NVLX', ...variables });
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(message);
    }
  });

  it('rejects a lite cursor in the enhanced list', async () => {
    const { pageInfo } = await page(LITE, { symbol: 'NVLX', first: 2 });
    const res = await h.gql(RICH, { symbol: 'NVLX', after: pageInfo.endCursor });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  describe('Security edges', () => {
    const EDGES = `symbol
      fundamentals(fiscalPeriod: $fiscalPeriod, first: $first, after: $after) { ${PAGE} { ${RECORD} } } }
      enhancedFundamentals(fiscalPeriod: $fiscalPeriod, first: $first, after: $enhancedAfter) { ${PAGE} { ${ENHANCED} } } }`;
    const MANY = `query($search: String!, $n: Int, $fiscalPeriod: FiscalPeriod, $first: Int, $after: String, $enhancedAfter: String) {
      securities(search: $search, first: $n) { edges { node { ${EDGES} } } } }`;

    it("answers each security's own records, as the root lists do", async () => {
      const res = await h.gql(MANY, { search: 'P', n: 4, fiscalPeriod: 'FY', first: 5 });
      expect(res.errors).toBeUndefined();
      expect(res.data.securities.edges).toHaveLength(4);
      for (const { node } of res.data.securities.edges) {
        const rows = await rowsOf(node.symbol, { quarter: 'FY' });
        expect(rows.length).toBeGreaterThan(0);
        expect(node.fundamentals.totalCount).toBeNull();
        expect(node.fundamentals.edges.map((e: { node: Node }) => withoutId(e.node))).toEqual(rows.map(expectedLite));
        expect(node.enhancedFundamentals.edges.map((e: { node: Node }) => withoutId(e.node))).toEqual(
          rows.map(expectedEnhanced),
        );
      }
    });

    it('continues a security’s list after a cursor', async () => {
      const rows = await rowsOf('CDRN');
      const first = await h.gql(MANY, { search: 'CDRN', n: 1, first: 4 });
      const { fundamentals, enhancedFundamentals } = first.data.securities.edges[0].node;
      const next = await h.gql(MANY, {
        search: 'CDRN',
        n: 1,
        first: 4,
        after: fundamentals.pageInfo.endCursor,
        enhancedAfter: enhancedFundamentals.pageInfo.endCursor,
      });
      expect(next.errors).toBeUndefined();
      const { node } = next.data.securities.edges[0];
      expect(node.fundamentals.edges.map((e: { node: Node }) => withoutId(e.node))).toEqual(
        rows.slice(4, 8).map(expectedLite),
      );
      expect(node.enhancedFundamentals.edges.map((e: { node: Node }) => withoutId(e.node))).toEqual(
        rows.slice(4, 8).map(expectedEnhanced),
      );
    });

    it('costs the same number of SQL statements for 1 security as for 5', async () => {
      const run = (n: number) => async () => {
        const res = await h.gql(MANY, { search: 'C', n, first: 3 });
        expect(res.errors).toBeUndefined();
        expect(res.data.securities.edges).toHaveLength(n);
        for (const { node } of res.data.securities.edges) {
          expect(node.fundamentals.edges).toHaveLength(3);
          expect(node.enhancedFundamentals.edges[0].node.symbol).toBe(node.symbol);
        }
      };
      const one = await h.countWarmStatements(run(1));
      const five = await h.countWarmStatements(run(5));
      expect(five).toBe(one);
      expect(one).toBeLessThanOrEqual(4);
    });
  });
});
