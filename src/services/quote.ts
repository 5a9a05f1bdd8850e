import type { Db } from '../db/client.js';
import type { Quote } from '../../generated/prisma/client.js';
import { refreshSnapshots } from './snapshot.js';
import { latestTicks, tickPage, writeTicks, type TickPageArgs, type TimeRange } from './tick.js';

export type { Quote };

export const quotePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Quote', symbol, range, args);
/** Stores quotes, and their symbols' snapshots in the same transaction (services/snapshot.ts). */
export const latestQuotes = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Quote', symbols);
export const writeQuotes = (db: Db, rows: Quote[]) =>
  writeTicks(db, 'Quote', rows, (client, change) =>
    refreshSnapshots(
      client,
      [...change.inserted, ...change.updated.map((u) => u.row)].map((q) => q.symbol),
    ),
  );
