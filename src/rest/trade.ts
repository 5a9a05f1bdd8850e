import { tradePage, type Trade } from '../services/trade.js';
import { arr, int, num, object, str } from './json-schema.js';
import { exactInt, type Route } from './route.js';
import { SYMBOL_PATH, TICK_QUERY_DOC, tickPage } from './tick.js';

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

/** The envelope of spec 4.2/4.10/4.11: next_url only while there is a next page. */
export function cursorEnvelope(item: Record<string, unknown>) {
  return object(
    {
      next_url: str('Absolute URL of the next page (its cursor carries the filters); absent on the last page.'),
      request_id: str('This request; also the X-Request-Id header.'),
      results: arr(item),
      status: { const: 'OK' },
    },
    ['request_id', 'results', 'status'],
  );
}

/** Spec 2.9, keys as the spec spells them; sip_timestamp keeps all its digits. */
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
      tickPage(ctx, url, params.symbol!, 'Trade', (symbol, range, args) => tradePage(ctx.db, symbol, range, args), tradeRecord),
    doc: {
      summary: 'Trades of a symbol (spec 4.10)',
      description: 'Newest first unless order=asc; ties on sip_timestamp broken by sequence_number. Follow next_url for the next page.',
      path: SYMBOL_PATH,
      query: TICK_QUERY_DOC,
      response: cursorEnvelope(TRADE_SCHEMA),
    },
  },
];
