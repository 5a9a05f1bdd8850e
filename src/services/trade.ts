import type { Db } from '../db/client.js';
import type { Trade } from '../../generated/prisma/client.js';
import { refreshBars } from './bar-write.js';
import { latestTicks, tickPage, writeTicks, type TickPageArgs, type TimeRange } from './tick.js';

export type { Trade };

export const tradePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Trade', symbol, range, args);
export const latestTrades = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Trade', symbols);
/** Stores trades, and their minute and day bars in the same transaction (services/bar-write.ts). */
export const writeTrades = (db: Db, rows: Trade[]) =>
  writeTicks(db, 'Trade', rows, (client, change) =>
    refreshBars(client, {
      inserted: change.inserted,
      // an updated trade's minute, and the one it was in before when the correction moved it
      recompute: change.updated.flatMap(({ row, sipTimestampBefore }) => [
        row,
        { symbol: row.symbol, sipTimestamp: sipTimestampBefore },
      ]),
    }),
  );
