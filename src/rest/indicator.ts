// Technical indicators at Massive's paths and in its shapes, under /stocks like the aggregates: SMA,
// EMA, MACD and RSI of a ticker's bars (docs/rest.md#parameters-per-route), computed by
// services/indicator.ts. The bars are the aggregates' (rest/bar.ts), tier included: a day and longer
// every tier's, minutes and hours the pro tier's, checked where the timespan is read.
import { holdRows, type Context } from '../context.js';
import { isCalendarDate } from '../domain/fiscal.js';
import { CALENDAR_SPAN } from '../domain/market-calendar.js';
import { BASE_BARS, defaultSession, type Session, type Sort, today } from '../services/bar.js';
import { TIMESPANS, type Timespan } from '../services/bar-bucket.js';
import {
  HISTORY,
  indicatorPlan,
  indicatorSeries,
  MAX_WINDOW,
  SERIES_TYPES,
  VALUES,
  type IndicatorArgument,
  type IndicatorQuery,
  type IndicatorSpec,
  type IndicatorValue,
  type SeriesType,
} from '../services/indicator.js';
import { AGGS_PARAMS, BAR_SCHEMA, barRecord, boundParam, checkTimespan } from './bar.js';
import { arr, int, num, object, str, type JsonSchema } from './json-schema.js';
import { publicBase } from './next-url.js';
import { COMMON_PARAMS, parseQuery, SYMBOL_PARAM_PATTERN, symbolParam, type ParamSpecs } from './params.js';
import { json, shapeRows, type Route } from './route.js';

const BOUND_FORMS = 'A date YYYY-MM-DD (an exchange day, New York time) or a millisecond timestamp.';
const BOUNDS = ['timestamp', 'timestamp.gte', 'timestamp.gt', 'timestamp.lte', 'timestamp.lt'] as const;

const windowParam = (fallback: number) =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: MAX_WINDOW,
    default: fallback,
    description: `The bars one value spans, 1 to ${MAX_WINDOW}.`,
  }) as const;

/** What every indicator route takes, as Massive's GET /v1/indicators/{sma,ema,macd,rsi}/{stockTicker}. */
const COMMON = {
  timestamp: {
    type: 'string',
    description: `Only the value of this bar start (a date: of the bars of that day). ${BOUND_FORMS}`,
  },
  'timestamp.gte': {
    type: 'string',
    description: `Values of bars starting at or after (a date: its start). ${BOUND_FORMS}`,
  },
  'timestamp.gt': {
    type: 'string',
    description: `Values of bars starting after (a date: after its end). ${BOUND_FORMS}`,
  },
  'timestamp.lte': {
    type: 'string',
    description: `Values of bars starting at or before (a date: through its end). ${BOUND_FORMS}`,
  },
  'timestamp.lt': {
    type: 'string',
    description: `Values of bars starting before (a date: before its start). ${BOUND_FORMS}`,
  },
  timespan: { type: 'string', enum: TIMESPANS, default: 'day', description: 'The size of a bar.' },
  adjusted: AGGS_PARAMS.adjusted,
  series_type: {
    type: 'string',
    enum: SERIES_TYPES,
    default: 'close',
    description: 'The price of each bar the indicator is computed over.',
  },
  expand_underlying: {
    type: 'boolean',
    default: false,
    description: 'Whether `results.underlying.aggregates` holds the bars the values were computed from.',
  },
  order: {
    type: 'string',
    enum: ['asc', 'desc'],
    default: 'desc',
    description: 'By timestamp: `desc` the newest values first, `asc` the oldest first.',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: VALUES.max,
    default: VALUES.default,
    description: `Values per answer, 1 to ${VALUES.max}; next_url holds the next ones.`,
  },
  session: AGGS_PARAMS.session,
} as const satisfies ParamSpecs;

export const WINDOW_PARAMS = { ...COMMON, window: windowParam(50) } as const satisfies ParamSpecs;
export const RSI_PARAMS = { ...COMMON, window: windowParam(14) } as const satisfies ParamSpecs;
export const MACD_PARAMS = {
  ...COMMON,
  short_window: { ...windowParam(12), description: `The short EMA's window, 1 to ${MAX_WINDOW}.` },
  long_window: {
    ...windowParam(26),
    description: `The long EMA's window, 1 to ${MAX_WINDOW}; more than short_window.`,
  },
  signal_window: { ...windowParam(9), description: `The signal line's window, 1 to ${MAX_WINDOW}.` },
} as const satisfies ParamSpecs;

