import { holdRows } from '../context.js';
import { AppError } from '../errors.js';
import { MAX_SYMBOL_PERIODS, tickerEvents, type SymbolPeriod } from '../services/ticker-event.js';
import { arr, date, object, str, type JsonSchema } from './json-schema.js';
import { badParam, parseQuery, symbolParam, SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { json, type Route } from './route.js';

/** The kinds of event Massive answers: ticker changes only. */
const EVENT_TYPES = ['ticker_change'] as const;

/** `types`, as Massive's GET /vX/reference/tickers/{id}/events takes it: docs/rest.md#parameters-per-route. */
export const TICKER_EVENT_PARAMS = {
  types: {
    type: 'string',
    maxLength: 200,
    description: `A comma list of the kinds of event to answer: ${EVENT_TYPES.join(', ')} is the only one (and every event when left out).`,
  },
} as const satisfies ParamSpecs;

const ID_PATH: ParamSpecs = {
  id: {
    type: 'string',
    required: true,
    pattern: SYMBOL_PARAM_PATTERN,
    description:
      'The ticker a security has now, its composite FIGI or its CUSIP (case-insensitive): the events of that security, under every symbol it had.',
  },
};

/**
 * One event as Massive writes it: its kind under `event_type`, as Massive's OpenAPI document and
 * client types name it, and under `type`, as its recorded answers do (docs/rest.md#parameters-per-route).
 */
export const TICKER_EVENT_SCHEMA: JsonSchema = object(
  {
    date: date('The first exchange day under the symbol, yyyy-mm-dd.'),
    event_type: { const: 'ticker_change', description: 'The kind of event.' },
    ticker_change: object({ ticker: str('The symbol the security took.') }),
    type: { const: 'ticker_change', description: 'The kind of event, as Massive also writes it.' },
  },
  ['date', 'event_type', 'ticker_change', 'type'],
);

/** A period as Massive's event: the day the security took the symbol (a period without one has no event). */
export function tickerEventRecord(p: SymbolPeriod & { startDate: string }): Record<string, unknown> {
  return { date: p.startDate, event_type: 'ticker_change', ticker_change: { ticker: p.symbol }, type: 'ticker_change' };
}

function checkTypes(raw: string | undefined): void {
  if (raw === undefined) return;
  if (!raw.split(',').every((t) => (EVENT_TYPES as readonly string[]).includes(t.trim())))
    throw badParam('types', `a comma list of event types, of ${EVENT_TYPES.join(', ')}`, raw);
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/vX/reference/tickers/:id/events',
    access: 'tickerEvents',
    async handle(ctx, url, params) {
      const id = symbolParam('id', params.id!);
      checkTypes(parseQuery(TICKER_EVENT_PARAMS, url.searchParams).types);
      await holdRows(ctx, 'SymbolPeriod', MAX_SYMBOL_PERIODS);
      const found = await tickerEvents(ctx.db, id);
      if (!found)
        throw new AppError('NOT_FOUND', `no security has the ticker, composite FIGI or CUSIP ${JSON.stringify(id)}`);
      const dated = found.periods.filter((p): p is SymbolPeriod & { startDate: string } => p.startDate !== null);
      return json({
        request_id: ctx.requestId,
        results: { events: dated.map(tickerEventRecord), name: found.security.name },
        status: 'OK',
      });
    },
    doc: {
      summary: 'Ticker events',
      description: `The symbols one security has traded under, newest first, as Massive's GET /vX/reference/tickers/{id}/events answers them: one ticker_change event per symbol, dated the first exchange day under it. A security whose symbol never changed has one event, dated its list date (none without one). At most ${MAX_SYMBOL_PERIODS} events.`,
      path: ID_PATH,
      query: TICKER_EVENT_PARAMS,
      response: object({
        request_id: str('This request; also the X-Request-Id header.'),
        results: object({
          events: arr(TICKER_EVENT_SCHEMA, 'Newest first.'),
          name: str("The security's name."),
        }),
        status: { const: 'OK' },
      }),
      errors: { '404': 'No security has that ticker now, nor that composite FIGI or CUSIP.' },
    },
  },
];
