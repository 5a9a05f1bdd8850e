import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, followPages, rest } from './helpers.js';

// Massive's documented keys of GET /v3/reference/dividends (not from the code): always there, and
// left out where a dividend has no value.
const REQUIRED_KEYS = ['cash_amount', 'dividend_type', 'ex_dividend_date', 'frequency', 'id', 'ticker'];
const OPTIONAL_KEYS = ['currency', 'declaration_date', 'pay_date', 'record_date'];
const PATH = '/stocks/v3/reference/dividends';

interface Row {
  id: string;
  ticker: string;
  cashAmount: number;
  currency: string | null;
  declarationDate: string | null;
  exDividendDate: string;
  payDate: string | null;
  recordDate: string | null;
  frequency: number;
  dividendType: string;
}

/** Dividends without some dates (Massive leaves them out of older records), and ties on every sort. */
const EXTRA: Row[] = Array.from({ length: 12 }, (_, i) => ({
  id: `T-${String(i).padStart(2, '0')}`,
  ticker: i % 2 ? 'ZZZ' : 'NVLX',
  cashAmount: [0.1, 0.5, 1.25][i % 3]!,
  currency: i % 4 === 0 ? null : 'USD',
  declarationDate: i % 3 === 0 ? null : `2019-0${1 + (i % 4)}-01`,
  exDividendDate: `2019-0${1 + (i % 4)}-15`,
  payDate: i % 2 === 0 ? null : `2019-0${1 + (i % 4)}-28`,
  recordDate: i % 5 === 0 ? null : `2019-0${1 + (i % 4)}-16`,
  frequency: [0, 1, 2, 12, 52][i % 5]!,
  dividendType: ['CD', 'SC', 'LT', 'ST'][i % 4]!,
}));

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
/** A stored row in Massive's shape, built from the database alone: a null column is a key left out. */
const record = (d: Row) =>
  Object.fromEntries(
    Object.entries({
      cash_amount: d.cashAmount,
      currency: d.currency,
      declaration_date: d.declarationDate,
      dividend_type: d.dividendType,
      ex_dividend_date: d.exDividendDate,
      frequency: d.frequency,
      id: d.id,
      pay_date: d.payDate,
      record_date: d.recordDate,
      ticker: d.ticker,
    }).filter(([, v]) => v !== null),
  );

/** Each sort's key: a date a dividend lacks sorts as the empty text, before every date. */
const SORT_KEYS: Record<string, (d: Row) => (string | number)[]> = {
  ex_dividend_date: (d) => [d.exDividendDate],
  pay_date: (d) => [d.payDate ?? ''],
  declaration_date: (d) => [d.declarationDate ?? ''],
  record_date: (d) => [d.recordDate ?? ''],
  cash_amount: (d) => [d.cashAmount],
  ticker: (d) => [d.ticker, d.exDividendDate],
};

