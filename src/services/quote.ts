import type { Db } from '../db/client.js';
import type { Quote } from '../../generated/prisma/client.js';
import { refreshSnapshots } from './snapshot.js';
import {
  latestTicks,
  tickPage,
  writeTicks,
  type LastInTransaction,
  type TickPageArgs,
  type TimeRange,
} from './tick.js';

export type { Quote };

export const quotePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Quote', symbol, range, args);
export const latestQuotes = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Quote', symbols);
/**
 * Stores quotes, and their symbols' snapshots in the same transaction (services/snapshot.ts);
 * `last`, when given, runs after them, last.
 */
export const writeQuotes = (db: Db, rows: Quote[], last?: LastInTransaction<Quote>) =>
  writeTicks(db, 'Quote', rows, async (client, change) => {
    await refreshSnapshots(
      client,
      [...change.inserted, ...change.updated.map((u) => u.row)].map((q) => q.symbol),
    );
    await last?.(client, change.inserted);
  });
