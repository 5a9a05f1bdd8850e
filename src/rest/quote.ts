import { quotePage, type Quote } from '../services/quote.js';
import { arr, int, num, object } from './json-schema.js';
import { exactInt, type Route } from './route.js';
import { tickRoute } from './tick.js';

export const QUOTE_SCHEMA = object({
  ask_exchange: int('Exchange id of the ask.'),
  ask_price: num('Ask price.'),
  ask_size: num('Ask size.'),
  bid_exchange: int('Exchange id of the bid.'),
  bid_price: num('Bid price.'),
  bid_size: num('Bid size.'),
  conditions: arr(int(), 'Quote condition codes.'),
  sequence_number: int('Sequence number, increasing per symbol.'),
  sip_timestamp: int('SIP timestamp, nanoseconds since the epoch (all 19 digits).'),
  tape: int('Tape: 1, 2 or 3.'),
});

/** The legacy quote record, keys as the legacy API spells them; sip_timestamp keeps all its digits. */
export function quoteRecord(q: Quote): Record<string, unknown> {
  return {
    ask_exchange: q.askExchange,
    ask_price: q.askPrice,
    ask_size: q.askSize,
    bid_exchange: q.bidExchange,
    bid_price: q.bidPrice,
    bid_size: q.bidSize,
    conditions: q.conditions,
    sequence_number: exactInt(q.sequenceNumber),
    sip_timestamp: exactInt(q.sipTimestamp),
    tape: q.tape,
  };
}

export const quoteRoutes: Route[] = [
  tickRoute({
    table: 'Quote',
    path: '/stocks/v3/quotes/:symbol',
    access: 'quotes',
    summary: 'Quotes of a symbol',
    load: quotePage,
    shape: quoteRecord,
    schema: QUOTE_SCHEMA,
  }),
];
