// The legacy quote record (GET /stocks/v3/quotes/{symbol}), keys as the legacy API spells them; the
// record does not carry its symbol (the path names it), and sip_timestamp keeps all its digits.
import type { RecordTable } from './table.js';
import { SEQUENCE_NUMBER, SIP_TIMESTAMP, TAPE } from './tick.js';

export const QUOTE_FIELDS = [
  { key: 'ask_exchange', column: 'askExchange', kind: 'int32', description: 'Exchange id of the ask.' },
  { key: 'ask_price', column: 'askPrice', kind: 'amount', description: 'Ask price.' },
  { key: 'ask_size', column: 'askSize', kind: 'amount', description: 'Ask size.' },
  { key: 'bid_exchange', column: 'bidExchange', kind: 'int32', description: 'Exchange id of the bid.' },
  { key: 'bid_price', column: 'bidPrice', kind: 'amount', description: 'Bid price.' },
  { key: 'bid_size', column: 'bidSize', kind: 'amount', description: 'Bid size.' },
  { key: 'conditions', column: 'conditions', kind: 'conditions', description: 'Quote condition codes.' },
  SEQUENCE_NUMBER,
  SIP_TIMESTAMP,
  TAPE,
] as const satisfies RecordTable;
