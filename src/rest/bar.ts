// Aggregates (bars) at Massive's paths and in its shapes, under /stocks like the trades and quotes:
// custom bars, the previous day's bar, the grouped daily bars of a date and a day's open and close
// (docs/rest.md#aggregates). Built from the base bars (services/bar.ts); a day or longer needs the
// free tier's `dayBars`, minutes and hours the pro tier's `bars`, checked here where the timespan is known.
import { holdRows, type Context } from '../context.js';
import { checkEntitled } from '../domain/entitlements.js';
import { isCalendarDate } from '../domain/fiscal.js';
import { CALENDAR_SPAN, inCalendarSpan } from '../domain/market-calendar.js';
import { AppError } from '../errors.js';
import {
  BASE_BARS,
  barBound,
  barHistory,
  today,
  defaultSession,
  MAX_MULTIPLIER,
  type Bar,
  type Session,
  type Sort,
} from '../services/bar.js';
import { TIMESPANS, type Timespan } from '../services/bar-bucket.js';
import { groupedDay, MAX_GROUPED, openClose, previousDay } from '../services/bar-day.js';
import { FILL_POSITIONS } from '../services/bar-fill.js';
import { adjustmentSet, type AdjustmentName } from '../services/adjustment.js';
import { dayNumber } from '../domain/bar-time.js';
import { arr, bool, int, num, object, str, type JsonSchema } from './json-schema.js';
import { publicBase } from './next-url.js';
import {
  badParam,
  parseQuery,
  parseValue,
  quoted,
  SYMBOL_PARAM_PATTERN,
  symbolParam,
  type ParamSpecs,
} from './params.js';
import { json, type Route } from './route.js';

const MILLIS = /^\d{1,15}$/;

/** `adjusted`, as Massive takes it; `session` is this service's (docs/rest.md#aggregates). */
const ADJUSTED_PARAM = {
  type: 'boolean',
  default: true,
  description: "Whether prices are adjusted for splits (volumes too) to today's terms; `false`: as they were quoted.",
} as const;
const SESSION_PARAM = {
  type: 'string',
  enum: ['extended', 'regular'],
  description:
    "Which trades a bar holds: `extended`, pre-market to after-hours (04:00-20:00 New York), or `regular`, 09:30-16:00 (13:00 on an early close). Default: `extended` for minutes and hours (as Massive's intraday bars), `regular` for days and longer (the official open and close).",
} as const;

export const AGGS_PARAMS = {
  adjusted: ADJUSTED_PARAM,
  adjustment: {
    type: 'string',
    pattern: /^(raw|split|dividend|all)(,(raw|split|dividend|all))*$/i,
    case: 'lower',
    description:
      "This service's, as Alpaca takes it: a comma list of `split`, `dividend`, `all` (both) or `raw` (none); given, it decides over `adjusted`. Volumes are adjusted for splits only.",
  },
  as_of: {
    type: 'string',
    format: 'date',
    description:
      'Prices as they were quoted on this exchange day (default: today, New York): actions after it are not applied, and undone on bars after it.',
  },
  sort: {
    type: 'string',
    enum: ['asc', 'desc'],
    default: 'asc',
    description: 'By timestamp: `asc` oldest first, `desc` newest first.',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: BASE_BARS.max,
    default: BASE_BARS.default,
    description: `The base bars (minute or day) read to build the answer, 1 to ${BASE_BARS.max}: a bar the limit would cut is left for next_url.`,
  },
  session: SESSION_PARAM,
  fill: {
    type: 'boolean',
    default: false,
    description: `This service's: \`true\` gives each bucket of the sessions that no eligible trade set a bar at the previous close, with \`v\` 0 and \`n\` 0 (buckets outside the sessions still have none); a filled range spans at most ${FILL_POSITIONS} session minutes (or trading days).`,
  },
} as const satisfies ParamSpecs;

const TICKER_PATH = {
  type: 'string',
  required: true,
  pattern: SYMBOL_PARAM_PATTERN,
  description: 'Ticker symbol (case-insensitive).',
} as const;
const BOUND_DESCRIPTION =
  'A date YYYY-MM-DD (an exchange day, New York time: the whole day) or a millisecond timestamp.';

