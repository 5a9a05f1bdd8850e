import { QUOTE_FIELDS } from '../domain/records/quote.js';
import { quotePage, type Quote } from '../services/quote.js';
import { recordSchema, recordShaper } from './record-table.js';
import type { Route } from './route.js';
import { tickRoute } from './tick.js';

export const QUOTE_SCHEMA = recordSchema(QUOTE_FIELDS);

/** The legacy quote record, keys as the legacy API spells them; sip_timestamp keeps all its digits. */
export const quoteRecord: (q: Quote) => Record<string, unknown> = recordShaper(QUOTE_FIELDS);

export const routes: Route[] = [
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
