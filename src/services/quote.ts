import type { Db } from '../db/client.js';
import type { Quote } from '../../generated/prisma/client.js';
import { latestTicks, tickPages, writeTicks, type TickPageArgs } from './tick.js';

export type { Quote };

export const quotePages = (db: Db, symbols: readonly string[], args: TickPageArgs) => tickPages(db, 'Quote', symbols, args);
export const latestQuotes = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Quote', symbols);
export const writeQuotes = (db: Db, rows: Quote[]) => writeTicks(db, 'Quote', rows);