const REST_NAMES: Record<IndicatorArgument, string> = {
  window: 'window',
  shortWindow: 'short_window',
  longWindow: 'long_window',
  signalWindow: 'signal_window',
  limit: 'limit',
  multiplier: 'multiplier',
};

/**
 * The timestamp bounds as one range of bar starts (epoch ms, inclusive), the tightest of each kind
 * winning; undefined where none bounds it. A date outside the days a read spans (HISTORY) holds no
 * bar: before them, it stands for the instant before their first; after them, the one after their last.
 */
function timestampRange(p: Record<(typeof BOUNDS)[number], string | undefined>) {
  const at = (name: string, raw: string, bound: 'start' | 'end') => {
    if (isCalendarDate(raw) && (raw < CALENDAR_SPAN.from || raw >= CALENDAR_SPAN.to))
      return raw < CALENDAR_SPAN.from ? HISTORY.from - 1 : HISTORY.to + 1;
    return boundParam(name, raw, bound);
  };
  let from: number | undefined;
  let to: number | undefined;
  const above = (ms: number) => {
    from = from === undefined ? ms : Math.max(from, ms);
  };
  const below = (ms: number) => {
    to = to === undefined ? ms : Math.min(to, ms);
  };
  if (p.timestamp) {
    above(at('timestamp', p.timestamp, 'start'));
    below(at('timestamp', p.timestamp, 'end'));
  }
  if (p['timestamp.gte']) above(at('timestamp.gte', p['timestamp.gte'], 'start'));
  if (p['timestamp.gt']) above(at('timestamp.gt', p['timestamp.gt'], 'end') + 1);
  if (p['timestamp.lte']) below(at('timestamp.lte', p['timestamp.lte'], 'end'));
  if (p['timestamp.lt']) below(at('timestamp.lt', p['timestamp.lt'], 'start') - 1);
  return { from, to };
}

type ParsedParams = Record<string, unknown> & {
  timespan: string;
  adjusted: boolean;
  series_type: string;
  expand_underlying: boolean;
  order: string;
  limit: number;
  session?: string | undefined;
} & Record<(typeof BOUNDS)[number], string | undefined>;

const valueSchema = (macd: boolean): JsonSchema =>
  object(
    {
      timestamp: int("The start of the value's bar, Unix milliseconds (the aggregates' `t`)."),
      value: num(macd ? 'The MACD line: the short EMA less the long EMA.' : 'The indicator.'),
      ...(macd
        ? {
            signal: num("The signal line: the MACD line's EMA."),
            histogram: num('The MACD line less the signal line.'),
          }
        : {}),
    },
    macd ? ['timestamp', 'value', 'signal', 'histogram'] : ['timestamp', 'value'],
  );

const responseSchema = (macd: boolean): JsonSchema =>
  object(
    {
      next_url: str('The next `limit` values in the same order, when the range holds more; absent on the last page.'),
      request_id: str('This request; also the X-Request-Id header.'),
      results: object(
        {
          underlying: object(
            {
              url: str(
                'The aggregates (GET /stocks/v2/aggs/...) the values were computed from: their warm-up and their own bars.',
              ),
              aggregates: arr(BAR_SCHEMA, 'Those bars, in `order`; only with expand_underlying=true.'),
            },
            ['url'],
          ),
          values: arr(valueSchema(macd)),
        },
        ['underlying', 'values'],
      ),
      status: { const: 'OK' },
    },
    ['request_id', 'results', 'status'],
  );

function valueRecord(kind: IndicatorSpec['kind']): (v: IndicatorValue) => Record<string, unknown> {
  return kind === 'macd'
    ? (v) => ({ timestamp: v.t, value: v.value, signal: v.signal, histogram: v.histogram })
    : (v) => ({ timestamp: v.t, value: v.value });
}

