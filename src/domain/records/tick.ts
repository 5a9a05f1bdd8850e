// The keys a trade and a quote share (domain/records/trade.ts, quote.ts), each written once.
import type { Field } from './table.js';

export const SEQUENCE_NUMBER = {
  key: 'sequence_number',
  column: 'sequenceNumber',
  kind: 'uint64',
  description: 'Sequence number, increasing per symbol.',
  graphql: { description: 'Sequence number: increasing per symbol; breaks ties between equal timestamps.' },
} as const satisfies Field;

export const SIP_TIMESTAMP = {
  key: 'sip_timestamp',
  column: 'sipTimestamp',
  kind: 'uint64',
  description: 'SIP timestamp, nanoseconds since the epoch (all 19 digits).',
  graphql: { description: 'SIP timestamp in nanoseconds since the epoch (exact digits).' },
} as const satisfies Field;

export const TAPE = {
  key: 'tape',
  column: 'tape',
  kind: 'int32',
  description: 'Tape: 1, 2 or 3.',
  graphql: { description: 'Tape (1 = NYSE, 2 = NYSE Arca/American, 3 = Nasdaq).' },
} as const satisfies Field;
