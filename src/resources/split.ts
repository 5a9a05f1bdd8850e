// Stock splits: Massive's GET /v3/reference/splits, keyed by Massive's id; public reference data
// every tier reads (schema/split.ts, rest/split.ts). Prices are adjusted from them at query time.
import { defineResource } from './manifest.js';

export const split = defineResource({
  singular: 'split',
  plural: 'splits',
  // after exchanges, before the daily bars they adjust: the tiers' other resources keep their words and their order
  access: [{ tier: 'free', listed: 12.3 }],
  parents: ['security'],
  cacheable: [],
  tables: [{ model: 'Split', sample: 'splits' }],
  sync: { pages: 'cursor', path: '/stocks/v3/reference/splits', query: { limit: 1000, order: 'asc' } },
});
