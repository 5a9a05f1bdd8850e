// Snapshots: each symbol's last trade and quote with its minute, day and previous day bars, and the
// movers among them (services/snapshot.ts keeps them in the trade and quote writers' transactions).
// The pro tier's, as the trades and quotes they show; the free tier is answered FORBIDDEN naming it.
import { defineResource } from './manifest.js';

export const snapshot = defineResource({
  singular: 'snapshot',
  plural: 'snapshots',
  access: [{ tier: 'pro', listed: 10.7, words: 'snapshots', types: ['Snapshot'] }],
  parents: ['trade', 'quote', 'bar'],
  listKinds: { 'SnapshotTrade.conditions': 'conditions' },
  tables: [{ model: 'Snapshot' }],
  bulk: true,
});
