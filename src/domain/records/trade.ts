// The legacy trade record (GET /stocks/v3/trades/{symbol}), keys as the legacy API spells them; the
// record does not carry its symbol (the path names it), and sip_timestamp keeps all its digits.
import type { RecordTable } from './table.js';

export const TRADE_FIELDS = [
  { key: 'conditions', column: 'conditions', kind: 'conditions', description: 'Trade condition codes.' },
  { key: 'exchange', column: 'exchange', kind: 'int32', description: 'Exchange id.' },
  { key: 'id', column: 'tradeId', kind: 'tickId', description: 'Trade id.', graphql: false },
  { key: 'price', column: 'price', kind: 'amount', description: 'Price.', graphql: { description: 'Trade price.' } },
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
    key: 'size',
    column: 'size',
    kind: 'amount',
    description: 'Shares.',
    graphql: { description: 'Number of shares traded.' },
  },
  {
    key: 'tape',
    column: 'tape',
    kind: 'int32',
    description: 'Tape: 1, 2 or 3.',
    graphql: { description: 'Tape (1 = NYSE, 2 = NYSE Arca/American, 3 = Nasdaq).' },
  },
] as const satisfies RecordTable;
