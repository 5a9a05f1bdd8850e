// Quotes in the shape of GET /stocks/v3/quotes/{symbol} , keyed by symbol + sequence_number.
import { quoteTopic } from '../../runtime/events.js';
import { writeQuotes, type Quote } from '../../services/quote.js';
import type { PublishingImporter } from '../importer.js';
import { parseRecord } from '../record-table.js';
import { objectRecord, symbolField, tickRecordsOf, timestampHighWater } from './tick.js';
import { QUOTE_FIELDS } from '../../domain/records/quote.js';

export const importer: PublishingImporter<Quote> = {
  resource: 'quotes',
  recordsOf: (body) => tickRecordsOf(body, 'quotes'),
  parse(record) {
    const r = objectRecord(record, 'quote');
    return { symbol: symbolField(r, 'quote'), ...parseRecord(QUOTE_FIELDS, r) } as Quote;
  },
  key: (q) => `${q.symbol}|${q.sequenceNumber}`,
  write: writeQuotes,
  highWater: (q) => timestampHighWater(q.sipTimestamp),
  // the parsed row is the stored row
  eventsOf: async (_db, rows) => rows.map((q) => [quoteTopic(q.symbol), q] as const),
};
