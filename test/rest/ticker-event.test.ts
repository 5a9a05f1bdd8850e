import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLE, generateReference } from '../../src/sample/generate.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// Massive's ticker events (GET /vX/reference/tickers/{id}/events) and Security.symbolHistory, read
// against the SymbolHistory and Security rows by SQL. The sample renames ORBX to ORBT on
// 2025-09-15 (sample/corporate-actions.ts: the first exchange day on or after that Monday).
const CHANGE = '2025-09-15';
const path = (id: string) => `/stocks/vX/reference/tickers/${id}/events`;
const event = (date: string, ticker: string) => ({
  date,
  event_type: 'ticker_change',
  ticker_change: { ticker },
  type: 'ticker_change',
});

interface SecurityRow {
  id: string;
  symbol: string;
  name: string;
  listDate: string | null;
  figiComposite: string;
  cusip: string;
}

describe.each(testDatabases())('ticker events and symbol history on $name', (tdb) => {
  let h: GraphQLHarness;
  let orbt: SecurityRow;
  let nvlx: SecurityRow;
  const security = async (symbol: string) =>
    (
      await h.db.prisma.$queryRawUnsafe<SecurityRow[]>(
        'SELECT * FROM "Security" WHERE "symbol" = $1 ORDER BY "id" LIMIT 1',
        symbol,
      )
    )[0]!;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    [orbt, nvlx] = [await security('ORBT'), await security('NVLX')];
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("holds ORBT's two symbols by its id, ORBX from its list date; no other security has rows", async () => {
    const rows = await h.db.prisma.$queryRawUnsafe<{ securityId: string; symbol: string; startDate: string }[]>(
      'SELECT * FROM "SymbolHistory" ORDER BY "startDate"',
    );
    expect(rows).toEqual([
      { securityId: orbt.id, symbol: 'ORBX', startDate: orbt.listDate },
      { securityId: orbt.id, symbol: 'ORBT', startDate: CHANGE },
    ]);
  });

  it("answers ORBT's events newest first, by its ticker, composite FIGI or CUSIP, in any case", async () => {
    const expected = {
      request_id: expect.any(String),
      results: { events: [event(CHANGE, 'ORBT'), event(orbt.listDate!, 'ORBX')], name: orbt.name },
      status: 'OK',
    };
    for (const id of ['ORBT', 'orbt', orbt.figiComposite, orbt.cusip.toLowerCase()]) {
      const r = await rest(h, path(id));
      expect(r.status, id).toBe(200);
      expect(r.body, id).toEqual(expected);
    }
    expect((await rest(h, `${path('ORBT')}?types=ticker_change`)).body.results).toEqual(expected.results);
    // the former ticker names no security now
    expect((await rest(h, path('ORBX'))).status).toBe(404);
  });

  it('a security whose symbol never changed has one event, dated its list date', async () => {
    const r = await rest(h, path('NVLX'));
    expect(r.body.results).toEqual({ events: [event(nvlx.listDate!, 'NVLX')], name: nvlx.name });
  });

  it('404 for an id no security has; 400 naming a bad id or event type', async () => {
    const none = await rest(h, path('ZZZZ'));
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('no security has the ticker, composite FIGI or CUSIP "ZZZZ"');
    expectBadParam(await rest(h, path('A%20B')), 'id', 'A B');
    expectBadParam(await rest(h, `${path('ORBT')}?types=dividend`), 'types', 'dividend');
    expectBadParam(await rest(h, `${path('ORBT')}?types=ticker_change,split`), 'types', 'ticker_change,split');
  });

  it('Security.symbolHistory: the periods of the same rows, each ending the day before the next begins', async () => {
    const g = await h.gql(
      `{ orbt: security(symbol: "ORBT") { symbolHistory { symbol startDate endDate } }
         nvlx: security(symbol: "NVLX") { symbolHistory { symbol startDate endDate } } }`,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.orbt.symbolHistory).toEqual([
      { symbol: 'ORBT', startDate: CHANGE, endDate: null },
      { symbol: 'ORBX', startDate: orbt.listDate, endDate: '2025-09-14' },
    ]);
    expect(g.data.nvlx.symbolHistory).toEqual([{ symbol: 'NVLX', startDate: nvlx.listDate, endDate: null }]);
  });

  it('a security without a list date or history has one period without a start, and no event', async () => {
    await h.db.prisma.security.update({ where: { id: nvlx.id }, data: { listDate: null } });
    try {
      const g = await h.gql('{ security(symbol: "NVLX") { symbolHistory { symbol startDate endDate } } }');
      expect(g.data.security.symbolHistory).toEqual([{ symbol: 'NVLX', startDate: null, endDate: null }]);
      expect((await rest(h, path('NVLX'))).body.results.events).toEqual([]);
    } finally {
      await h.db.prisma.security.update({ where: { id: nvlx.id }, data: { listDate: nvlx.listDate } });
    }
  });

  it("reads every security's history of a page in one statement, however many securities", async () => {
    const query = (n: number) => `{ securities(first: ${n}) { nodes { symbol symbolHistory { symbol } } } }`;
    const few = await h.countWarmStatements(() => h.gql(query(2)));
    expect(await h.countWarmStatements(() => h.gql(query(40)))).toBe(few);
    const g = await h.gql(query(40));
    // the symbol it has now comes first
    for (const s of g.data.securities.nodes) expect(s.symbolHistory[0].symbol, s.symbol).toBe(s.symbol);
  });

  it('the sample holds the actions of the symbols it has: fewer securities, fewer actions', () => {
    const all = generateReference(DEFAULT_SAMPLE);
    expect(all.splits.map((s) => s.ticker)).toEqual(['QNTR', 'SLMI']);
    expect(all.symbolHistory.map((r) => r.symbol)).toEqual(['ORBX', 'ORBT']);
    const one = generateReference({ ...DEFAULT_SAMPLE, securities: 1 });
    expect(one.securities.map((s) => s.symbol)).toEqual(['NVLX']);
    expect(one.splits).toEqual([]);
    expect(one.symbolHistory).toEqual([]);
    expect(new Set(one.dividends.map((d) => d.ticker))).toEqual(new Set(['NVLX']));
    expect(one.dividends).toHaveLength(8);
  });
});
