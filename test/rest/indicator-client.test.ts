// The official Massive (ex-Polygon) client, @massive.com/client-js, drives the indicator routes of a
// live app with its base URL at `/stocks` (docs/rest.md#passing-the-key), as test/rest/massive-client.test.ts
// drives the trades: its getStocksSMA, getStocksEMA, getStocksMACD and getStocksRSI send their own
// parameter names and parse the answers as their own types. The values are checked against the
// technicalindicators package over the day bars read here by SQL (the whole stored history), and
// their timestamps against New York midnights computed by Intl, not against our own routes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GetStocksEMAOrderEnum,
  GetStocksEMATimespanEnum,
  GetStocksMACDOrderEnum,
  GetStocksMACDSeriesTypeEnum,
  GetStocksRSIOrderEnum,
  GetStocksRSISeriesTypeEnum,
  GetStocksSMAOrderEnum,
  GetStocksSMASeriesTypeEnum,
  GetStocksSMATimespanEnum,
  restClient,
} from '@massive.com/client-js';
import { AverageGain, AverageLoss, EMA, MACD, SMA } from 'technicalindicators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import { SEED_WEIGHT } from '../../src/domain/indicators.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

const KEY = 'demo-free';
const SYMBOL = 'NVLX';
const TOLERANCE = 1e-9;

