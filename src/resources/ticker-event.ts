// Ticker changes: the symbols a security has traded under, by its permanent id (SymbolHistory), as
// Massive's GET /vX/reference/tickers/{id}/events answers them; GraphQL serves them as
// `Security.symbolHistory` (schema/ticker-event.ts), one `SymbolPeriod` per symbol.
import { defineResource } from './manifest.js';

export const tickerEvent = defineResource({
  singular: 'ticker event',
  plural: 'ticker events',
  type: 'SymbolPeriod',
  access: [{ tier: 'free', listed: 12.4, words: 'ticker changes' }],
  // an entity's events are stored under its security, found by the symbol it has now
  parents: ['security'],
  cacheable: [],
  tables: [{ model: 'SymbolHistory', sample: 'symbolHistory' }],
  // one request per symbol of the upstream's master: the route answers one entity's whole history
  sync: { pages: 'perSymbol', path: '/stocks/vX/reference/tickers/{symbol}/events' },
});
