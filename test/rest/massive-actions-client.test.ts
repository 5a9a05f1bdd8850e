// The official Massive client, @massive.com/client-js, as written by nobody here, driving the
// splits, dividends and ticker events routes of a live app with its base URL at `/stocks`
// (the server set up as test/rest/massive-client.test.ts does). Its answers are checked against
// the rows read here by SQL, not against our own route.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ListDividendsDividendTypeEnum,
  ListDividendsFrequencyEnum,
  ListDividendsOrderEnum,
  ListDividendsSortEnum,
  ListStockSplitsOrderEnum,
  ListStockSplitsSortEnum,
  restClient,
} from '@massive.com/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

const KEY = 'demo-free';
const PAGE = 4;

interface SplitRow {
  id: string;
  ticker: string;
  executionDate: string;
  splitFrom: number;
  splitTo: number;
}
interface DividendRow {
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

/** Extra splits, so the client follows several pages. */
const EXTRA_SPLITS: SplitRow[] = Array.from({ length: 9 }, (_, i) => ({
  id: `C-${i}`,
  ticker: i % 2 ? 'NVLX' : 'QNTR',
  executionDate: `2018-0${1 + i}-10`,
  splitFrom: i % 3 ? 1 : 4,
  splitTo: i % 3 ? 3 : 1,
}));

const splitRecord = (s: SplitRow) => ({
  execution_date: s.executionDate,
  id: s.id,
  split_from: s.splitFrom,
  split_to: s.splitTo,
  ticker: s.ticker,
});
const dividendRecord = (d: DividendRow) =>
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

/** The client puts each followed page's results before the page that linked to it: the pages come last first. */
const asTheClientJoinsPages = <T>(records: T[], size: number): T[] =>
  Array.from({ length: Math.ceil(records.length / size) }, (_, i) => records.slice(i * size, (i + 1) * size))
    .reverse()
    .flat();

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

describe.each(testDatabases())('the official Massive client on corporate actions, on $name', (tdb) => {
  let h: GraphQLHarness;
  let server: Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    await h.db.prisma.split.createMany({ data: EXTRA_SPLITS });
    server = createServer((req, res) => {
      seen.push(req.url!);
      return h.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  const splits = () => h.db.prisma.$queryRawUnsafe<SplitRow[]>('SELECT * FROM "Split"');
  const dividends = () => h.db.prisma.$queryRawUnsafe<DividendRow[]>('SELECT * FROM "Dividend"');

  it('listStockSplits: follows every next_url to every split, newest first, and by ticker ascending', async () => {
    const rows = await splits();
    const rest = restClient(KEY, base, { pagination: true });
    seen.length = 0;
    const answer = await rest.listStockSplits({ limit: PAGE });
    const newest = [...rows].sort((a, b) => cmp(b.executionDate, a.executionDate) || cmp(b.id, a.id)).map(splitRecord);
    expect(answer.status).toBe('OK');
    expect(answer.results).toEqual(asTheClientJoinsPages(newest, PAGE));
    expect(seen).toHaveLength(Math.ceil(rows.length / PAGE));
    for (const url of seen) expect(url).toMatch(/^\/stocks\/v3\/reference\/splits\?/);

    const byTicker = await rest.listStockSplits({
      sort: ListStockSplitsSortEnum.Ticker,
      order: ListStockSplitsOrderEnum.Asc,
      limit: PAGE,
    });
    const ascending = [...rows]
      .sort((a, b) => cmp(a.ticker, b.ticker) || cmp(a.executionDate, b.executionDate) || cmp(a.id, b.id))
      .map(splitRecord);
    expect(byTicker.results).toEqual(asTheClientJoinsPages(ascending, PAGE));
  });

  it('listStockSplits: ticker, execution date range and reverse splits', async () => {
    const rows = await splits();
    const rest = restClient(KEY, base, { pagination: true });
    const answer = await rest.listStockSplits({
      ticker: 'QNTR',
      executionDateGte: '2018-03-01',
      executionDateLt: '2025-12-31',
      reverseSplit: false,
      limit: 2,
    });
    const expected = rows
      .filter(
        (s) =>
          s.ticker === 'QNTR' &&
          s.executionDate >= '2018-03-01' &&
          s.executionDate < '2025-12-31' &&
          s.splitFrom <= s.splitTo,
      )
      .sort((a, b) => cmp(b.executionDate, a.executionDate) || cmp(b.id, a.id))
      .map(splitRecord);
    expect(expected.length).toBeGreaterThan(2);
    expect(answer.results).toEqual(asTheClientJoinsPages(expected, 2));
    const reverse = await rest.listStockSplits({ reverseSplit: true, limit: 1000 });
    expect(reverse.results!.map((s) => s.id).sort()).toEqual(
      rows
        .filter((s) => s.splitFrom > s.splitTo)
        .map((s) => s.id)
        .sort(),
    );
  });

  it('listDividends: every dividend through the pages; filters by ticker, type, frequency and amount', async () => {
    const rows = await dividends();
    const rest = restClient(KEY, base, { pagination: true });
    const all = await rest.listDividends({ limit: 7 });
    const newest = [...rows].sort((a, b) => cmp(b.exDividendDate, a.exDividendDate) || cmp(b.id, a.id));
    expect(all.results).toEqual(asTheClientJoinsPages(newest.map(dividendRecord), 7));

    const quarterly = await rest.listDividends({
      ticker: 'BRKW',
      frequency: ListDividendsFrequencyEnum.NUMBER_4,
      dividendType: ListDividendsDividendTypeEnum.Cd,
      exDividendDateGte: '2025-06-01',
      cashAmountLt: 1,
      sort: ListDividendsSortEnum.PayDate,
      order: ListDividendsOrderEnum.Asc,
      limit: 3,
    });
    const expected = rows
      .filter(
        (d) =>
          d.ticker === 'BRKW' &&
          d.frequency === 4 &&
          d.dividendType === 'CD' &&
          d.exDividendDate >= '2025-06-01' &&
          d.cashAmount < 1,
      )
      .sort((a, b) => cmp(a.payDate ?? '', b.payDate ?? '') || cmp(a.id, b.id))
      .map(dividendRecord);
    expect(expected.length).toBeGreaterThan(3);
    expect(quarterly.results).toEqual(asTheClientJoinsPages(expected, 3));

    const special = await rest.listDividends({ dividendType: ListDividendsDividendTypeEnum.Sc });
    expect(special.results).toEqual(rows.filter((d) => d.dividendType === 'SC').map(dividendRecord));
  });

  it("getEvents: ORBT's ticker changes, by its id", async () => {
    const [orbt] = await h.db.prisma.$queryRawUnsafe<{ id: string; name: string; figiComposite: string }[]>(
      `SELECT * FROM "Security" WHERE "symbol" = 'ORBT'`,
    );
    const history = await h.db.prisma.$queryRawUnsafe<{ symbol: string; startDate: string }[]>(
      `SELECT * FROM "SymbolHistory" WHERE "securityId" = $1 ORDER BY "startDate" DESC`,
      orbt!.id,
    );
    const rest = restClient(KEY, base);
    for (const id of ['ORBT', orbt!.figiComposite]) {
      const answer = await rest.getEvents({ id, types: 'ticker_change' });
      expect(answer.status).toBe('OK');
      expect(answer.results!.name).toBe(orbt!.name);
      expect(answer.results!.events!.map((e) => [e.date, e.event_type, e.ticker_change?.ticker])).toEqual(
        history.map((r) => [r.startDate, 'ticker_change', r.symbol]),
      );
    }
  });
});
