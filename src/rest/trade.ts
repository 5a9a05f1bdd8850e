import { tradePage, type Trade } from '../services/trade.js';
import { arr, int, num, object, str } from './json-schema.js';
import { exactInt, type Route } from './route.js';
import { tickRoute } from './tick.js';

export const TRADE_SCHEMA = object({
  conditions: arr(int(), 'Trade condition codes.'),
  exchange: int('Exchange id.'),
  id: str('Trade id.'),
  price: num('Price.'),
  sequence_number: int('Sequence number, increasing per symbol.'),
  sip_timestamp: int('SIP timestamp, nanoseconds since the epoch (all 19 digits).'),
  size: num('Shares.'),
  tape: int('Tape: 1, 2 or 3.'),
});

/** The legacy trade record, keys as the legacy API spells them; sip_timestamp keeps all its digits. */
export function tradeRecord(t: Trade): Record<string, unknown> {
  return {
    conditions: t.conditions,
    exchange: t.exchange,
    id: t.tradeId,
    price: t.price,
    sequence_number: exactInt(t.sequenceNumber),
    sip_timestamp: exactInt(t.sipTimestamp),
    size: t.size,
    tape: t.tape,
  };
}

export const tradeRoutes: Route[] = [
  tickRoute({
    table: 'Trade',
    path: '/stocks/v3/trades/:symbol',
    access: 'trades',
    summary: 'Trades of a symbol',
    load: tradePage,
    shape: tradeRecord,
    schema: TRADE_SCHEMA,
  }),
];
