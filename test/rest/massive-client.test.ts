// The official Massive (ex-Polygon) client, @massive.com/client-js, as written by nobody here, against
// a live app with its base URL at `/stocks` (docs/rest.md#passing-the-key): it sends the key as
// `apiKey` in the query, appends `&apiKey=<key>` to every next_url it follows with
// `pagination: true`, and parses the answers as its own types. The records are checked against the
// rows read here by SQL, not against our own route.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetStocksTradesOrderEnum, restClient } from '@massive.com/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

const KEY = 'demo-pro';
const PAGE = 37;

/** A stored trade or quote row, as SQL reads it. */
type Row = Record<string, unknown> & { sequenceNumber: bigint; sipTimestamp: bigint };

// the legacy records as the client sees them: JSON.parse rounds 19-digit integers to the nearest double, as Number() does
const tradeRecord = (r: Row): Record<string, unknown> => ({
  conditions: r.conditions,
  exchange: r.exchange,
  id: r.tradeId,
  price: r.price,
  sequence_number: Number(r.sequenceNumber),
  sip_timestamp: Number(r.sipTimestamp),
  size: r.size,
  tape: r.tape,
});
const quoteRecord = (r: Row): Record<string, unknown> => ({
  ask_exchange: r.askExchange,
  ask_price: r.askPrice,
  ask_size: r.askSize,
  bid_exchange: r.bidExchange,
  bid_price: r.bidPrice,
  bid_size: r.bidSize,
  conditions: r.conditions,
  sequence_number: Number(r.sequenceNumber),
  sip_timestamp: Number(r.sipTimestamp),
  tape: r.tape,
});

/**
 * What the client returns for a followed list: it puts each next page's results before the page
 * that linked to it (`results: [...next.results, ...page.results]` in its restClient), so the pages
 * come last first, each page in its own order.
 */
const asTheClientJoinsPages = <T>(records: T[], size: number): T[] =>
  Array.from({ length: Math.ceil(records.length / size) }, (_, i) => records.slice(i * size, (i + 1) * size))
    .reverse()
    .flat();

describe.each(testDatabases())('the official Massive client against a live app on $name', (tdb) => {
  let h: GraphQLHarness;
  let server: Server;
  let base: string;
  let symbol: string;
  /** Every request the server received: its path and query, and its credential headers. */
  const seen: { url: string; apiKeyHeader: boolean; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = createServer((req, res) => {
      seen.push({ url: req.url!, apiKeyHeader: 'x-api-key' in req.headers, authorization: req.headers.authorization });
      return h.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
    const counts = await h.db.prisma.$queryRaw<{ symbol: string }[]>(
      Prisma.sql`SELECT "symbol", COUNT(*) AS "n" FROM "Trade" GROUP BY "symbol" HAVING COUNT(*) BETWEEN 150 AND 400 ORDER BY "symbol" LIMIT 1`,
    );
    symbol = counts[0]!.symbol;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  const stored = (table: 'Trade' | 'Quote') =>
    h.db.prisma.$queryRaw<Row[]>(
      Prisma.sql`SELECT * FROM ${Prisma.raw(`"${table}"`)} WHERE "symbol" = ${symbol} ORDER BY "sipTimestamp", "sequenceNumber"`,
    );

  for (const [kind, table, record] of [
    ['trades', 'Trade', tradeRecord],
    ['quotes', 'Quote', quoteRecord],
  ] as const) {
    const call = (rest: ReturnType<typeof restClient>, params: Record<string, unknown>, options?: object) =>
      kind === 'trades'
        ? rest.getStocksTrades({ stockTicker: symbol, ...params }, options)
        : rest.getStocksQuotes({ stockTicker: symbol, ...params }, options);

    it(`${kind}: pagination follows every next_url with its apiKey, in both orders, to every stored record`, async () => {
      const rows = (await stored(table)).map(record);
      expect(rows.length).toBeGreaterThan(3 * PAGE);
      const rest = restClient(KEY, base, { pagination: true });
      for (const order of [GetStocksTradesOrderEnum.Asc, GetStocksTradesOrderEnum.Desc]) {
        seen.length = 0;
        const answer = await call(rest, { order, limit: PAGE });
        const expected = order === 'asc' ? rows : [...rows].reverse();
        expect(answer.status).toBe('OK');
        expect(answer.results).toEqual(asTheClientJoinsPages(expected, PAGE));
        // one request per page, each with the key as apiKey in the query and no key header
        expect(seen).toHaveLength(Math.ceil(rows.length / PAGE));
        for (const s of seen) {
          expect(s.url).toMatch(new RegExp(`^/stocks/v3/${kind}/${symbol}\\?`));
          expect(new URL(s.url, 'http://x').searchParams.get('apiKey')).toBe(KEY);
          expect(s).toMatchObject({ apiKeyHeader: false, authorization: undefined });
        }
        // each followed page is its cursor plus the key the client appended: the cursor never carries the key
        for (const s of seen.slice(1)) {
          const query = new URL(s.url, 'http://x').searchParams;
          expect([...query.keys()].sort()).toEqual(['apiKey', 'cursor']);
          expect(Buffer.from(query.get('cursor')!.split('.')[0]!, 'base64url').toString()).not.toContain(KEY);
        }
      }
    });

    it(`${kind}: a timestamp.gte/timestamp.lt range, newest first, in pages`, async () => {
      const rows = await stored(table);
      const [from, to] = [rows[20]!.sipTimestamp, rows[120]!.sipTimestamp];
      const inRange = rows.filter((r) => r.sipTimestamp >= from && r.sipTimestamp < to).map(record);
      expect(inRange.length).toBeGreaterThan(PAGE);
      const rest = restClient(KEY, base, { pagination: true });
      const answer = await call(rest, {
        timestampGte: String(from),
        timestampLt: String(to),
        order: GetStocksTradesOrderEnum.Desc,
        limit: PAGE,
      });
      expect(answer.results).toEqual(asTheClientJoinsPages(inRange.reverse(), PAGE));
    });

    it(`${kind}: one page with limit, and the key as Authorization: Bearer instead of apiKey`, async () => {
      const rows = (await stored(table)).map(record);
      seen.length = 0;
      const rest = restClient('', base);
      const answer = await call(
        rest,
        { order: GetStocksTradesOrderEnum.Asc, limit: 5 },
        { headers: { Authorization: `Bearer ${KEY}` } },
      );
      expect(answer.results).toEqual(rows.slice(0, 5));
      expect(answer.next_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/stocks/v3/${kind}/${symbol}\\?cursor=`));
      expect(seen).toEqual([
        { url: `/stocks/v3/${kind}/${symbol}?order=asc&limit=5`, apiKeyHeader: false, authorization: `Bearer ${KEY}` },
      ]);
    });
  }

  it('a wrong key is the client’s error with our 401 body', async () => {
    const rest = restClient('not-a-key', base);
    const failure = await rest.getStocksTrades({ stockTicker: symbol }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      response: {
        status: 401,
        data: { status: 'ERROR', code: 'UNAUTHENTICATED', message: 'the API key is not valid' },
      },
    });
  });
});
