import type { Db } from '../db/client.js';
import type { Quote } from '../../generated/prisma/client.js';
import { tickPage, writeTicks, type TickPageArgs, type TimeRange } from './tick.js';

export type { Quote };

export const quotePage = (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) =>
  tickPage(db, 'Quote', symbol, range, args);
export const writeQuotes = (db: Db, rows: Quote[]) => writeTicks(db, 'Quote', rows);
