// Bars: the stored minute and day aggregates of the trades (services/bar-write.ts keeps them in the
// trade writer's transaction) and every larger bar built from them at query time. Day bars and
// longer are every tier's, as a chart of daily closes is; minute and hour bars the pro tier's, as
// the trades they are made of.
import { defineResource } from './manifest.js';

export const bar = defineResource({
  singular: 'bar',
  plural: 'bars',
  access: [
    { name: 'dayBars', tier: 'free', listed: 12.5, words: 'daily bars', types: [] },
    { tier: 'pro', listed: 10.5, words: 'intraday bars', types: [] },
  ],
  parents: ['security', 'trade'],
  tables: [{ model: 'MinuteBar' }, { model: 'DayBar' }],
  bulk: true,
});
