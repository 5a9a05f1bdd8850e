// Technical indicators: SMA, EMA, MACD and RSI computed at query time over the bars (resources/bar.ts).
// Every tier's over days and longer; over minutes and hours they need the pro tier's `bars` too, as
// the bars they are made of (rest/indicator.ts checks it where the timespan is read).
import { defineResource } from './manifest.js';

export const indicator = defineResource({
  singular: 'indicator',
  plural: 'indicators',
  access: [{ name: 'indicators', tier: 'free', listed: 12.6, words: 'technical indicators', types: [] }],
  parents: ['bar'],
});
