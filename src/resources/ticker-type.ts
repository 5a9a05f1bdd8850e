// Ticker types: the codes of a security's `type` as Massive's GET /v3/reference/tickers/types lists
// them. Public reference data every tier reads (schema/ticker-type.ts, rest/ticker-type.ts); no
// table: the rows are domain/ticker-types.ts.
import { defineResource } from './manifest.js';

export const tickerType = defineResource({
  singular: 'ticker type',
  plural: 'ticker types',
  // beside the other reference lists, before the market calendar
  access: [{ tier: 'free', listed: 12.15 }],
});
