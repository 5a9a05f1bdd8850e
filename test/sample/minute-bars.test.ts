// The sample's three weeks of minute bars: regular-session minutes only, on trading days, whose
// day bars (made of them by the writer's rule) are the day values the sample drew for those days;
// and its listings that ended, whose data ends on their last day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DELISTINGS } from '../../src/sample/corporate-actions.js';
import { DEFAULT_SAMPLE, minuteDayValues } from '../../src/sample/generate.js';
import { rest } from '../rest/helpers.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

describe.each(testDatabases())('sample minute bars on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('each day of minutes comes to the day the sample drew: open, high, low, close, volume, trades', async () => {
    const want = minuteDayValues(DEFAULT_SAMPLE);
    expect(new Set(want.map((v) => v.date)).size).toBe(15);
    const stored = await h.db.prisma.dayBar.findMany({
      where: { extended: false, day: { in: [...new Set(want.map((v) => v.day))] } },
    });
    const byKey = new Map(stored.map((d) => [`${d.symbol} ${d.day}`, d]));
    for (const v of want) {
      const d = byKey.get(`${v.symbol} ${v.day}`);
      expect(d, `${v.symbol} ${v.date}`).toBeDefined();
      const { open, high, low, close, volume, trades } = d!;
      expect({ open, high, low, close, volume, trades }, `${v.symbol} ${v.date}`).toEqual({
        open: v.open,
        high: v.high,
        low: v.low,
        close: v.close,
        volume: v.volume,
        trades: v.trades,
      });
    }
    // 390 regular minutes a day (no early close in these weeks), 09:30 to 15:59 New York
    const [counts] = await h.db.read<{ n: number; sessions: number; lo: number; hi: number }>(
      `SELECT count(*)::int AS "n", count(DISTINCT "session")::int AS "sessions", min("local") AS "lo", max("local") AS "hi"
       FROM "MinuteBar" WHERE "day" = ANY($1::int[])`,
      [[...new Set(want.map((v) => v.day))]],
    );
    expect(counts).toEqual({ n: want.length * 390, sessions: 1, lo: 570, hi: 959 });
  });

  it('a listing that ended: inactive, its bars end on its last day, and it has no ticks', async () => {
    for (const { ticker, lastDay } of SAMPLE_DELISTINGS) {
      const security = await h.db.prisma.security.findFirst({ where: { symbol: ticker } });
      expect(security?.active, ticker).toBe(false);
      const r = await rest(h, `/stocks/v2/aggs/ticker/${ticker}/range/1/day/2026-01-01/2026-11-20?limit=50000`, {
        key: 'demo-pro',
      });
      expect(r.status).toBe(200);
      const days = r.body.results.map((b: { t: number }) => new Date(b.t + 12 * 3_600_000).toISOString().slice(0, 10));
      expect(days.length, ticker).toBeGreaterThan(50);
      expect(days.at(-1), ticker).toBe(lastDay);
      expect(await h.db.prisma.trade.count({ where: { symbol: ticker } }), ticker).toBe(0);
      expect(await h.db.prisma.quote.count({ where: { symbol: ticker } }), ticker).toBe(0);
    }
  });
});
