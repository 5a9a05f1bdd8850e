// Trades: the tape, tens of millions of rows (streamed by the seed, deleted in statements of their own).
import { defineResource } from './manifest.js';

export const trade = defineResource({
  singular: 'trade',
  plural: 'trades',
  access: [{ tier: 'pro', listed: 9 }],
  parents: ['security'],
  listKinds: { 'Trade.conditions': 'conditions' },
  tables: [{ model: 'Trade' }],
  bulk: true,
  sync: { pages: 'ticks', path: '/stocks/v3/trades' },
});
