// The legacy trade record (GET /stocks/v3/trades/{symbol}), keys as the legacy API spells them; the
// record does not carry its symbol (the path names it), and sip_timestamp keeps all its digits.
import type { RecordTable } from './table.js';
import { SEQUENCE_NUMBER, SIP_TIMESTAMP, TAPE } from './tick.js';

export const TRADE_FIELDS = [
  { key: 'conditions', column: 'conditions', kind: 'conditions', description: 'Trade condition codes.' },
  { key: 'exchange', column: 'exchange', kind: 'int32', description: 'Exchange id.' },
  { key: 'id', column: 'tradeId', kind: 'tickId', description: 'Trade id.', graphql: false },
  { key: 'price', column: 'price', kind: 'amount', description: 'Price.', graphql: { description: 'Trade price.' } },
  SEQUENCE_NUMBER,
  SIP_TIMESTAMP,
  {
    key: 'size',
    column: 'size',
    kind: 'amount',
    description: 'Shares.',
    graphql: { description: 'Number of shares traded.' },
  },
  TAPE,
] as const satisfies RecordTable;
