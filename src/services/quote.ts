import type { Db } from '../db.js';
import type { Quote } from '../../generated/prisma/client.js';
import { latestTicks, tickPages, type TickPageArgs } from './tick.js';

export type { Quote };

export const quotePages = (db: Db, symbols: readonly string[], args: TickPageArgs) => tickPages(db, 'Quote', symbols, args);
export const latestQuotes = (db: Db, symbols: readonly string[]) => latestTicks(db, 'Quote', symbols);
