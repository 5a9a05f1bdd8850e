// Quotes in the shape of GET /stocks/v3/quotes/{symbol} , keyed by symbol + sequence_number.
import { quoteTopic } from '../../runtime/events.js';
import { writeQuotes, type Quote } from '../../services/quote.js';
import type { PublishingImporter } from '../importer.js';
import {
  conditionsField,
  intField,
  numberField,
  objectRecord,
  symbolField,
  tickRecordsOf,
  timestampHighWater,
  uint64Field,
} from './tick.js';

export const importer: PublishingImporter<Quote> = {
  resource: 'quotes',
  recordsOf: (body) => tickRecordsOf(body, 'quotes'),
  parse(record) {
    const r = objectRecord(record, 'quote');
    return {
      symbol: symbolField(r, 'quote'),
      sequenceNumber: uint64Field(r, 'sequence_number'),
      sipTimestamp: uint64Field(r, 'sip_timestamp'),
      askExchange: intField(r, 'ask_exchange'),
      askPrice: numberField(r, 'ask_price'),
      askSize: numberField(r, 'ask_size'),
      bidExchange: intField(r, 'bid_exchange'),
      bidPrice: numberField(r, 'bid_price'),
      bidSize: numberField(r, 'bid_size'),
      tape: intField(r, 'tape'),
      conditions: conditionsField(r),
    };
  },
  key: (q) => `${q.symbol}|${q.sequenceNumber}`,
  write: writeQuotes,
  highWater: (q) => timestampHighWater(q.sipTimestamp),
  // the parsed row is the stored row
  eventsOf: async (_db, rows) => rows.map((q) => [quoteTopic(q.symbol), q] as const),
};
