// The legacy quote record (GET /stocks/v3/quotes/{symbol}), keys as the legacy API spells them; the
// record does not carry its symbol (the path names it), and sip_timestamp keeps all its digits.
import type { RecordTable } from './table.js';

export const QUOTE_FIELDS = [
  { key: 'ask_exchange', column: 'askExchange', kind: 'int32', description: 'Exchange id of the ask.' },
  { key: 'ask_price', column: 'askPrice', kind: 'amount', description: 'Ask price.' },
  { key: 'ask_size', column: 'askSize', kind: 'amount', description: 'Ask size.' },
  { key: 'bid_exchange', column: 'bidExchange', kind: 'int32', description: 'Exchange id of the bid.' },
  { key: 'bid_price', column: 'bidPrice', kind: 'amount', description: 'Bid price.' },
  { key: 'bid_size', column: 'bidSize', kind: 'amount', description: 'Bid size.' },
  { key: 'conditions', column: 'conditions', kind: 'conditions', description: 'Quote condition codes.' },
  {
    key: 'sequence_number',
    column: 'sequenceNumber',
    kind: 'uint64',
    description: 'Sequence number, increasing per symbol.',
    graphql: { description: 'Sequence number: increasing per symbol; breaks ties between equal timestamps.' },
  },
  {
    key: 'sip_timestamp',
    column: 'sipTimestamp',
    kind: 'uint64',
    description: 'SIP timestamp, nanoseconds since the epoch (all 19 digits).',
    graphql: { description: 'SIP timestamp in nanoseconds since the epoch (exact digits).' },
  },
  {
    key: 'tape',
    column: 'tape',
    kind: 'int32',
    description: 'Tape: 1, 2 or 3.',
    graphql: { description: 'Tape (1 = NYSE, 2 = NYSE Arca/American, 3 = Nasdaq).' },
  },
] as const satisfies RecordTable;
