// Quotes in the shape of GET /stocks/v3/quotes/{symbol} , keyed by symbol + sequence_number.
import { quoteTopic } from '../../runtime/events.js';
import { writeQuotes, type Quote } from '../../services/quote.js';
import type { StoringImporter } from '../importer.js';
import { parseRecord } from '../record-table.js';
import { objectRecord, symbolField, tickRecordsOf, timestampHighWater, writeWithEvents } from './tick.js';
import { QUOTE_FIELDS } from '../../domain/records/quote.js';

export const importer: StoringImporter<Quote> = {
  storesEvents: true,
  resource: 'quotes',
  recordsOf: (body) => tickRecordsOf(body, 'quotes'),
  parse(record) {
    const r = objectRecord(record, 'quote');
    return { symbol: symbolField(r, 'quote'), ...parseRecord(QUOTE_FIELDS, r) } as Quote;
  },
  key: (q) => `${q.symbol}|${q.sequenceNumber}`,
  write: (db, rows, events) => writeWithEvents((last) => writeQuotes(db, rows, last), quoteTopic, events),
  highWater: (q) => timestampHighWater(q.sipTimestamp),
};
