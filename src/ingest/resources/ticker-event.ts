// Ticker events: one item of `results.events`, as GET /stocks/vX/reference/tickers/{id}/events
// returns it (src/rest/ticker-event.ts), which is Massive's GET /vX/reference/tickers/{id}/events,
// with `current_ticker` beside its keys. Massive's body names its entity only by the request's
// path, so the records of a body carry the ticker of its newest event, the entity's now: the
// history is stored under the security that has it (services/ticker-event.ts).
import type { Importer } from '../importer.js';
import { writeTickerEvents, type TickerEventInput } from '../../services/ticker-event.js';
import * as f from '../record-fields.js';

/** The one kind of event Massive names (`event_type`, or `type` in its recorded answers). */
const EVENT_TYPES = ['ticker_change'] as const;

const isObject = (v: unknown): v is f.Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The events of a body (`{ results: { events } }`), each with its entity's ticker now; a bare array is records. */
function recordsOf(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  const results = isObject(body) ? body.results : undefined;
  if (!isObject(results) || !Array.isArray(results.events)) return null;
  const events = results.events as unknown[];
  let newest: { date: string; ticker: unknown } | undefined;
  for (const e of events) {
    if (!isObject(e) || typeof e.date !== 'string') continue;
    const ticker = isObject(e.ticker_change) ? e.ticker_change.ticker : undefined;
    if (!newest || e.date > newest.date) newest = { date: e.date, ticker };
  }
  return events.map((e) => (isObject(e) ? { current_ticker: newest?.ticker, ...e } : e));
}

export function parseTickerEvent(record: unknown): TickerEventInput {
  const rec = f.record(record);
  for (const key of ['event_type', 'type'] as const)
    if (rec[key] !== undefined && rec[key] !== null) f.oneOf(rec[key], key, EVENT_TYPES);
  const change = f.object(rec.ticker_change, 'ticker_change');
  return {
    currentTicker: f.symbol(rec.current_ticker, 'current_ticker'),
    symbol: f.symbol(change.ticker, 'ticker_change.ticker'),
    startDate: f.date(rec.date, 'date'),
  };
}

export const importer: Importer<TickerEventInput> = {
  resource: 'ticker-events',
  recordsOf,
  parse: parseTickerEvent,
  key: (row) => `${row.currentTicker}|${row.startDate}`,
  write: writeTickerEvents,
};
