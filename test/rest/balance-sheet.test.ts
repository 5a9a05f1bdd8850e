import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceSheet, BalanceSheetSymbol, Prisma } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, followPages, rest } from './helpers.js';

// The balance-sheet record: the legacy API's documented keys, written down here and not taken from the code, so a key a route drops, adds or misspells fails.
const ALWAYS = [
  'accumulated_retained_earnings',
  'acquired_goodwill',
  'advance_customer_payments',
  'cash_and_short_term_equivalents',
  'current_accrued_liabilities',
  'customer_receivables',
  'long_term_debt_obligations',
  'long_term_miscellaneous_liabilities',
  'miscellaneous_assets',
  'miscellaneous_current_assets',
  'net_fixed_assets',
  'net_intangible_assets',
  'ordinary_share_capital',
  'other_comprehensive_income_accumulated',
  'other_stockholder_equity',
  'parent_company_equity',
  'payable_to_suppliers',
  'short_term_debt_obligations',
  'sum_of_current_assets',
  'sum_of_current_liabilities',
  'total_assets',
  'total_equity',
  'total_liabilities',
  'total_liabilities_plus_equity',
];
const OPTIONAL = [
  'capital_paid_in_excess',
  'marketable_securities_short_term',
  'minority_shareholder_interest',
  'stock_inventory',
  'treasury_stock',
];
const IDENTITY = ['cik', 'symbols', 'fiscal_year', 'fiscal_quarter', 'reporting_period_end', 'timeframe'];
const PATH = '/stocks/v1/fundamentals/balance-sheet';

type Row = BalanceSheet & { symbols: BalanceSheetSymbol[] };
const withSymbols = { symbols: { orderBy: { position: 'asc' } } } as const;
const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A stored balance sheet in the REST shape, from the key lists above. */
function expected(r: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {
    cik: r.cik,
    symbols: r.symbols.map((s) => s.symbol),
    fiscal_year: r.fiscalYear,
    fiscal_quarter: r.fiscalQuarter,
    reporting_period_end: r.reportingPeriodEnd,
    timeframe: r.timeframe,
  };
  for (const f of ALWAYS) out[f] = (r as any)[camel(f)];
  for (const f of OPTIONAL) if ((r as any)[camel(f)] !== null) out[f] = (r as any)[camel(f)];
  return out;
}

