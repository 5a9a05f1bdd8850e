// Exchanges: the venues of Massive's GET /v3/reference/exchanges, keyed by Massive's own id; public
// reference data every tier reads (schema/exchange.ts, rest/exchange.ts).
import { defineResource } from './manifest.js';

export const exchange = defineResource({
  singular: 'exchange',
  plural: 'exchanges',
  // last of the free tier's list: the tiers' other resources keep their words and their order
  access: [{ tier: 'free', listed: 12 }],
  cacheable: [],
  tables: [{ model: 'Exchange', sample: 'exchanges' }],
  // the route answers the whole list on one page, without a next_url
  sync: { pages: 'cursor', path: '/stocks/v3/reference/exchanges', query: {} },
});
