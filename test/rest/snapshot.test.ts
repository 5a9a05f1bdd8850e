// Snapshots, movers and the last trade and quote over REST (rest/snapshot.ts) on the sample data:
// the official Massive client (@massive.com/client-js) at its base URL `/stocks` against a live app,
// each answer checked against the stored ticks and day bars read here by SQL; every 200 validated
// against its OpenAPI schema (test/rest/helpers.ts); the GraphQL twins agree; bad inputs are 400s
// naming the parameter; the free tier is refused.
import { minuteFacts } from '../../src/domain/bar-time.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GetStocksSnapshotDirectionDirectionEnum, restClient } from '@massive.com/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

const KEY = 'demo-enterprise';
const BASE = '/stocks/v2/snapshot/locale/us/markets/stocks';

describe.each(testDatabases())('snapshots over REST on $name', (tdb) => {
  let h: GraphQLHarness;
  let server: Server;
  let base: string;
  /** Every stored symbol that has a trade, read here by SQL. */
  let traded: string[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = createServer((req, res) => h.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
    traded = (
      await h.db.prisma.$queryRawUnsafe<{ symbol: string }[]>('SELECT DISTINCT "symbol" FROM "Trade" ORDER BY 1')
    ).map((r) => r.symbol);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  /** The newest trade and quote of `symbol`, its latest minute's day, and the regular close of the last day before it, by SQL. */
  const stored = async (symbol: string) => {
    const [t] = await h.db.prisma.$queryRawUnsafe<any[]>(
      'SELECT * FROM "Trade" WHERE "symbol" = $1 ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC LIMIT 1',
      symbol,
    );
    const [q] = await h.db.prisma.$queryRawUnsafe<any[]>(
      'SELECT * FROM "Quote" WHERE "symbol" = $1 ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC LIMIT 1',
      symbol,
    );
    const [m] = await h.db.prisma.$queryRawUnsafe<{ day: number }[]>(
      'SELECT "day" FROM "MinuteBar" WHERE "symbol" = $1 ORDER BY "minute" DESC LIMIT 1',
      symbol,
    );
    const [prev] = await h.db.prisma.$queryRawUnsafe<{ close: number }[]>(
      'SELECT "close" FROM "DayBar" WHERE "symbol" = $1 AND "extended" = false AND "day" < $2 ORDER BY "day" DESC LIMIT 1',
      symbol,
      m!.day,
    );
    return { t, q, prevClose: prev!.close };
  };

  it('the sample data leaves a snapshot for every traded symbol', async () => {
    expect(traded.length).toBeGreaterThan(3);
    const r = await rest(h, `${BASE}/tickers`);
    expect(r.status).toBe(200);
    const withTrade = r.body.tickers.filter((s: any) => s.lastTrade).map((s: any) => s.ticker);
    expect(withTrade).toEqual(traded);
    expect(r.body.count).toBe(r.body.tickers.length);
  });

  it('the official client: one ticker, a list, and the last trade and quote answer the stored ticks', async () => {
    const client = restClient(KEY, base);
    const symbol = traded[0]!;
    const { t, q, prevClose } = await stored(symbol);
    const one = await client.getStocksSnapshotTicker({ stocksTicker: symbol });
    expect(one.status).toBe('OK');
    expect(one.ticker).toMatchObject({
      ticker: symbol,
      lastTrade: { p: t.price, s: t.size, x: t.exchange, i: t.tradeId },
      lastQuote: { p: q.bidPrice, P: q.askPrice, s: q.bidSize, S: q.askSize },
      prevDay: { c: prevClose },
    });
    expect(one.ticker!.todaysChange).toBeCloseTo(t.price - prevClose, 9);
    expect(one.ticker!.todaysChangePerc).toBeCloseTo(((t.price - prevClose) / prevClose) * 100, 9);
    const list = await client.getStocksSnapshotTickers({ tickers: traded.slice(0, 3).reverse() });
    expect(list.count).toBe(3);
    expect(list.tickers!.map((s) => s.ticker)).toEqual(traded.slice(0, 3));
    expect(list.tickers![0]).toEqual(one.ticker);
    const lastTrade = await client.getLastStocksTrade({ stocksTicker: symbol });
    expect(lastTrade.results).toMatchObject({ T: symbol, p: t.price, s: t.size, x: t.exchange, i: t.tradeId });
    const lastQuote = await client.getLastStocksQuote({ stocksTicker: symbol });
    expect(lastQuote.results).toMatchObject({ T: symbol, p: q.bidPrice, P: q.askPrice, x: q.bidExchange });
    // every digit of the nanoseconds
    const text = (await rest(h, `/stocks/v2/last/trade/${symbol}`)).text;
    expect(text).toContain(`"t":${t.sipTimestamp}`);
  });

  it("the official client's movers: the top 20 by change % among day volumes of 10,000 or more", async () => {
    const all = (await rest(h, `${BASE}/tickers`)).body.tickers as any[];
    // of the market's day only: the latest exchange day of any snapshot (CNDL and HRVL, delisted
    // in the sample, keep their last day's change)
    // a snapshot's day is its latest minute's, else (no minute kept: an old listing) its last trade's or quote's
    const dayOf = (s: any): number =>
      s.min?.t
        ? minuteFacts(Math.floor(s.min.t / 60_000)).day
        : s.updated
          ? minuteFacts(Number(BigInt(s.updated) / 60_000_000_000n)).day
          : -1;
    const marketDay = Math.max(...all.map(dayOf));
    const qualified = all.filter(
      (s) => s.day && s.day.v >= 10_000 && s.todaysChangePerc !== undefined && dayOf(s) === marketDay,
    );
    expect(all.filter((s) => dayOf(s) < marketDay).map((s) => s.ticker)).toEqual(
      expect.arrayContaining(['CNDL', 'HRVL']),
    );
    const client = restClient(KEY, base);
    for (const direction of ['gainers', 'losers'] as const) {
      const sign = direction === 'gainers' ? 1 : -1;
      const want = qualified
        .filter((s) => sign * s.todaysChangePerc > 0)
        .sort((a, b) => sign * (b.todaysChangePerc - a.todaysChangePerc) || sign * (a.ticker < b.ticker ? 1 : -1))
        .slice(0, 20);
      const got = await client.getStocksSnapshotDirection({
        direction: direction as GetStocksSnapshotDirectionDirectionEnum,
      });
      expect(got.status).toBe('OK');
      expect(got.tickers!.map((s) => s.ticker)).toEqual(want.map((s) => s.ticker));
      expect((await rest(h, `${BASE}/${direction}`)).status).toBe(200);
    }
  });

  it('GraphQL answers what REST answers, the security and its snapshot in as few statements', async () => {
    const symbol = traded[0]!;
    const answer = await rest(h, `${BASE}/tickers/${symbol}`);
    const r = answer.body.ticker;
    const query = `query($s: String!, $list: [String!]!) {
      security(symbol: $s) { snapshot { symbol updated todaysChange todaysChangePerc
        lastTrade { price size exchange tradeId sipTimestamp conditions }
        lastQuote { bidPrice askPrice bidSize askSize sipTimestamp }
        minute { start volume close trades } day { open high low close volume } previousDay { close volume } } }
      snapshots(symbols: $list) { symbol }
      movers(direction: GAINERS) { symbol } }`;
    const g = await h.gql(query, { s: symbol, list: [symbol, 'NOPE'] });
    expect(g.errors).toBeUndefined();
    const s = g.data.security.snapshot;
    expect(s).toMatchObject({
      symbol,
      todaysChange: r.todaysChange,
      todaysChangePerc: r.todaysChangePerc,
      lastTrade: { price: r.lastTrade.p, size: r.lastTrade.s, exchange: r.lastTrade.x, tradeId: r.lastTrade.i },
      lastQuote: { bidPrice: r.lastQuote.p, askPrice: r.lastQuote.P },
      minute: { start: new Date(r.min.t).toISOString(), volume: r.min.v, close: r.min.c, trades: r.min.n },
      day: { open: r.day.o, close: r.day.c, volume: r.day.v },
      previousDay: { close: r.prevDay.c, volume: r.prevDay.v },
    });
    expect(answer.text).toContain(`"updated":${s.updated}`);
    expect(g.data.snapshots).toEqual([{ symbol }, null]);
    const movers = (await rest(h, `${BASE}/gainers`)).body.tickers.map((t: any) => ({ symbol: t.ticker }));
    expect(g.data.movers).toEqual(movers);
    const count = await h.countWarmStatements(() => h.gql(query, { s: symbol, list: [symbol] }));
    expect(count).toBeLessThanOrEqual(3);
  });

  it('bad inputs are 400s naming the parameter; unknown symbols 404; the free tier is refused', async () => {
    expectBadParam(await rest(h, `${BASE}/tickers?tickers=AAPL,BAD$`), 'tickers');
    const many = Array.from({ length: 1001 }, (_, i) => `S${i}`).join(',');
    expectBadParam(await rest(h, `${BASE}/tickers?tickers=${many}`), 'tickers');
    expectBadParam(await rest(h, `${BASE}/sideways`), 'direction', 'sideways');
    expectBadParam(await rest(h, `${BASE}/tickers/${'X'.repeat(30)}`), 'ticker');
    expectBadParam(await rest(h, `/stocks/v2/last/trade/BAD$`), 'ticker');
    expectBadParam(await rest(h, `/stocks/v2/last/nbbo/BAD$`), 'ticker');
    expect((await rest(h, `${BASE}/tickers/NOPE`)).status).toBe(404);
    expect((await rest(h, '/stocks/v2/last/trade/NOPE')).status).toBe(404);
    const free = await rest(h, `${BASE}/tickers`, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toContain('pro');
    const g = await h.gql('{ movers(direction: LOSERS) { symbol } }', {}, { 'x-api-key': 'demo-free' });
    expect(g.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const tooMany = await h.gql('query($l: [String!]!) { snapshots(symbols: $l) { symbol } }', {
      l: Array.from({ length: 101 }, (_, i) => `S${i}`),
    });
    expect(tooMany.errors?.[0]?.message).toContain('symbols');
  });
});