describe.each(testDatabases())('REST balance sheets on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const stored = (
    where: Prisma.BalanceSheetWhereInput = {},
    orderBy: Prisma.BalanceSheetOrderByWithRelationInput[] = [{ reportingPeriodEnd: 'asc' }, { id: 'asc' }],
  ) => h.db.prisma.balanceSheet.findMany({ where, include: withSymbols, orderBy });

  it('the default page: 100 by period end ascending, exactly the legacy keys, optional amounts only when reported', async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    const total = await h.db.prisma.balanceSheet.count();
    expect(total).toBeGreaterThan(100);
    expect(Object.keys(r.body).sort()).toEqual(['next_url', 'request_id', 'results', 'status']);
    expect(r.body.status).toBe('OK');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    expect(r.body.results).toHaveLength(100);
    const rows = (await stored()).slice(0, 100);
    expect(r.body.results).toEqual(rows.map(expected));
    for (const rec of r.body.results) {
      const keys = Object.keys(rec);
      for (const k of [...IDENTITY, ...ALWAYS]) expect(keys).toContain(k);
      for (const k of keys) expect([...IDENTITY, ...ALWAYS, ...OPTIONAL]).toContain(k);
      expect(rec.cik).toMatch(/^\d{10}$/);
    }
    // a record without an optional amount leaves the key out (not null, not 0)
    const bank = await h.db.prisma.balanceSheet.findFirstOrThrow({
      where: { stockInventory: null },
      include: withSymbols,
      orderBy: { id: 'asc' },
    });
    const answer = await rest(
      h,
      `${PATH}?cik=${bank.cik}&period_end=${bank.reportingPeriodEnd}&timeframe=${bank.timeframe}`,
    );
    expect(answer.body.results).toEqual([expected(bank)]);
    expect(answer.body.results[0]).not.toHaveProperty('stock_inventory');
    expect(answer.body).not.toHaveProperty('next_url');
  });

  it('next_url pages to the end for each sort without gaps or repeats, and carries every filter', async () => {
    const total = await h.db.prisma.balanceSheet.count();
    const sorts: [string, Prisma.BalanceSheetOrderByWithRelationInput[]][] = [
      ['period_end', [{ reportingPeriodEnd: 'asc' }, { id: 'asc' }]],
      ['period_end.desc', [{ reportingPeriodEnd: 'desc' }, { id: 'desc' }]],
      ['fiscal_year.asc', [{ fiscalYear: 'asc' }, { fiscalQuarter: 'asc' }, { id: 'asc' }]],
      ['fiscal_year.desc', [{ fiscalYear: 'desc' }, { fiscalQuarter: 'desc' }, { id: 'desc' }]],
      ['fiscal_quarter.desc', [{ fiscalQuarter: 'desc' }, { id: 'desc' }]],
    ];
    for (const [sort, orderBy] of sorts) {
      const pages = await followPages(h, `${PATH}?sort=${sort}&limit=97`);
      expect(pages.flat(), sort).toEqual((await stored({}, orderBy)).map(expected));
      expect(pages.flat().length).toBe(total);
      expect(pages.at(-1)!.length).toBeGreaterThan(0);
      for (const p of pages.slice(0, -1)) expect(p).toHaveLength(97);
    }
    // the filters ride in the cursor: every page of a filtered list stays filtered
    const filtered = await followPages(
      h,
      `${PATH}?symbols=nvlx,ORBT&timeframe=quarterly&limit=5&sort=fiscal_year.desc`,
    );
    const want = await stored({ symbols: { some: { symbol: { in: ['NVLX', 'ORBT'] } } }, timeframe: 'quarterly' }, [
      { fiscalYear: 'desc' },
      { fiscalQuarter: 'desc' },
      { id: 'desc' },
    ]);
    expect(want.length).toBeGreaterThan(10);
    expect(filtered.flat()).toEqual(want.map(expected));
  });

  it('every filter filters (checked against the database)', async () => {
    const sample = await h.db.prisma.balanceSheet.findFirstOrThrow({
      where: { timeframe: 'quarterly' },
      orderBy: { id: 'desc' },
    });
    const all = async (q: string) => (await followPages(h, `${PATH}?limit=1000&${q}`)).flat();
    const cases: [string, Prisma.BalanceSheetWhereInput][] = [
      [`cik=${sample.cik}`, { cik: sample.cik }],
      [`cik=${sample.cik.replace(/^0+/, '')}`, { cik: sample.cik }],
      ['symbols=DRFT.B', { symbols: { some: { symbol: 'DRFT.B' } } }],
      ['symbols=NVLX,ORBT', { symbols: { some: { symbol: { in: ['NVLX', 'ORBT'] } } } }],
      [`period_end=${sample.reportingPeriodEnd}`, { reportingPeriodEnd: sample.reportingPeriodEnd }],
      [`fiscal_year=${sample.fiscalYear}`, { fiscalYear: sample.fiscalYear }],
      [`fiscal_quarter=${sample.fiscalQuarter}`, { fiscalQuarter: sample.fiscalQuarter }],
      ['timeframe=annual', { timeframe: 'annual' }],
      ['timeframe=trailing_twelve_months', { timeframe: 'trailing_twelve_months' }],
      [
        `fiscal_year=${sample.fiscalYear}&fiscal_quarter=${sample.fiscalQuarter}&timeframe=quarterly`,
        { fiscalYear: sample.fiscalYear, fiscalQuarter: sample.fiscalQuarter, timeframe: 'quarterly' },
      ],
    ];
    const total = await h.db.prisma.balanceSheet.count();
    for (const [q, where] of cases) {
      const want = await stored(where);
      expect(want.length, q).toBeGreaterThan(0);
      expect(want.length, q).toBeLessThan(total);
      expect(await all(q), q).toEqual(want.map(expected));
    }
    for (const rec of await all('symbols=DRFT.B')) expect(rec.symbols).toEqual(['DRFT', 'DRFT.B']);
    expect(await all('cik=1')).toEqual([]);
    expect(await all('symbols=NOSUCH')).toEqual([]);
  });

  it('agrees with GraphQL balanceSheets (same filter and order)', async () => {
    const g =
      await h.gql(`{ balanceSheets(filter: { symbols: ["NVLX", "HLCN"], timeframe: ANNUAL }, orderBy: { field: FISCAL_YEAR, direction: DESC }, first: 20) {
      nodes { cik symbols fiscalYear fiscalQuarter reportingPeriodEnd timeframe totalAssets totalLiabilities totalEquity stockInventory treasuryStock } } }`);
    expect(g.errors).toBeUndefined();
    const r = await rest(h, `${PATH}?symbols=NVLX,HLCN&timeframe=annual&sort=fiscal_year.desc&limit=20`);
    expect(r.body.results.length).toBeGreaterThan(1);
    expect(
      r.body.results.map((b: any) => ({
        cik: b.cik,
        symbols: b.symbols,
        fiscalYear: b.fiscal_year,
        fiscalQuarter: b.fiscal_quarter,
        reportingPeriodEnd: b.reporting_period_end,
        timeframe: b.timeframe.toUpperCase(),
        totalAssets: b.total_assets,
        totalLiabilities: b.total_liabilities,
        totalEquity: b.total_equity,
        stockInventory: b.stock_inventory ?? null,
        treasuryStock: b.treasury_stock ?? null,
      })),
    ).toEqual(g.data.balanceSheets.nodes);
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['?limit=0', 'limit', '0'],
      ['?limit=1001', 'limit', '1001'],
      ['?limit=many', 'limit', 'many'],
      ['?sort=revenue.asc', 'sort', 'revenue.asc'],
      ['?sort=period_end.up', 'sort', 'period_end.up'],
      ['?sort=PERIOD.END', 'sort', 'PERIOD.END'],
      ['?cik=12a', 'cik', '12a'],
      ['?cik=12345678901', 'cik', '12345678901'],
      [`?cik=${encodeURIComponent("1' OR 1=1 --")}`, 'cik'],
      [`?symbols=${encodeURIComponent('<script>')}`, 'symbols'],
      [`?symbols=${'A'.repeat(201)}`, 'symbols'],
      ['?symbols=NVLX,,ORBT', 'symbols'],
      [`?symbols=${'A'.repeat(21)}`, 'symbols'],
      ['?period_end=2024-02-30', 'period_end', '2024-02-30'],
      ['?period_end=20240331', 'period_end', '20240331'],
      ['?fiscal_year=1899', 'fiscal_year', '1899'],
      ['?fiscal_year=2101', 'fiscal_year', '2101'],
      ['?fiscal_quarter=5', 'fiscal_quarter', '5'],
      ['?fiscal_quarter=Q1', 'fiscal_quarter', 'Q1'],
      ['?timeframe=monthly', 'timeframe', 'monthly'],
      ['?cursor=bm9wZQ', 'cursor'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, PATH + q), name, value);
    // a cursor with another page size is honoured (docs/rest.md#what-the-routes-accept); a tampered one is refused
    const first = await rest(h, `${PATH}?limit=1`);
    const cursor = new URL(first.body.next_url).searchParams.get('cursor')!;
    const alone = await rest(h, `${PATH}?cursor=${cursor}`);
    const five = await rest(h, `${PATH}?cursor=${cursor}&limit=5`);
    expect(five.status).toBe(200);
    expect(five.body.results).toHaveLength(5);
    expect(five.body.results[0]).toEqual(alone.body.results[0]);
    expect(five.headers.get('x-ignored-parameters')).toBeNull();
    expectBadParam(await rest(h, `${PATH}?cursor=${(cursor[0] === 'e' ? 'f' : 'e') + cursor.slice(1)}`), 'cursor');
    // a trades cursor does not open balance sheets
    const trades = await rest(h, '/stocks/v3/trades/NVLX?limit=1');
    const tradeCursor = new URL(trades.body.next_url).searchParams.get('cursor')!;
    expectBadParam(await rest(h, `${PATH}?cursor=${tradeCursor}`), 'cursor');
  });

  it('401 without or with a wrong key; the free tier is entitled; next_url works with the apikey parameter', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    const free = await rest(h, `${PATH}?apikey=demo-free&limit=2`, { key: null });
    expect(free.status).toBe(200);
    expect(free.body.next_url).not.toContain('apikey');
    const next = await rest(h, `${free.body.next_url}&apikey=demo-free`, { key: null });
    expect(next.status).toBe(200);
    expect(next.body.results).toHaveLength(2);
    expect((await rest(h, free.body.next_url, { key: null })).status).toBe(401);
  });
});