describe.each(testDatabases())('REST dividends on $name', (tdb) => {
  let h: GraphQLHarness;
  let rows: Row[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    await h.db.prisma.dividend.createMany({ data: EXTRA });
    rows = await h.db.prisma.$queryRawUnsafe<Row[]>('SELECT * FROM "Dividend"');
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const sorted = (sort: string, order: 'asc' | 'desc', keep: (d: Row) => boolean = () => true) => {
    const key = (d: Row) => [...SORT_KEYS[sort]!(d), d.id];
    const out = rows.filter(keep).sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return cmp(ka[i]!, kb[i]!);
      return 0;
    });
    return (order === 'desc' ? out.reverse() : out).map(record);
  };

  it("holds the sample's dividends as sample/corporate-actions.ts gives them: quarterly on four symbols, one special", async () => {
    const sample = rows.filter((r) => r.id.startsWith('E-'));
    expect(sample).toHaveLength(33);
    const bySymbol: Record<string, Row[]> = {};
    for (const d of sample) (bySymbol[d.ticker] ??= []).push(d);
    expect(Object.keys(bySymbol).sort()).toEqual(['BRKW', 'GRDX', 'NVLX', 'PTRX', 'TRLN']);
    expect(bySymbol.BRKW!.every((d) => d.cashAmount === 0.24 && d.frequency === 4 && d.dividendType === 'CD')).toBe(
      true,
    );
    expect(bySymbol.GRDX).toEqual([
      {
        id: 'E-GRDX-2026-03-special',
        ticker: 'GRDX',
        cashAmount: 5,
        currency: 'USD',
        declarationDate: '2026-02-20',
        exDividendDate: '2026-03-11',
        payDate: '2026-03-25',
        recordDate: '2026-03-11',
        frequency: 0,
        dividendType: 'SC',
      },
    ]);
  });

  it("answers Massive's envelope, newest ex-dividend date first by default, absent dates left out", async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['next_url', 'request_id', 'results', 'status']);
    expect(r.body.results).toEqual(sorted('ex_dividend_date', 'desc').slice(0, 10));
    const all = (await followPages(h, `${PATH}?limit=1000`)).flat();
    expect(all).toHaveLength(rows.length);
    for (const d of all) {
      expect(Object.keys(d).filter((k) => REQUIRED_KEYS.includes(k))).toEqual(REQUIRED_KEYS);
      for (const k of Object.keys(d)) expect([...REQUIRED_KEYS, ...OPTIONAL_KEYS]).toContain(k);
    }
    expect(all.find((d: any) => d.id === 'T-00')).toEqual({
      cash_amount: 0.1,
      dividend_type: 'CD',
      ex_dividend_date: '2019-01-15',
      frequency: 0,
      id: 'T-00',
      ticker: 'NVLX',
    });
  });

  it('follows next_url through every dividend once, by every sort in either order, dividends without the date included', async () => {
    for (const sort of Object.keys(SORT_KEYS)) {
      for (const order of ['asc', 'desc'] as const) {
        const pages = await followPages(h, `${PATH}?limit=6&sort=${sort}&order=${order}`);
        expect(pages.flat(), `${sort} ${order}`).toEqual(sorted(sort, order));
        expect(pages.slice(0, -1).every((p) => p.length === 6)).toBe(true);
      }
    }
  });

  it('filters by every Massive parameter, every filter applying', async () => {
    const cases: [string, (d: Row) => boolean][] = [
      ['ticker=nvlx', (d) => d.ticker === 'NVLX'],
      ['ticker.gt=NVLX&ticker.lte=TRLN', (d) => d.ticker > 'NVLX' && d.ticker <= 'TRLN'],
      ['ex_dividend_date=2025-05-13', (d) => d.exDividendDate === '2025-05-13'],
      [
        'ex_dividend_date.gte=2025-05-13&ex_dividend_date.lt=2026-01-01',
        (d) => d.exDividendDate >= '2025-05-13' && d.exDividendDate < '2026-01-01',
      ],
      ['record_date.lte=2019-02-28', (d) => d.recordDate !== null && d.recordDate <= '2019-02-28'],
      ['declaration_date.gt=2026-06-01', (d) => d.declarationDate !== null && d.declarationDate > '2026-06-01'],
      ['pay_date.gte=2026-11-01', (d) => d.payDate !== null && d.payDate >= '2026-11-01'],
      ['frequency=4', (d) => d.frequency === 4],
      ['frequency=0&ticker=GRDX', (d) => d.frequency === 0 && d.ticker === 'GRDX'],
      ['cash_amount=0.24', (d) => d.cashAmount === 0.24],
      ['cash_amount.gt=0.3&cash_amount.lt=5', (d) => d.cashAmount > 0.3 && d.cashAmount < 5],
      ['cash_amount.gte=5', (d) => d.cashAmount >= 5],
      ['dividend_type=sc', (d) => d.dividendType === 'SC'],
      ['dividend_type=ST&ticker=ZZZ', (d) => d.dividendType === 'ST' && d.ticker === 'ZZZ'],
    ];
    for (const [q, keep] of cases) {
      const expected = sorted('ex_dividend_date', 'desc', keep);
      expect(expected.length, q).toBeGreaterThan(0);
      expect((await followPages(h, `${PATH}?${q}&limit=7`)).flat(), q).toEqual(expected);
    }
  });

  it('rejects bad parameters with a 400 naming the parameter and the value, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['?limit=1001', 'limit', '1001'],
      ['?order=newest', 'order', 'newest'],
      ['?sort=currency', 'sort', 'currency'],
      ['?frequency=3', 'frequency', '3'],
      ['?frequency=weekly', 'frequency', 'weekly'],
      ['?frequency=53', 'frequency', '53'],
      ['?cash_amount=-1', 'cash_amount', '-1'],
      ['?cash_amount.gte=1e3', 'cash_amount.gte', '1e3'],
      ['?dividend_type=XX', 'dividend_type', 'XX'],
      ['?pay_date=2026-02-30', 'pay_date', '2026-02-30'],
      ['?record_date.lt=soon', 'record_date.lt', 'soon'],
      ['?declaration_date.gt=2026-1-1', 'declaration_date.gt', '2026-1-1'],
      ['?ex_dividend_date.lte=x', 'ex_dividend_date.lte', 'x'],
      ['?ticker.gte=%3B', 'ticker.gte', ';'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, PATH + q), name, value);
    expect((await rest(h, `${PATH}?frequency=3`)).body.message).toBe(
      'parameter frequency must be one of 0, 1, 2, 4, 12, 24, 52; got "3"',
    );
  });

  it('agrees with GraphQL: Query.dividends and Security.dividends, newest first', async () => {
    const g = await h.gql(
      `{ dividends(first: 100) { nodes { dividendId ticker cashAmount currency declarationDate dividendType exDividendDate frequency payDate recordDate } }
         q: dividends(ticker: "nvlx", from: "2019-01-01", to: "2025-12-31", first: 100) { nodes { dividendId } }
         t: dividends(dividendType: SC, first: 100) { nodes { dividendId } }
         security(symbol: "TRLN") { dividends(first: 100) { nodes { dividendId } } } }`,
    );
    expect(g.errors).toBeUndefined();
    const all = (await followPages(h, `${PATH}?limit=1000`)).flat();
    expect(g.data.dividends.nodes).toEqual(
      all.slice(0, 100).map((d: any) => ({
        dividendId: d.id,
        ticker: d.ticker,
        cashAmount: d.cash_amount,
        currency: d.currency ?? null,
        declarationDate: d.declaration_date ?? null,
        dividendType: d.dividend_type,
        exDividendDate: d.ex_dividend_date,
        frequency: d.frequency,
        payDate: d.pay_date ?? null,
        recordDate: d.record_date ?? null,
      })),
    );
    const ids = async (q: string) => (await followPages(h, `${PATH}?${q}&limit=1000`)).flat().map((d: any) => d.id);
    const ofId = (nodes: { dividendId: string }[]) => nodes.map((n) => n.dividendId);
    expect(ofId(g.data.q.nodes)).toEqual(
      await ids('ticker=NVLX&ex_dividend_date.gte=2019-01-01&ex_dividend_date.lte=2025-12-31'),
    );
    expect(ofId(g.data.t.nodes)).toEqual(await ids('dividend_type=SC'));
    expect(ofId(g.data.security.dividends.nodes)).toEqual(await ids('ticker=TRLN'));
  });

  it("a security's dividends through the planner carry every field as REST has it", async () => {
    const g = await h.gql(
      '{ security(symbol: "GRDX") { dividends(first: 5) { nodes { dividendId dividendType cashAmount currency exDividendDate payDate recordDate declarationDate frequency ticker } } } }',
    );
    expect(g.errors).toBeUndefined();
    const rest_ = (await rest(h, `${PATH}?ticker=GRDX&limit=5`)).body.results;
    expect(g.data.security.dividends.nodes).toEqual(
      rest_.map((d: any) => ({
        dividendId: d.id,
        dividendType: d.dividend_type,
        cashAmount: d.cash_amount,
        currency: d.currency ?? null,
        exDividendDate: d.ex_dividend_date,
        payDate: d.pay_date ?? null,
        recordDate: d.record_date ?? null,
        declarationDate: d.declaration_date ?? null,
        frequency: d.frequency,
        ticker: d.ticker,
      })),
    );
    expect(g.data.security.dividends.nodes[0].dividendType).toBe('SC');
  });

  it('one SQL statement per page, however it is sorted', async () => {
    await rest(h, `${PATH}?sort=pay_date`);
    expect(await h.countStatements(() => rest(h, `${PATH}?sort=pay_date&ticker=NVLX`))).toBe(1);
    expect(await h.countStatements(() => rest(h, `${PATH}?sort=cash_amount&order=asc`))).toBe(1);
  });
});
