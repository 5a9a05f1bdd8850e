// Quotes: the best bid and offer, as many rows as the trades (streamed, deleted apart, as they are).
import { defineResource } from './manifest.js';

export const quote = defineResource({
  singular: 'quote',
  plural: 'quotes',
  access: [{ tier: 'pro', listed: 10 }],
  parents: ['security'],
  listKinds: { 'Quote.conditions': 'conditions' },
  tables: [{ model: 'Quote' }],
  bulk: true,
  sync: { pages: 'ticks', path: '/stocks/v3/quotes' },
});
