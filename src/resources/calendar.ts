// The market calendar: Massive's GET /v1/marketstatus/now and /upcoming, and the trading days with
// their sessions, all computed from domain/market-calendar.ts at the request's time (ctx.now), not
// stored (schema/calendar.ts, rest/calendar.ts).
import { defineResource } from './manifest.js';

export const calendar = defineResource({
  singular: 'calendar',
  plural: 'calendar',
  access: [{ tier: 'free', listed: 12.2, words: 'the market calendar', types: ['MarketStatus', 'MarketDay'] }],
});
