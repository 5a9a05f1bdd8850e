// A symbol reused by a new listing after its first issuer was delisted: the aggregates of the
// symbol over a range that starts before the delisting read the old issuer's bars and never the new
// one's, even when the range runs past the relisting; a range that starts after it reads the new
// one's only. The rows are written here, by hand, so each answer is known without the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayNumber } from '../../src/domain/bar-time.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from './helpers.js';

const SYMBOL = 'RUSE';
/** The old issuer's last days (delisted after 2025-06-05), and the new listing's first (from 2025-09-02). */
const OLD_DAYS: [string, number][] = [
  ['2025-06-02', 10.1],
  ['2025-06-03', 10.2],
  ['2025-06-04', 10.3],
  ['2025-06-05', 10.4],
];
const NEW_DAYS: [string, number][] = [
  ['2025-09-02', 50.1],
  ['2025-09-03', 50.2],
  ['2025-09-04', 50.3],
];

describe.each(testDatabases())('a reused symbol on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    await h.db.prisma.symbolHistory.createMany({
      data: [
        { securityId: 'old-issuer', symbol: SYMBOL, startDate: '2019-03-01' },
        { securityId: 'new-listing', symbol: SYMBOL, startDate: '2025-09-02' },
      ],
    });
    await h.db.prisma.dayBar.createMany({
      data: [...OLD_DAYS, ...NEW_DAYS].map(([date, close]) => ({
        symbol: SYMBOL,
        extended: false,
        day: dayNumber(date),
        open: close,
        high: close,
        low: close,
        close,
        volume: 1000,
        vwap: close,
        trades: 10,
      })),
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const closes = async (from: string, to: string) => {
    const r = await rest(h, `/stocks/v2/aggs/ticker/${SYMBOL}/range/1/day/${from}/${to}`, { key: 'demo-free' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.results ?? []).map((b: { c: number }) => b.c);
  };

  it("a range before the delisting gives the old issuer's bars", async () => {
    expect(await closes('2025-06-01', '2025-06-30')).toEqual(OLD_DAYS.map(([, c]) => c));
  });

  it("a range from before the delisting to after the relisting still gives the old issuer's bars only", async () => {
    expect(await closes('2025-06-01', '2025-09-30')).toEqual(OLD_DAYS.map(([, c]) => c));
  });

  it("a range from the relisting gives the new listing's bars only", async () => {
    expect(await closes('2025-09-02', '2025-09-30')).toEqual(NEW_DAYS.map(([, c]) => c));
    // the stretch between belongs to the old issuer until the new listing takes the symbol: no bars
    expect(await closes('2025-07-01', '2025-09-01')).toEqual([]);
  });
});