const AGGS_PATH = {
  ticker: TICKER_PATH,
  multiplier: {
    type: 'integer',
    required: true,
    minimum: 1,
    maximum: MAX_MULTIPLIER,
    description: 'How many timespans one bar spans.',
  },
  timespan: { type: 'string', required: true, enum: TIMESPANS, description: 'The unit of a bar.' },
  from: { type: 'string', required: true, description: `The start. ${BOUND_DESCRIPTION}` },
  to: { type: 'string', required: true, description: `The end, inclusive. ${BOUND_DESCRIPTION}` },
} as const satisfies ParamSpecs;

/**
 * A bound of a range of bars, parameter `name`: a millisecond timestamp, or a date, its New York day
 * from its first millisecond (`start`) or through its last (`end`). The indicators' timestamps too.
 */
export function boundParam(name: string, raw: string, bound: 'start' | 'end'): number {
  if (MILLIS.test(raw)) return Number(raw);
  // a real date; one the market calendar does not know is cut to the days it knows (barBound)
  if (isCalendarDate(raw)) return barBound(raw, bound);
  throw badParam(name, 'a date YYYY-MM-DD or a millisecond timestamp', raw);
}

export const BAR_SCHEMA: JsonSchema = object(
  {
    o: num('Open: the first price of the bar.'),
    h: num('High.'),
    l: num('Low.'),
    c: num('Close: the last price of the bar.'),
    v: num('Volume, in shares.'),
    vw: num('Volume-weighted average price.'),
    t: int('The start of the bar, Unix milliseconds.'),
    n: int('The trades in the bar.'),
  },
  ['o', 'h', 'l', 'c', 'v', 't', 'n'],
);

/** A bar as Massive writes it: vw left out when no trade carried volume. */
export function barRecord(b: Bar): Record<string, unknown> {
  return b.vw === null
    ? { o: b.o, h: b.h, l: b.l, c: b.c, v: b.v, t: b.t, n: b.n }
    : { o: b.o, h: b.h, l: b.l, c: b.c, v: b.v, vw: b.vw, t: b.t, n: b.n };
}

/** Minutes and hours are the pro tier's; a day and longer every tier's (resources/bar.ts). The indicators' too. */
export function checkTimespan(ctx: Context, timespan: Timespan): void {
  if (timespan === 'minute' || timespan === 'hour') checkEntitled(ctx.caller, 'bars');
}

async function aggregates(ctx: Context, url: URL, params: Record<string, string>): Promise<Response> {
  const ticker = symbolParam('ticker', params.ticker!);
  const multiplier = parseValue('multiplier', AGGS_PATH.multiplier, params.multiplier!) as number;
  const timespan = parseValue('timespan', AGGS_PATH.timespan, params.timespan!) as Timespan;
  checkTimespan(ctx, timespan);
  const from = boundParam('from', params.from!, 'start');
  const to = boundParam('to', params.to!, 'end');
  if (from > to)
    throw new AppError(
      'BAD_REQUEST',
      `parameter from (${quoted(params.from!)}) is after parameter to (${quoted(params.to!)})`,
    );
  const p = parseQuery(AGGS_PARAMS, url.searchParams);
  await holdRows(ctx, 'Bar', p.limit);
  const named = p.adjustment === undefined ? (p.adjusted ? ['split'] : ['raw']) : p.adjustment.split(',');
  const adjustments = adjustmentSet(named as AdjustmentName[]);
  if (!adjustments) throw badParam('adjustment', '`raw` alone, or any of split, dividend, all', p.adjustment ?? '');
  const page = await barHistory(ctx.db, {
    symbol: ticker,
    adjustments,
    asOf: p.as_of === undefined ? today(ctx.now()) : dayNumber(p.as_of),
    multiplier,
    timespan,
    from,
    to,
    session: (p.session as Session | undefined) ?? defaultSession(timespan),
    sort: p.sort as Sort,
    limit: p.limit,
    fill: p.fill,
  });
  let next: string | undefined;
  if (page.next) {
    const [nextFrom, nextTo] = 'from' in page.next ? [page.next.from, to] : [from, page.next.to];
    const path = url.pathname.split('/').slice(0, -2).join('/');
    const query = new URLSearchParams(url.searchParams);
    for (const k of [...query.keys()]) if (k.toLowerCase() === 'apikey') query.delete(k);
    next = `${publicBase(ctx, url)}${path}/${nextFrom}/${nextTo}${query.size ? `?${query}` : ''}`;
  }
  return json({
    ticker,
    adjusted: adjustments.has('split'),
    queryCount: page.queryCount,
    resultsCount: page.bars.length,
    status: 'OK',
    request_id: ctx.requestId,
    results: page.bars.map(barRecord),
    ...(next ? { next_url: next } : {}),
  });
}

