// Cash dividends: Massive's GET /v3/reference/dividends, keyed by Massive's id; public reference
// data every tier reads (schema/dividend.ts, rest/dividend.ts). Prices are adjusted from them at query time.
import { defineResource } from './manifest.js';

export const dividend = defineResource({
  singular: 'dividend',
  plural: 'dividends',
  access: [{ tier: 'free', listed: 12.35 }],
  parents: ['security'],
  cacheable: [],
  tables: [{ model: 'Dividend', sample: 'dividends' }],
  sync: { pages: 'cursor', path: '/stocks/v3/reference/dividends', query: { limit: 1000, order: 'asc' } },
});
