import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnOf, type StatementLine } from '../../src/domain/fundamentals.js';
import type { Fundamental, FundamentalMetrics } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The key lists of the lite and enhanced records as the legacy API documents them (written down here, not taken from the code).
const INCOME = `Revenue, CostOfRevenue, GrossProfit, SellingGeneralAdministrative, ResearchDevelopment, DepreciationDepletionAmortizationExpense, OtherOperatingExpenses, TotalOperatingExpenses, OperatingIncome, InterestExpense, InterestInvestmentIncome, OtherExpenseIncome, TotalOtherIncomeExpense, IncomeBeforeIncomeTaxes, IncomeTaxes, DiscontinuedOperations, EquityInAffiliates, ExtraordinaryItems, ConsolidatedNetIncomeLoss, NoncontrollingInterestIncome, PreferredStockDividendsDeclared, NetIncomeLossAttributableCommonShareholders, BasicEarningsPerShare, DilutedEarningsPerShare, BasicSharesOutstanding, DilutedSharesOutstanding, EBITDA`;
const BALANCE = `CashEquivalents, ShortTermInvestments, Inventories, PrepaidExpensesOtherCurrentAssets, TotalCurrentAssets, PropertyPlantEquipmentNet, Goodwill, IntangibleAssetsNet, OtherAssets, TotalAssets, AccountsPayable, DeferredRevenueCurrent, DeferredLiabilitiesCurrent, DebtCurrent, AccruedOtherCurrentLiabilities, TotalCurrentLiabilities, LongTermDebtCapitalLeaseObligations, OtherNoncurrentLiabilities, TotalLiabilities, CommitmentsContingencies, PreferredStock, CommonStock, AdditionalPaidInCapital, TreasuryStock, AccumulatedOtherComprehensiveIncome, RetainedEarningsDeficit, OtherEquity, TotalEquityAttributableParent, NoncontrollingInterest, TotalEquity, TotalLiabilitiesEquity`;
const CASH = `NetIncomeCashFlow, IncomeLossDiscontinuedOperations, DepreciationDepletionAmortization, OtherOperatingActivities, ChangeOtherOperatingAssetsLiabilitiesNet, CashOperatingActivitiesContinuingOperations, NetCashOperatingActivitiesDiscontinuedOperations, NetCashOperatingActivities, PurchasePropertyPlantEquipment, SalePropertyPlantEquipment, AcquisitionsNet, OtherInvestingActivities, NetCashInvestingActivitiesContinuingOperations, NetCashInvestingActivitiesDiscontinuedOperations, NetCashInvestingActivities, ShortTermDebtIssuancesRepayments, CashDividends, EquityRepurchases, OtherFinancingActivities, NetCashFinancingActivitiesContinuingOperations, NetCashFinancingActivitiesDiscontinuedOperations, NetCashFinancingActivities, EffectCurrencyExchangeRate, OtherCashAdjustments, ChangeCashEquivalents`;
const split = (s: string) => s.split(', ');
const LINES = [...split(INCOME), ...split(BALANCE), ...split(CASH)] as StatementLine[];
const LITE_KEYS = ['ticker', 'EndPeriod', 'Quarter', 'Year', ...LINES];
const ENHANCED_KEYS = [
  'symbol',
  'cik',
  'EndPeriod',
  'Quarter',
  'Year',
  ...LINES,
  'pe_ratio',
  'price_to_book',
  'debt_to_equity',
  'return_on_assets',
  'return_on_equity',
  'revenue_per_employee',
  'roic',
  'fcf_yield',
  'working_capital_days',
  'risk_factors',
  'mdna',
  'litigation_mentions',
  'created_at',
  'updated_at',
];
const sorted = (keys: readonly string[]) => [...keys].sort();

const ENHANCED = '/delivery/api/v1/fundamentals/enhanced';
const LITE = '/delivery/api/v1/fundamentals/lite';
const NEWEST_FIRST = [{ endPeriod: 'desc' as const }, { id: 'desc' as const }];

type Row = Fundamental & { metrics: FundamentalMetrics | null };

