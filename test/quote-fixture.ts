// The data both quote suites (test/graphql/quote.test.ts, test/rest/quote.test.ts) page through.
import type { Quote } from '../generated/prisma/client.js';
import type { Db } from '../src/db/client.js';

/** A symbol of the tests' own: seven quotes on three timestamps, so that pages end inside a tie. */
export const TIES = 'QTIES';
const TIE_AT = [
  1_795_000_000_000_000_001n,
  1_795_000_000_000_000_001n,
  1_795_000_000_000_000_001n,
  1_795_000_060_000_000_000n,
  1_795_000_060_000_000_000n,
  1_795_000_120_000_000_000n,
  1_795_000_120_000_000_000n,
];

/** A sample symbol with a few hundred quotes (paging runs through several pages quickly) and all of them, oldest first; and the TIES quotes added. */
export async function quoteFixture(db: Db): Promise<{ symbol: string; stored: Quote[] }> {
  const counts = await db.prisma.quote.groupBy({ by: ['symbol'], _count: { _all: true }, orderBy: { symbol: 'asc' } });
  const symbol = counts.find((c) => c._count._all > 150 && c._count._all < 800)!.symbol;
  const stored = await db.prisma.quote.findMany({
    where: { symbol },
    orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
  });
  await db.prisma.quote.createMany({
    // sequence numbers out of time order within each tie, as feeds deliver them
    data: TIE_AT.map((sipTimestamp, i) => ({
      symbol: TIES,
      sequenceNumber: BigInt(100 - i * 7),
      sipTimestamp,
      askExchange: 4,
      askPrice: 10 + i,
      askSize: 100,
      bidExchange: 11,
      bidPrice: 9 + i,
      bidSize: 200,
      tape: 3,
      conditions: [i],
    })),
  });
  return { symbol, stored };
}
