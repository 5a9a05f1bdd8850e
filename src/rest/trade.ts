import { tradePage, type Trade } from '../services/trade.js';
import { arr, int, num, object, str } from './json-schema.js';
import { cursorEnvelope } from './next-url.js';
import { exactInt, type Route } from './route.js';
import { SYMBOL_PATH, TICK_QUERY_DOC, tickPageResponse } from './tick.js';

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
  {
    method: 'GET',
    path: '/stocks/v3/trades/:symbol',
    access: 'trades',
    handle: (ctx, url, params) =>
      tickPageResponse(ctx, url, params.symbol!, 'Trade', (symbol, range, args) => tradePage(ctx.db, symbol, range, args), tradeRecord),
    doc: {
      summary: 'Trades of a symbol',
      description: 'Newest first unless order=asc; ties on sip_timestamp broken by sequence_number. Follow next_url for the next page.',
      path: SYMBOL_PATH,
      query: TICK_QUERY_DOC,
      response: cursorEnvelope(TRADE_SCHEMA),
    },
  },
];