function indicatorRoute(kind: IndicatorSpec['kind'], specs: ParamSpecs, summary: string, description: string): Route {
  return {
    method: 'GET',
    path: `/stocks/v1/indicators/${kind}/:ticker`,
    access: 'indicators',
    async handle(ctx: Context, url: URL, params: Record<string, string>) {
      const ticker = symbolParam('ticker', params.ticker!);
      const p = parseQuery(specs, url.searchParams) as ParsedParams;
      const timespan = p.timespan as Timespan;
      checkTimespan(ctx, timespan);
      const { from, to } = timestampRange(p);
      const indicator: IndicatorSpec =
        kind === 'macd'
          ? {
              kind,
              shortWindow: p.short_window as number,
              longWindow: p.long_window as number,
              signalWindow: p.signal_window as number,
            }
          : { kind, window: p.window as number };
      const query: IndicatorQuery = {
        symbol: ticker,
        indicator,
        timespan,
        multiplier: 1,
        session: (p.session as Session | undefined) ?? defaultSession(timespan),
        seriesType: p.series_type as SeriesType,
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        order: p.order as Sort,
        limit: p.limit,
        // Massive's `adjusted`: splits (services/adjustment.ts)
        adjustments: new Set(p.adjusted ? (['split'] as const) : []),
        asOf: today(ctx.now()),
      };
      const plan = indicatorPlan(query, (k) => REST_NAMES[k]);
      await holdRows(ctx, 'Bar', plan.baseBars);
      const page = await indicatorSeries(ctx.db, query, (k) => REST_NAMES[k]);
      const base = publicBase(ctx, url);
      const aggs = new URLSearchParams({
        adjusted: String(p.adjusted),
        sort: query.order,
        // base bars: those of buckets without a price too, which no bar shows
        limit: String(BASE_BARS.max),
        ...(p.session ? { session: p.session } : {}),
      });
      const underlying = `${base}/stocks/v2/aggs/ticker/${ticker}/range/1/${timespan}/${page.span.from}/${page.span.to}?${aggs}`;
      let next: string | undefined;
      if (page.next) {
        const q = new URLSearchParams(url.searchParams);
        for (const k of [...q.keys()])
          if (COMMON_PARAMS.has(k) || k.toLowerCase() === 'apikey' || (BOUNDS as readonly string[]).includes(k))
            q.delete(k);
        if ('after' in page.next) {
          q.set('timestamp.gt', String(page.next.after));
          if (to !== undefined) q.set('timestamp.lte', String(to));
        } else {
          if (from !== undefined) q.set('timestamp.gte', String(from));
          q.set('timestamp.lt', String(page.next.before));
        }
        next = `${base}${url.pathname}?${q}`;
      }
      return json({
        ...(next ? { next_url: next } : {}),
        request_id: ctx.requestId,
        results: {
          underlying: {
            url: underlying,
            ...(p.expand_underlying ? { aggregates: shapeRows(ctx, page.bars, barRecord) } : {}),
          },
          values: shapeRows(ctx, page.values, valueRecord(kind)),
        },
        status: 'OK',
      });
    },
    doc: {
      summary,
      description: `${description} Computed over the bars of GET /stocks/v2/aggs (regular session for days and longer, the extended day for minutes and hours, unless \`session\` says otherwise), each value with the history before it (docs/rest.md#parameters-per-route). Minute and hour bars need the pro tier.`,
      path: {
        ticker: {
          type: 'string',
          required: true,
          pattern: SYMBOL_PARAM_PATTERN,
          description: 'Ticker symbol (case-insensitive).',
        },
      },
      query: specs,
      response: responseSchema(kind === 'macd'),
    },
  };
}

export const routes: Route[] = [
  indicatorRoute(
    'sma',
    WINDOW_PARAMS,
    'Simple moving average (SMA)',
    "The mean of the last `window` prices, as Massive's GET /v1/indicators/sma/{stockTicker} answers it.",
  ),
  indicatorRoute(
    'ema',
    WINDOW_PARAMS,
    'Exponential moving average (EMA)',
    "The exponential moving average of `window` prices (seeded with their mean, then weighted 2/(window+1)), as Massive's GET /v1/indicators/ema/{stockTicker} answers it.",
  ),
  indicatorRoute(
    'macd',
    MACD_PARAMS,
    'Moving average convergence/divergence (MACD)',
    "The short EMA less the long EMA, its signal line (an EMA of it) and their difference, as Massive's GET /v1/indicators/macd/{stockTicker} answers them.",
  ),
  indicatorRoute(
    'rsi',
    RSI_PARAMS,
    'Relative strength index (RSI)',
    "Wilder's relative strength index over `window` changes, 0 to 100, as Massive's GET /v1/indicators/rsi/{stockTicker} answers it.",
  ),
];