/** `adjusted` alone: the routes of one day answer Massive's parameter only. */
const DAY_PARAMS = { adjusted: ADJUSTED_PARAM } as const satisfies ParamSpecs;
const GROUPED_PARAMS = {
  adjusted: ADJUSTED_PARAM,
  include_otc: {
    type: 'boolean',
    default: false,
    description: "Massive's; accepted and without effect: no OTC security is stored here.",
  },
} as const satisfies ParamSpecs;
const DATE_PATH = { type: 'string', required: true, description: 'An exchange day, YYYY-MM-DD.' } as const;

/** An exchange day the market calendar knows (domain/market-calendar.ts). */
function dayParam(name: string, raw: string): number {
  if (inCalendarSpan(raw)) return dayNumber(raw);
  throw badParam(name, `a date YYYY-MM-DD from ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}`, raw);
}

/** Massive's `adjusted` as a set of adjustments: splits, or none. */
const splitsIf = (adjusted: boolean) => adjustmentSet(adjusted ? ['split'] : ['raw'])!;

/** A grouped or previous-day bar: Massive's bar with its ticker as `T`. */
const tickerBar = (T: string, b: Bar) => ({ T, ...barRecord(b) });

const TICKER_BAR_SCHEMA: JsonSchema = object(
  {
    T: str('The ticker symbol (the one it traded under that day).'),
    ...(BAR_SCHEMA.properties as Record<string, JsonSchema>),
  },
  ['T', ...(BAR_SCHEMA.required as string[])],
);

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v2/aggs/ticker/:ticker/range/:multiplier/:timespan/:from/:to',
    access: 'dayBars',
    handle: aggregates,
    doc: {
      summary: 'Custom bars',
      description:
        "Bars of `multiplier` × `timespan` from the stored minute and day bars, as Massive's GET /v2/aggs/ticker/{ticker}/range/{multiplier}/{timespan}/{from}/{to} answers them. A bucket without an eligible trade has no bar (a gap, never a zero bar). Minute and hour bars need the pro tier.",
      path: AGGS_PATH,
      query: AGGS_PARAMS,
      response: object(
        {
          ticker: str('The ticker symbol.'),
          adjusted: bool('Whether the prices are adjusted for splits.'),
          queryCount: int('The base bars (minute or day) the answer was built from.'),
          resultsCount: int('How many bars `results` holds.'),
          status: { const: 'OK' },
          request_id: str('This request; also the X-Request-Id header.'),
          results: arr(BAR_SCHEMA),
          next_url: str('The rest of the range, when `limit` cut it: the same request from where this page stopped.'),
        },
        ['ticker', 'adjusted', 'queryCount', 'resultsCount', 'status', 'request_id', 'results'],
      ),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v2/aggs/ticker/:ticker/prev',
    access: 'dayBars',
    async handle(ctx, url, params) {
      const ticker = symbolParam('ticker', params.ticker!);
      const p = parseQuery(DAY_PARAMS, url.searchParams);
      await holdRows(ctx, 'Bar', 1);
      const page = await previousDay(ctx.db, ticker, splitsIf(p.adjusted), today(ctx.now()));
      return json({
        ticker,
        queryCount: page.queryCount,
        resultsCount: page.bars.length,
        adjusted: p.adjusted,
        results: page.bars.map((b) => tickerBar(ticker, b)),
        status: 'OK',
        request_id: ctx.requestId,
      });
    },
    doc: {
      summary: 'Previous day bar',
      description:
        "The regular-session bar of the last exchange day before today (New York), as Massive's GET /v2/aggs/ticker/{ticker}/prev answers it; `results` is empty when the symbol has none.",
      path: { ticker: TICKER_PATH },
      query: DAY_PARAMS,
      response: object(
        {
          ticker: str('The ticker symbol.'),
          queryCount: int('The day bars read (0 or 1).'),
          resultsCount: int('How many bars `results` holds (0 or 1).'),
          adjusted: bool('Whether the prices are adjusted for splits.'),
          results: arr(TICKER_BAR_SCHEMA),
          status: { const: 'OK' },
          request_id: str('This request; also the X-Request-Id header.'),
        },
        ['ticker', 'queryCount', 'resultsCount', 'adjusted', 'results', 'status', 'request_id'],
      ),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v2/aggs/grouped/locale/us/market/stocks/:date',
    access: 'dayBars',
    async handle(ctx, url, params) {
      const day = dayParam('date', params.date!);
      const p = parseQuery(GROUPED_PARAMS, url.searchParams);
      await holdRows(ctx, 'Bar', MAX_GROUPED);
      const bars = await groupedDay(ctx.db, day, p.adjusted, today(ctx.now()));
      return json({
        adjusted: p.adjusted,
        queryCount: bars.length,
        resultsCount: bars.length,
        status: 'OK',
        request_id: ctx.requestId,
        results: bars.map((b) => tickerBar(b.symbol, b)),
      });
    },
    doc: {
      summary: 'Grouped daily bars',
      description: `Every symbol's regular-session bar of one exchange day, as Massive's GET /v2/aggs/grouped/locale/us/market/stocks/{date} answers it (at most ${MAX_GROUPED}, by symbol; \`adjusted\`: for splits, as Massive's).`,
      path: { date: DATE_PATH },
      query: GROUPED_PARAMS,
      response: object(
        {
          adjusted: bool('Whether the prices are adjusted for splits.'),
          queryCount: int('The day bars read.'),
          resultsCount: int('How many bars `results` holds.'),
          status: { const: 'OK' },
          request_id: str('This request; also the X-Request-Id header.'),
          results: arr(TICKER_BAR_SCHEMA),
        },
        ['adjusted', 'queryCount', 'resultsCount', 'status', 'request_id', 'results'],
      ),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v1/open-close/:ticker/:date',
    access: 'dayBars',
    async handle(ctx, url, params) {
      const ticker = symbolParam('ticker', params.ticker!);
      const date = params.date!;
      const day = dayParam('date', date);
      const p = parseQuery(DAY_PARAMS, url.searchParams);
      await holdRows(ctx, 'Bar', 1);
      const found = await openClose(ctx.db, ticker, day, splitsIf(p.adjusted), today(ctx.now()));
      if (!found) throw new AppError('NOT_FOUND', `no bar of ${ticker} on ${date}`);
      const { bar } = found;
      return json({
        status: 'OK',
        from: date,
        symbol: ticker,
        open: bar.o,
        high: bar.h,
        low: bar.l,
        close: bar.c,
        volume: bar.v,
        ...(found.afterHours === null ? {} : { afterHours: found.afterHours }),
        ...(found.preMarket === null ? {} : { preMarket: found.preMarket }),
      });
    },
    doc: {
      summary: 'Daily open and close',
      description:
        "One exchange day's regular-session open, high, low, close and volume, with the first pre-market and last after-hours prices where it traded then, as Massive's GET /v1/open-close/{ticker}/{date} answers them; 404 when there is no bar that day.",
      path: { ticker: TICKER_PATH, date: DATE_PATH },
      query: DAY_PARAMS,
      response: object(
        {
          status: { const: 'OK' },
          from: str('The day, YYYY-MM-DD.'),
          symbol: str('The ticker symbol.'),
          open: num("The regular session's first price."),
          high: num('Its highest price.'),
          low: num('Its lowest price.'),
          close: num('Its last price.'),
          volume: num('Its volume.'),
          preMarket: num('The first pre-market price; absent when it did not trade then.'),
          afterHours: num('The last after-hours price; absent when it did not trade then.'),
        },
        ['status', 'from', 'symbol', 'open', 'high', 'low', 'close', 'volume'],
      ),
    },
  },
];
