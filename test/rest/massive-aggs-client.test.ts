// The official Massive client (@massive.com/client-js) calling the aggregates routes of a live app
// at its base URL `/stocks`: custom bars (with its pagination following next_url), previous close,
// grouped daily and open-close, each answer checked against the day bars read here by SQL.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetStocksAggregatesSortEnum, GetStocksAggregatesTimespanEnum, restClient } from '@massive.com/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

const KEY = 'demo-free';
/** 2025-01-02 and 2026-11-20 as days since 1970-01-01, and New York midnight of a day (EST or EDT: Intl's rule, not ours). */
const FROM = 20090;
const TO = 20777;
const nyMidnight = (day: number) => {
  const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
  for (const offset of [4, 5]) {
    const ms = Date.parse(`${date}T0${offset}:00:00Z`);
    const hour = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hour: 'numeric',
      hourCycle: 'h23',
    }).format(ms);
    if (Number(hour) === 0) return ms;
  }
  throw new Error(`no New York midnight for ${date}`);
};

describe.each(testDatabases())('the official Massive client: aggregates on $name', (tdb) => {
  let h: GraphQLHarness;
  let server: Server;
  let base: string;
  let days: { day: number; open: number; close: number; volume: number }[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    server = createServer((req, res) => h.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
    days = (await h.db.prisma.dayBar.findMany({
      where: { symbol: 'NVLX', extended: false, day: { gte: FROM, lte: TO } },
      orderBy: { day: 'asc' },
      select: { day: true, open: true, close: true, volume: true },
    })) as typeof days;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  it('getStocksAggregates: every stored day bar of the range, in one answer and through its pagination', async () => {
    expect(days.length).toBeGreaterThan(400);
    const rest = restClient(KEY, base);
    const whole = await rest.getStocksAggregates({
      stocksTicker: 'NVLX',
      multiplier: 1,
      timespan: GetStocksAggregatesTimespanEnum.Day,
      from: '2025-01-02',
      to: '2026-11-20',
      adjusted: false,
      sort: GetStocksAggregatesSortEnum.Asc,
      limit: 50000,
    });
    expect(whole.status).toBe('OK');
    expect(whole.results!.map((b) => [b.t, b.o, b.c, b.v])).toEqual(
      days.map((d) => [nyMidnight(d.day), d.open, d.close, d.volume]),
    );
    const paged = await restClient(KEY, base, { pagination: true }).getStocksAggregates({
      stocksTicker: 'NVLX',
      multiplier: 1,
      timespan: GetStocksAggregatesTimespanEnum.Day,
      from: '2025-01-02',
      to: '2026-11-20',
      adjusted: false,
      limit: 100,
    });
    // the client joins each next page before the one that linked to it: compare as sets of bars
    expect(paged.results!.map((b) => b.t).sort((a, b) => a - b)).toEqual(days.map((d) => nyMidnight(d.day)));
  });

  it('getPreviousStocksAggregates, getGroupedStocksAggregates and getStocksOpenClose answer the stored day bars', async () => {
    const rest = restClient(KEY, base);
    const last = days.at(-1)!;
    const prev = await rest.getPreviousStocksAggregates({ stocksTicker: 'NVLX', adjusted: false });
    expect(prev.results?.[0]).toMatchObject({ o: last.open, c: last.close, v: last.volume, t: nyMidnight(last.day) });
    const grouped = await rest.getGroupedStocksAggregates({ date: '2026-11-20', adjusted: false });
    const stored = await h.db.prisma.dayBar.count({ where: { day: TO, extended: false } });
    expect(grouped.resultsCount).toBe(stored);
    expect(grouped.results!.find((b) => b.T === 'NVLX')).toMatchObject({ o: last.open, c: last.close });
    const oc = await rest.getStocksOpenClose({ stocksTicker: 'NVLX', date: '2026-11-20', adjusted: false });
    expect(oc).toMatchObject({
      status: 'OK',
      symbol: 'NVLX',
      from: '2026-11-20',
      open: last.open,
      close: last.close,
      volume: last.volume,
    });
  });
});
