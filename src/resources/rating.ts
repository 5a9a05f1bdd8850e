// Analyst ratings of a security.
import { defineResource } from './manifest.js';

export const rating = defineResource({
  singular: 'rating',
  plural: 'ratings',
  access: [{ tier: 'free', listed: 4 }],
  parents: ['security'],
  tables: [{ model: 'Rating', sample: 'ratings' }],
  // the route's `from` is to the second: a tie is asked again
  sync: { pages: 'marked', path: '/rating/api/v1/ratings', markField: 'created_at', from: 'seconds' },
});
