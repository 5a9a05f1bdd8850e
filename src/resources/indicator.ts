// Technical indicators: SMA, EMA, MACD and RSI computed at query time over the bars (resources/bar.ts).
// Their rule is the bars' (a day and longer every tier's, minutes and hours the pro tier's), which
// one entitlement cannot say: the routes ask for `dayBars` and, for minutes and hours, `bars`
// (rest/indicator.ts); this entry names them in the tiers' words.
import { defineResource } from './manifest.js';

export const indicator = defineResource({
  singular: 'indicator',
  plural: 'indicators',
  access: [{ name: 'indicators', tier: 'free', listed: 12.6, words: 'technical indicators', types: [] }],
  parents: ['bar'],
});
