import type { Db } from '../db/client.js';
import type { Trade } from '../../generated/prisma/client.js';
import { refreshBars } from './bar-write.js';
import { refreshSnapshots } from './snapshot.js';
import {
  latestTicks,
  tickPage,
  writeTicks,
  type LastInTransaction,
  type TickPageArgs,
  type TimeRange,
} from './tick.js';

export type { Trade };

export const tradePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Trade', symbol, range, args);
export const latestTrades = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Trade', symbols);
/**
 * Stores trades, and their minute and day bars (services/bar-write.ts) and their symbols' snapshots
 * (services/snapshot.ts) in the same transaction; `last`, when given, runs after them, last.
 */
export const writeTrades = (db: Db, rows: Trade[], last?: LastInTransaction<Trade>) =>
  writeTicks(db, 'Trade', rows, async (client, change) => {
    await refreshBars(client, {
      inserted: change.inserted,
      // an updated trade's minute, and the one it was in before when the correction moved it
      recompute: change.updated.flatMap(({ row, sipTimestampBefore }) => [
        row,
        { symbol: row.symbol, sipTimestamp: sipTimestampBefore },
      ]),
    });
    await refreshSnapshots(
      client,
      [...change.inserted, ...change.updated.map((u) => u.row)].map((t) => t.symbol),
    );
    await last?.(client, change.inserted);
  });
