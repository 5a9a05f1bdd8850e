import { TRADE_FIELDS } from '../domain/records/trade.js';
import { tradePage, type Trade } from '../services/trade.js';
import { recordSchema, recordShaper } from './record-table.js';
import type { Route } from './route.js';
import { tickRoute } from './tick.js';

export const TRADE_SCHEMA = recordSchema(TRADE_FIELDS);

/** The legacy trade record, keys as the legacy API spells them; sip_timestamp keeps all its digits. */
export const tradeRecord: (t: Trade) => Record<string, unknown> = recordShaper(TRADE_FIELDS);

export const routes: Route[] = [
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