interface Row {
  day: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

const pad = <T>(defined: T[], length: number): (T | undefined)[] => [
  ...new Array<undefined>(length - defined.length).fill(undefined),
  ...defined,
];

/** The date of a day number (days since 1970-01-01). */
const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

const NEW_YORK = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
/** An instant as New York's wall clock: `YYYY-MM-DD, HH:MM:SS`. */
const newYork = (ms: number) => NEW_YORK.format(new Date(ms));

describe.each(testDatabases())('the official Massive client on the indicator routes on $name', (tdb) => {
  let h: GraphQLHarness;
  let server: Server;
  let base: string;
  /** The symbol's regular-session day bars, oldest first. */
  let rows: Row[];
  /** Every request the server received: its path and query. */
  const seen: string[] = [];

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = createServer((req, res) => {
      seen.push(req.url!);
      return h.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
    rows = await h.db.prisma.$queryRaw<Row[]>(
      Prisma.sql`SELECT "day", "open", "high", "low", "close" FROM "DayBar" WHERE "symbol" = ${SYMBOL} AND NOT "extended" ORDER BY "day"`,
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  /** The row a value belongs to: its timestamp is New York's midnight of the row's day. */
  function rowAt(timestamp: number | undefined): number {
    const i = rows.findIndex((r) => newYork(timestamp!) === `${dateOf(r.day)}, 00:00:00`);
    expect(i, `a stored day starts at ${timestamp} (${newYork(timestamp!)} in New York)`).toBeGreaterThanOrEqual(0);
    return i;
  }

  /** What the warm-up allows against the whole history (test/domain/indicators.test.ts, "stable"). */
  const seedBound = (times: number) => {
    const closes = rows.map((r) => r.close);
    return times * SEED_WEIGHT * (Math.max(...closes) - Math.min(...closes)) + TOLERANCE * Math.max(...closes);
  };

  it('getStocksSMA: the mean of the last window prices of each stored day, oldest first from timestampGte', async () => {
    const rest = restClient(KEY, base);
    seen.length = 0;
    const answer = await rest.getStocksSMA({
      stockTicker: SYMBOL,
      timespan: GetStocksSMATimespanEnum.Day,
      window: 20,
      seriesType: GetStocksSMASeriesTypeEnum.Low,
      order: GetStocksSMAOrderEnum.Asc,
      limit: 30,
      timestampGte: '2026-01-01',
    });
    expect(answer.status).toBe('OK');
    expect(answer.request_id).toEqual(expect.any(String));
    const values = answer.results.values!;
    const first = rows.findIndex((r) => dateOf(r.day) >= '2026-01-01');
    expect(values.map((v) => rowAt(v.timestamp))).toEqual(Array.from({ length: 30 }, (_, i) => first + i));
    const lows = rows.map((r) => r.low);
    const expected = pad(SMA.calculate({ period: 20, values: lows }), lows.length);
    for (const v of values) expect(v.value).toBeCloseTo(expected[rowAt(v.timestamp)]!, 9);
    expect(answer.next_url).toMatch(/\/stocks\/v1\/indicators\/sma\/NVLX\?.*timestamp\.gt=\d+/);
    expect(answer.results.underlying?.url).toMatch(/\/stocks\/v2\/aggs\/ticker\/NVLX\/range\/1\/day\/\d+\/\d+\?/);
    // the client's own names on the wire, the key as apiKey
    expect(seen).toHaveLength(1);
    const query = new URL(seen[0]!, 'http://x').searchParams;
    expect(seen[0]).toMatch(/^\/stocks\/v1\/indicators\/sma\/NVLX\?/);
    expect(Object.fromEntries(query)).toEqual({
      apiKey: KEY,
      timespan: 'day',
      window: '20',
      series_type: 'low',
      order: 'asc',
      limit: '30',
      'timestamp.gte': '2026-01-01',
    });
  });

  it('getStocksEMA: the newest values first, with the bars they were computed from', async () => {
    const rest = restClient(KEY, base);
    const answer = await rest.getStocksEMA({
      stockTicker: SYMBOL,
      timespan: GetStocksEMATimespanEnum.Day,
      window: 20,
      order: GetStocksEMAOrderEnum.Desc,
      limit: 5,
      expandUnderlying: true,
    });
    const values = answer.results.values!;
    expect(values.map((v) => rowAt(v.timestamp))).toEqual([1, 2, 3, 4, 5].map((i) => rows.length - i));
    const closes = rows.map((r) => r.close);
    const expected = pad(EMA.calculate({ period: 20, values: closes }), closes.length);
    for (const v of values)
      expect(Math.abs(v.value! - expected[rowAt(v.timestamp)]!)).toBeLessThanOrEqual(seedBound(1));
    // the bars used: the values' own, newest first, then their warm-up, each as stored
    const aggregates = answer.results.underlying!.aggregates!;
    expect(aggregates.length).toBeGreaterThan(5 + 19);
    expect(aggregates.length).toBeLessThan(rows.length);
    for (const [i, a] of aggregates.entries()) {
      const r = rows[rows.length - 1 - i]!;
      expect(newYork(a.t)).toBe(`${dateOf(r.day)}, 00:00:00`);
      expect({ o: a.o, h: a.h, l: a.l, c: a.c }).toEqual({ o: r.open, h: r.high, l: r.low, c: r.close });
    }
  });

  it('getStocksMACD: value, signal and histogram, through timestampLte', async () => {
    const rest = restClient(KEY, base);
    const last = rows.at(-40)!;
    const answer = await rest.getStocksMACD({
      stockTicker: SYMBOL,
      shortWindow: 8,
      longWindow: 21,
      signalWindow: 5,
      seriesType: GetStocksMACDSeriesTypeEnum.Close,
      order: GetStocksMACDOrderEnum.Desc,
      limit: 3,
      timestampLte: dateOf(last.day),
    });
    const values = answer.results.values!;
    const at = rows.length - 40;
    expect(values.map((v) => rowAt(v.timestamp))).toEqual([at, at - 1, at - 2]);
    const closes = rows.map((r) => r.close);
    const expected = pad(
      MACD.calculate({
        values: closes,
        fastPeriod: 8,
        slowPeriod: 21,
        signalPeriod: 5,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      }),
      closes.length,
    );
    for (const v of values) {
      const e = expected[rowAt(v.timestamp)]!;
      expect(Math.abs(v.value! - e.MACD!)).toBeLessThanOrEqual(seedBound(2));
      expect(Math.abs(v.signal! - e.signal!)).toBeLessThanOrEqual(seedBound(25));
      expect(Math.abs(v.histogram! - e.histogram!)).toBeLessThanOrEqual(seedBound(27));
    }
  });

  it('getStocksRSI: Wilder RSI of the highs between timestampGt and timestampLt', async () => {
    const rest = restClient(KEY, base);
    const [after, before] = [rows.at(-60)!, rows.at(-50)!];
    const answer = await rest.getStocksRSI({
      stockTicker: SYMBOL,
      window: 14,
      seriesType: GetStocksRSISeriesTypeEnum.High,
      order: GetStocksRSIOrderEnum.Asc,
      timestampGt: dateOf(after.day),
      timestampLt: dateOf(before.day),
    });
    const values = answer.results.values!;
    expect(values.map((v) => rowAt(v.timestamp))).toEqual(Array.from({ length: 9 }, (_, i) => rows.length - 59 + i));
    expect(answer.next_url).toBeUndefined();
    // the package rounds its RSI to 2 decimals: the exact one from its Wilder averages
    const highs = rows.map((r) => r.high);
    const gains = pad(AverageGain.calculate({ period: 14, values: highs }), highs.length);
    const losses = pad(AverageLoss.calculate({ period: 14, values: highs }), highs.length);
    for (const v of values) {
      const i = rowAt(v.timestamp);
      const exact = losses[i] === 0 ? 100 : (100 * gains[i]!) / (gains[i]! + losses[i]!);
      expect(Math.abs(v.value! - exact)).toBeLessThan(1e-6);
    }
  });
});
