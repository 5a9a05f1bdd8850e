// Massive's GET /v1/marketstatus/now at an instant: NYSE and Nasdaq by the stock calendar
// (domain/market-calendar.ts), OTC and the currency markets by the hours written here.
// Tests: test/domain/market-calendar.test.ts.
import { nyOffsetMinutes, sessionAt } from './market-calendar.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export type ExchangeStatus = 'open' | 'closed' | 'extended-hours';
/** Massive's values of `currencies.crypto` and `currencies.fx`. */
export type CurrencyStatus = 'open' | 'closed';

/** What GET /v1/marketstatus/now answers, but `indicesGroups`: each index family keeps its own hours. */
export interface MarketStatus {
  market: ExchangeStatus;
  earlyHours: boolean;
  afterHours: boolean;
  /** RFC 3339 in New York's offset, to the second, as Massive writes it. */
  serverTime: string;
  exchanges: { nyse: ExchangeStatus; nasdaq: ExchangeStatus; otc: ExchangeStatus };
  currencies: { crypto: CurrencyStatus; fx: CurrencyStatus };
}

function rfc3339InNewYork(ms: number): string {
  const offset = nyOffsetMinutes(ms);
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offset * MINUTE_MS).toISOString().slice(0, 19);
  const hours = String(Math.abs(offset) / 60).padStart(2, '0');
  return `${wall}-${hours}:00`;
}

/** The forex week: Sunday 17:00 to Friday 17:00 New York, in minutes after Sunday's midnight. */
const FX_OPENS = 17 * 60;
const FX_CLOSES = (5 * 24 + 17) * 60;

/** Whether the interbank forex market trades at `ms`: from Sunday 17:00 to Friday 17:00 New York. */
function fxStatusAt(ms: number): CurrencyStatus {
  const wall = ms + nyOffsetMinutes(ms) * MINUTE_MS;
  const day = Math.floor(wall / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is weekday 4, Sunday 0
  const weekday = (((day + 4) % 7) + 7) % 7;
  const minuteOfWeek = weekday * 24 * 60 + (wall - day * DAY_MS) / MINUTE_MS;
  return minuteOfWeek >= FX_OPENS && minuteOfWeek < FX_CLOSES ? 'open' : 'closed';
}

export function marketStatusAt(ms: number): MarketStatus {
  const session = sessionAt(ms);
  const market: ExchangeStatus = session === 'regular' ? 'open' : session === 'closed' ? 'closed' : 'extended-hours';
  return {
    market,
    earlyHours: session === 'pre',
    afterHours: session === 'post',
    serverTime: rfc3339InNewYork(ms),
    // OTC keeps the exchanges' holidays and early closes, and Massive answers it closed outside
    // the regular session (its documented example: nyse extended-hours, otc closed)
    exchanges: { nyse: market, nasdaq: market, otc: market === 'open' ? 'open' : 'closed' },
    currencies: { crypto: 'open', fx: fxStatusAt(ms) },
  };
}
