import { CALENDAR_SPAN, eventsBetween, tradingDate, type MarketEvent } from '../domain/market-calendar.js';
import { marketStatusAt } from '../domain/market-status.js';
import { arr, bool, date, object, str, timestamp, type JsonSchema } from './json-schema.js';
import { json, type Route } from './route.js';

const EXCHANGE_STATUS: JsonSchema = {
  type: 'string',
  enum: ['open', 'closed', 'extended-hours'],
  description: 'open (the regular session), extended-hours (pre-market or after-hours) or closed.',
};

/** The days GET /v1/marketstatus/upcoming looks ahead, from today in New York. */
export const UPCOMING_DAYS = 365;

const DAY_MS = 86_400_000;

/** The date `days` after a date, at most the calendar's last. */
function datePlus(date: string, days: number): string {
  const later = Date.parse(`${date}T00:00:00Z`) + days * DAY_MS;
  return new Date(Math.min(later, Date.parse(`${CALENDAR_SPAN.to}T00:00:00Z`))).toISOString().slice(0, 10);
}

/** Massive's upcoming entry, its keys in Massive's (alphabetical) order; `open` and `close` on early closes only. */
function eventRecord(e: MarketEvent): Record<string, unknown> {
  return {
    ...(e.close === undefined ? {} : { close: e.close }),
    date: e.date,
    exchange: e.exchange,
    name: e.name,
    ...(e.open === undefined ? {} : { open: e.open }),
    status: e.status,
  };
}

// Massive's indicesGroups is left out: each index family keeps its own hours (docs/rest.md#parameters-per-route).
export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v1/marketstatus/now',
    access: 'calendar',
    handle(ctx) {
      const s = marketStatusAt(ctx.now());
      return json({
        afterHours: s.afterHours,
        currencies: { crypto: s.currencies.crypto, fx: s.currencies.fx },
        earlyHours: s.earlyHours,
        exchanges: { nasdaq: s.exchanges.nasdaq, nyse: s.exchanges.nyse, otc: s.exchanges.otc },
        market: s.market,
        serverTime: s.serverTime,
      });
    },
    doc: {
      summary: 'Market status now',
      description:
        "Whether the US stock market is open now, as Massive's GET /v1/marketstatus/now answers it for NYSE, Nasdaq and OTC, with the currency markets, computed from the exchanges' calendar (holidays, early closes, sessions in New York time). Massive's `indicesGroups` is left out: each index family keeps its own hours.",
      response: object({
        afterHours: bool('In the after-hours session (16:00 to 20:00 New York; 13:00 to 17:00 on an early close).'),
        currencies: object({
          crypto: { type: 'string', enum: ['open'], description: 'Crypto trades around the clock: always open.' },
          fx: {
            type: 'string',
            enum: ['open', 'closed'],
            description: 'Forex: open from Sunday 17:00 to Friday 17:00 New York, closed over the weekend.',
          },
        }),
        earlyHours: bool('In the pre-market session (04:00 to 09:30 New York).'),
        exchanges: object({
          nasdaq: EXCHANGE_STATUS,
          nyse: EXCHANGE_STATUS,
          otc: {
            type: 'string',
            enum: ['open', 'closed'],
            description: "OTC: open in the regular session of the exchanges' trading days, closed otherwise.",
          },
        }),
        market: EXCHANGE_STATUS,
        serverTime: str('The time answered for, RFC 3339 to the second in New York time (2026-11-27T12:00:00-05:00).'),
      }),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v1/marketstatus/upcoming',
    access: 'calendar',
    handle(ctx) {
      const today = tradingDate(ctx.now());
      return json(eventsBetween(today, datePlus(today, UPCOMING_DAYS)).map(eventRecord));
    },
    doc: {
      summary: 'Upcoming market holidays',
      description: `The days NYSE and Nasdaq close or close early from today (New York) through the next ${UPCOMING_DAYS} days, one entry per exchange and day, by date, as Massive's GET /v1/marketstatus/upcoming answers them (a bare array). Massive's OTC entries are left out.`,
      response: arr(
        object(
          {
            close: timestamp("On an early close: the regular session's close, ISO 8601 in UTC."),
            date: date('The day, in New York.'),
            exchange: { type: 'string', enum: ['NYSE', 'NASDAQ'] },
            name: str('The holiday, as Massive names it (Thanksgiving, Christmas ...).'),
            open: timestamp("On an early close: the regular session's open, ISO 8601 in UTC."),
            status: { type: 'string', enum: ['closed', 'early-close'] },
          },
          ['date', 'exchange', 'name', 'status'],
        ),
      ),
    },
  },
];
