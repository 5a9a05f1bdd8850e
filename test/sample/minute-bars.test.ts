// The sample's three weeks of minute bars: regular-session minutes only, on trading days, whose
// day bars (made of them by the writer's rule) are the day values the sample drew for those days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLE, minuteDayValues } from '../../src/sample/generate.js';
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
});