/** What the statement lines of a stored row look like on the wire. */
const statement = (row: Fundamental) => Object.fromEntries(LINES.map((l) => [l, row[columnOf(l)] ?? null]));
const period = (r: any) => `${r.Year} ${r.Quarter} ${r.EndPeriod}`;

describe.each(testDatabases())('REST fundamentals on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  let rows: Row[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    symbol = (await h.db.prisma.fundamental.findFirst({ orderBy: { symbol: 'asc' } }))!.symbol;
    rows = await h.db.prisma.fundamental.findMany({
      where: { symbol },
      orderBy: NEWEST_FIRST,
      include: { metrics: true },
    });
    expect(rows.length).toBeGreaterThan(3);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('enhanced: the default page is the newest 10 with exactly the legacy keys and the stored values', async () => {
    const r = await rest(h, `${ENHANCED}?symbol=${symbol}`);
    expect(r.status).toBe(200);
    expect(sorted(Object.keys(r.body))).toEqual(['data', 'message', 'pagination']);
    expect(r.body.message).toBe('OK');
    expect(r.body.pagination).toEqual({
      hits: rows.length,
      page: 1,
      page_count: Math.ceil(rows.length / 10),
      page_size: 10,
    });
    expect(r.body.data).toHaveLength(Math.min(10, rows.length));
    for (const [i, rec] of r.body.data.entries()) {
      expect(sorted(Object.keys(rec))).toEqual(sorted(ENHANCED_KEYS));
      expect(sorted(Object.keys(rec.working_capital_days))).toEqual(['dio', 'dpo', 'dso']);
      expect(sorted(Object.keys(rec.risk_factors))).toEqual([
        'average_sentiment_score',
        'count',
        'most_negative_risk',
        'top_themes',
      ]);
      expect(sorted(Object.keys(rec.risk_factors.most_negative_risk))).toEqual(['heading', 'sentiment']);
      expect(sorted(Object.keys(rec.mdna))).toEqual([
        'forward_looking_term_count',
        'forward_to_historical_ratio',
        'key_topics',
        'tone_score',
      ]);
      expect(sorted(Object.keys(rec.litigation_mentions))).toEqual(['count', 'recent_headings']);
      const row = rows[i]!;
      const m = row.metrics!;
      expect(rec).toEqual({
        symbol,
        cik: row.cik,
        EndPeriod: row.endPeriod,
        Quarter: row.quarter,
        Year: row.year,
        ...statement(row),
        pe_ratio: m.peRatio,
        price_to_book: m.priceToBook,
        debt_to_equity: m.debtToEquity,
        return_on_assets: m.returnOnAssets,
        return_on_equity: m.returnOnEquity,
        revenue_per_employee: m.revenuePerEmployee,
        roic: m.roic,
        fcf_yield: m.fcfYield,
        working_capital_days: { dso: m.dso, dio: m.dio, dpo: m.dpo },
        risk_factors: {
          count: m.riskFactorCount,
          top_themes: m.riskTopThemes,
          average_sentiment_score: m.riskAverageSentimentScore,
          most_negative_risk: { heading: m.riskMostNegativeHeading, sentiment: m.riskMostNegativeSentiment },
        },
        mdna: {
          forward_looking_term_count: m.mdnaForwardLookingTermCount,
          forward_to_historical_ratio: m.mdnaForwardToHistoricalRatio,
          tone_score: m.mdnaToneScore,
          key_topics: m.mdnaKeyTopics,
        },
        litigation_mentions: { count: m.litigationCount, recent_headings: m.litigationRecentHeadings },
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
      });
      expect(rec.cik).toMatch(/^\d{10}$/);
      expect(rec.EndPeriod).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('lite: a bare array, newest first, with exactly the legacy keys and the stored values', async () => {
    const r = await rest(h, `${LITE}?symbol=${symbol}`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(Math.min(10, rows.length));
    for (const [i, rec] of r.body.entries()) {
      expect(sorted(Object.keys(rec))).toEqual(sorted(LITE_KEYS));
      const row = rows[i]!;
      expect(rec).toEqual({
        ticker: symbol,
        EndPeriod: row.endPeriod,
        Quarter: row.quarter,
        Year: row.year,
        ...statement(row),
      });
    }
    // CommitmentsContingencies is the only line that may be null; every other line is a number
    for (const rec of r.body)
      for (const l of LINES) if (l !== 'CommitmentsContingencies') expect(typeof rec[l], l).toBe('number');
  });

  it('lite and enhanced carry identical statement numbers for every period of every symbol', async () => {
    const symbols = (
      await h.db.prisma.fundamental.findMany({
        distinct: ['symbol'],
        select: { symbol: true },
        orderBy: { symbol: 'asc' },
        take: 5,
      })
    ).map((s) => s.symbol);
    // one whose CommitmentsContingencies is not reported (null on both), one where it is
    const withNull = await h.db.prisma.fundamental.findFirst({ where: { commitmentsContingencies: null } });
    const withNumber = await h.db.prisma.fundamental.findFirst({ where: { commitmentsContingencies: { not: null } } });
    expect(withNull && withNumber).toBeTruthy();
    symbols.push(withNull!.symbol, withNumber!.symbol);
    let nulls = 0;
    for (const s of symbols) {
      const lite = (await rest(h, `${LITE}?symbol=${s}&page_size=100`)).body;
      const enhanced = (await rest(h, `${ENHANCED}?symbol=${s}&page_size=100`)).body.data;
      expect(enhanced.map(period)).toEqual(lite.map(period));
      expect(lite.length).toBeGreaterThan(0);
      for (const [i, l] of lite.entries()) {
        const e = enhanced[i];
        for (const line of LINES) expect(e[line], `${s} ${period(l)} ${line}`).toBe(l[line]);
        if (l.CommitmentsContingencies === null) nulls++;
      }
    }
    expect(nulls).toBeGreaterThan(0);
  });

  it('fiscal_year and fiscal_period filter, alone and together; the symbol is case-insensitive', async () => {
    const year = rows[0]!.year;
    const cases: [string, Record<string, unknown>][] = [
      [`fiscal_year=${year}`, { year }],
      ['fiscal_period=FY', { quarter: 'FY' }],
      ['fiscal_period=Q2', { quarter: 'Q2' }],
      [`fiscal_year=${year}&fiscal_period=Q1`, { year, quarter: 'Q1' }],
      ['fiscal_year=1901', { year: 1901 }],
    ];
    for (const [q, where] of cases) {
      const want = (await h.db.prisma.fundamental.findMany({ where: { symbol, ...where }, orderBy: NEWEST_FIRST })).map(
        (f) => `${f.year} ${f.quarter} ${f.endPeriod}`,
      );
      if (q !== 'fiscal_year=1901') expect(want.length, q).toBeGreaterThan(0);
      expect(want.length, q).toBeLessThan(rows.length);
      const e = await rest(h, `${ENHANCED}?symbol=${symbol.toLowerCase()}&${q}&page_size=100`);
      expect(e.body.data.map(period), q).toEqual(want);
      expect(e.body.pagination.hits, q).toBe(want.length);
      const l = await rest(h, `${LITE}?symbol=${symbol}&${q}&page_size=100`);
      expect(l.body.map(period), q).toEqual(want);
      // the bare array carries no total: the header counts every match, as docs/rest.md says
      const short = await rest(h, `${LITE}?ticker=${symbol}&${q}&page_size=1`);
      expect(short.headers.get('x-total-count'), q).toBe(String(want.length));
    }
    // another symbol gives another company's records
    const other = (await h.db.prisma.fundamental.findFirst({ where: { symbol: { not: symbol } } }))!.symbol;
    const o = await rest(h, `${ENHANCED}?symbol=${other}&page_size=100`);
    expect(o.body.data.length).toBe(await h.db.prisma.fundamental.count({ where: { symbol: other } }));
    expect(o.body.data.every((d: any) => d.symbol === other)).toBe(true);
  });

  it('an unknown symbol is an empty answer (200), not a 404', async () => {
    const e = await rest(h, `${ENHANCED}?symbol=NOSUCH`);
    expect(e.status).toBe(200);
    expect(e.body).toEqual({ data: [], message: 'OK', pagination: { hits: 0, page: 1, page_count: 0, page_size: 10 } });
    const l = await rest(h, `${LITE}?symbol=NOSUCH`);
    expect(l.status).toBe(200);
    expect(l.body).toEqual([]);
  });

  it('page numbers walk to the end without gaps or repeats; a page past the end is empty', async () => {
    const all = rows.map((f) => `${f.year} ${f.quarter} ${f.endPeriod}`);
    for (const size of [1, 3, 4]) {
      const pageCount = Math.ceil(all.length / size);
      const seenE: string[] = [];
      const seenL: string[] = [];
      for (let page = 1; page <= pageCount; page++) {
        const e = await rest(h, `${ENHANCED}?symbol=${symbol}&page=${page}&page_size=${size}`);
        expect(e.body.pagination).toEqual({ hits: all.length, page, page_count: pageCount, page_size: size });
        expect(e.body.data.length).toBe(page < pageCount ? size : all.length - size * (pageCount - 1));
        seenE.push(...e.body.data.map(period));
        const l = await rest(h, `${LITE}?symbol=${symbol}&page=${page}&page_size=${size}`);
        seenL.push(...l.body.map(period));
      }
      expect(seenE).toEqual(all);
      expect(seenL).toEqual(all);
      const past = await rest(h, `${ENHANCED}?symbol=${symbol}&page=${pageCount + 1}&page_size=${size}`);
      expect(past.status).toBe(200);
      expect(past.body.data).toEqual([]);
      expect(past.body.pagination).toEqual({
        hits: all.length,
        page: pageCount + 1,
        page_count: pageCount,
        page_size: size,
      });
      expect((await rest(h, `${LITE}?symbol=${symbol}&page=${pageCount + 1}&page_size=${size}`)).body).toEqual([]);
    }
  });

  it('agrees with the GraphQL fields fundamentals and enhancedFundamentals', async () => {
    const g = await h.gql(
      `query($s: String!) {
      enhancedFundamentals(symbol: $s, first: 100) { totalCount nodes { symbol cik endPeriod quarter year incomeStatement { revenue ebitda } balanceSheet { totalAssets commitmentsContingencies } cashFlow { changeCashEquivalents } metrics { peRatio roic } riskFactors { topThemes } createdAt } }
      fundamentals(symbol: $s, fiscalPeriod: FY, first: 100) { totalCount nodes { symbol endPeriod quarter year incomeStatement { revenue } } }
    }`,
      { s: symbol.toLowerCase() },
    );
    expect(g.errors).toBeUndefined();
    const e = await rest(h, `${ENHANCED}?symbol=${symbol.toLowerCase()}&page_size=100`);
    expect(e.body.pagination.hits).toBe(g.data.enhancedFundamentals.totalCount);
    expect(
      e.body.data.map((d: any) => [
        d.symbol,
        d.cik,
        d.EndPeriod,
        d.Quarter,
        d.Year,
        d.Revenue,
        d.EBITDA,
        d.TotalAssets,
        d.CommitmentsContingencies,
        d.ChangeCashEquivalents,
        d.pe_ratio,
        d.roic,
        d.risk_factors.top_themes,
        d.created_at,
      ]),
    ).toEqual(
      g.data.enhancedFundamentals.nodes.map((n: any) => [
        n.symbol,
        n.cik,
        n.endPeriod,
        n.quarter,
        n.year,
        n.incomeStatement.revenue,
        n.incomeStatement.ebitda,
        n.balanceSheet.totalAssets,
        n.balanceSheet.commitmentsContingencies,
        n.cashFlow.changeCashEquivalents,
        n.metrics.peRatio,
        n.metrics.roic,
        n.riskFactors.topThemes,
        n.createdAt,
      ]),
    );
    const l = await rest(h, `${LITE}?symbol=${symbol}&fiscal_period=FY&page_size=100`);
    expect(l.body.map((d: any) => [d.ticker, d.EndPeriod, d.Quarter, d.Year, d.Revenue])).toEqual(
      g.data.fundamentals.nodes.map((n: any) => [n.symbol, n.endPeriod, n.quarter, n.year, n.incomeStatement.revenue]),
    );
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['', 'symbol'],
      ['symbol=', 'symbol'],
      [`symbol=${symbol}&fiscal_year=1899`, 'fiscal_year', '1899'],
      [`symbol=${symbol}&fiscal_year=2101`, 'fiscal_year', '2101'],
      [`symbol=${symbol}&fiscal_year=twenty`, 'fiscal_year', 'twenty'],
      [`symbol=${symbol}&fiscal_year=2024.5`, 'fiscal_year', '2024.5'],
      [`symbol=${symbol}&fiscal_period=Q5`, 'fiscal_period', 'Q5'],
      [`symbol=${symbol}&page=0`, 'page', '0'],
      [`symbol=${symbol}&page=-1`, 'page', '-1'],
      [`symbol=${symbol}&page=99999999999999`, 'page', '99999999999999'],
      [`symbol=${symbol}&page_size=101`, 'page_size', '101'],
      [`symbol=${symbol}&page_size=0`, 'page_size', '0'],
      [`symbol=${symbol}&page_size=ten`, 'page_size', 'ten'],
      [`symbol=${encodeURIComponent("' OR 1=1 --")}`, 'symbol', "' OR 1=1 --"],
      [`symbol=${encodeURIComponent('<script>alert(1)</script>')}`, 'symbol'],
      [`symbol=${encodeURIComponent(`${symbol}; DROP TABLE "Fundamental"`)}`, 'symbol'],
      [`symbol=${'A'.repeat(21)}`, 'symbol'],
      [`symbol=${symbol}&page=1&page=2`, 'page'],
    ];
    for (const path of [ENHANCED, LITE]) {
      for (const [q, name, value] of cases) expectBadParam(await rest(h, `${path}?${q}`), name, value);
    }
    // lite reads `ticker` as `symbol` (docs/rest.md#what-the-routes-accept): both at once is one parameter twice
    expectBadParam(await rest(h, `${LITE}?symbol=${symbol}&ticker=${symbol}`), 'ticker');
    // nothing was harmed
    expect(await h.db.prisma.fundamental.count({ where: { symbol } })).toBe(rows.length);
  });

  it('401 without or with a wrong key; enhanced needs pro (403 for free), lite is free', async () => {
    for (const path of [ENHANCED, LITE]) {
      expect((await rest(h, `${path}?symbol=${symbol}`, { key: null })).status).toBe(401);
      expect((await rest(h, `${path}?symbol=${symbol}`, { key: 'wrong' })).status).toBe(401);
    }
    const free = await rest(h, `${ENHANCED}?symbol=${symbol}`, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toContain('pro');
    expect((await rest(h, `${LITE}?symbol=${symbol}`, { key: 'demo-free' })).status).toBe(200);
    expect((await rest(h, `${ENHANCED}?symbol=${symbol}`, { key: 'demo-pro' })).status).toBe(200);
    // the key may come as the apikey parameter
    const withParam = await rest(h, `${LITE}?symbol=${symbol}&apikey=demo-free&page_size=2`, { key: null });
    expect(withParam.status).toBe(200);
    expect(withParam.body).toHaveLength(2);
  });

  it('a record without metrics is lite only: enhanced leaves it out and does not count it', async () => {
    // last test: it changes the data (of a symbol the other tests do not use)
    const other = (await h.db.prisma.fundamental.findFirst({
      where: { symbol: { not: symbol } },
      orderBy: { symbol: 'desc' },
    }))!.symbol;
    const list = await h.db.prisma.fundamental.findMany({ where: { symbol: other }, orderBy: NEWEST_FIRST });
    await h.db.prisma.fundamentalMetrics.delete({ where: { fundamentalId: list[1]!.id } });
    const lite = (await rest(h, `${LITE}?symbol=${other}&page_size=100`)).body;
    const e = (await rest(h, `${ENHANCED}?symbol=${other}&page_size=100`)).body;
    expect(lite).toHaveLength(list.length);
    expect(e.pagination.hits).toBe(list.length - 1);
    expect(e.data.map(period)).toEqual(lite.filter((_: unknown, i: number) => i !== 1).map(period));
  });
});
