// Snapshots, movers and the last trade and quote, at Massive's paths and in its shapes under /stocks
// (docs/rest.md#parameters-per-route): each answer is the stored snapshot (services/snapshot.ts) or the newest
// stored tick (services/tick.ts latestTicks), read in one statement.
import { holdRows, type Context } from '../context.js';
import { AppError } from '../errors.js';
import type { Bar } from '../services/bar.js';
import { allSnapshots, MAX_ALL_SNAPSHOTS, movers, snapshotsOf, type Snapshot } from '../services/snapshot.js';
import { latestTrades, type Trade } from '../services/trade.js';
import { latestQuotes, type Quote } from '../services/quote.js';
import { arr, int, num, object, str, type JsonSchema } from './json-schema.js';
import { badParam, parseQuery, SYMBOL_PARAM_PATTERN, symbolList, symbolParam, type ParamSpecs } from './params.js';
import { exactInt, json, shapeRows, type Route } from './route.js';

/** Symbols one `tickers=` list names at most; without the parameter every symbol is answered, up to MAX_ALL_SNAPSHOTS. */
export const MAX_TICKERS = 1_000;

const SNAPSHOTS_PATH = '/stocks/v2/snapshot/locale/us/markets/stocks';

const INCLUDE_OTC = {
  type: 'boolean',
  default: false,
  description: "Massive's; accepted and without effect: no OTC security is stored here.",
} as const;
const TICKERS_PARAMS = {
  tickers: {
    type: 'string',
    maxLength: MAX_TICKERS * 21,
    list: true,
    description: `A comma list (or the parameter repeated) of up to ${MAX_TICKERS} ticker symbols (case-insensitive); absent or empty: every symbol, by symbol, up to ${MAX_ALL_SNAPSHOTS}.`,
  },
  include_otc: INCLUDE_OTC,
} as const satisfies ParamSpecs;
const OTC_PARAMS = { include_otc: INCLUDE_OTC } as const satisfies ParamSpecs;

const TICKER_PATH: ParamSpecs = {
  ticker: {
    type: 'string',
    required: true,
    pattern: SYMBOL_PARAM_PATTERN,
    description: 'Ticker symbol (case-insensitive).',
  },
};

const price = (d: string) => num(d);
const OHLC = {
  o: price('Open price.'),
  h: price('High price.'),
  l: price('Low price.'),
  c: price('Close price.'),
  v: num('Volume.'),
  vw: num('Volume-weighted average price; absent without volume.'),
};
const DAY_SCHEMA = object(OHLC, ['o', 'h', 'l', 'c', 'v']);
const MIN_SCHEMA = object(
  {
    av: num("The day's accumulated volume."),
    dav: str("The day's accumulated volume as a decimal string."),
    t: int('Start of the minute, epoch milliseconds.'),
    n: int('Trades in the minute.'),
    ...OHLC,
  },
  ['av', 'dav', 't', 'n', 'o', 'h', 'l', 'c', 'v'],
);
const LAST_TRADE_SCHEMA = object({
  c: arr(int(), 'Trade condition codes.'),
  i: str('Trade id.'),
  p: num('Price.'),
  s: num('Size.'),
  ds: str('Size as a decimal string.'),
  t: int('SIP timestamp, nanoseconds (every digit).'),
  x: int('Exchange id.'),
});
const LAST_QUOTE_SCHEMA = object({
  P: num('Ask price.'),
  S: num('Ask size.'),
  p: num('Bid price.'),
  s: num('Bid size.'),
  t: int('SIP timestamp, nanoseconds (every digit).'),
});
const SNAPSHOT_SCHEMA = object(
  {
    ticker: str('The ticker symbol.'),
    todaysChange: num("Last price minus the previous day's close."),
    todaysChangePerc: num("That change as a percentage of the previous day's close."),
    updated: int('When the last trade or quote was, nanoseconds (every digit).'),
    day: DAY_SCHEMA,
    min: MIN_SCHEMA,
    prevDay: DAY_SCHEMA,
    lastTrade: LAST_TRADE_SCHEMA,
    lastQuote: LAST_QUOTE_SCHEMA,
  },
  ['ticker', 'updated'],
);

const ohlc = (b: Bar) => {
  const out: Record<string, unknown> = { o: b.o, h: b.h, l: b.l, c: b.c, v: b.v };
  if (b.vw !== null) out.vw = b.vw;
  return out;
};

/** A snapshot in Massive's shape: a part the store has nothing for is left out. */
export function snapshotRecord(s: Snapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { ticker: s.symbol };
  if (s.todaysChange !== null) out.todaysChange = s.todaysChange;
  if (s.todaysChangePerc !== null) out.todaysChangePerc = s.todaysChangePerc;
  out.updated = exactInt(s.updated);
  if (s.dayBar) out.day = ohlc(s.dayBar);
  if (s.minuteBar) {
    const av = s.dayBar?.v ?? s.minuteBar.v;
    out.min = { av, dav: String(av), t: s.minuteBar.t, n: s.minuteBar.n, ...ohlc(s.minuteBar) };
  }
  if (s.prevDayBar) out.prevDay = ohlc(s.prevDayBar);
  if (s.tradeAt !== null)
    out.lastTrade = {
      c: s.tradeConditions ?? [],
      i: s.tradeId,
      p: s.tradePrice,
      s: s.tradeSize,
      ds: String(s.tradeSize),
      t: exactInt(s.tradeAt),
      x: s.tradeExchange,
    };
  if (s.quoteAt !== null)
    out.lastQuote = { P: s.askPrice, S: s.askSize, p: s.bidPrice, s: s.bidSize, t: exactInt(s.quoteAt) };
  return out;
}

const unknownSymbol = (what: string, symbol: string) =>
  new AppError('NOT_FOUND', `no ${what} is stored for symbol ${JSON.stringify(symbol)}`);

async function tickersSnapshot(ctx: Context, url: URL): Promise<Response> {
  const p = parseQuery(TICKERS_PARAMS, url.searchParams);
  const given = p.tickers?.trim() ? symbolList('tickers', p.tickers, MAX_TICKERS) : undefined;
  await holdRows(ctx, 'Snapshot', given ? given.length : MAX_ALL_SNAPSHOTS);
  const rows = given
    ? [...(await snapshotsOf(ctx.db, given)).values()].sort((a, b) => (a.symbol < b.symbol ? -1 : 1))
    : await allSnapshots(ctx.db);
  const tickers = shapeRows(ctx, rows, snapshotRecord);
  return json({ status: 'OK', count: tickers.length, tickers, request_id: ctx.requestId });
}

const lastTradeRecord = (t: Trade) => ({
  T: t.symbol,
  c: t.conditions as number[],
  i: t.tradeId,
  p: t.price,
  q: exactInt(t.sequenceNumber),
  s: t.size,
  ds: String(t.size),
  t: exactInt(t.sipTimestamp),
  x: t.exchange,
  z: t.tape,
});
const lastQuoteRecord = (q: Quote) => ({
  T: q.symbol,
  P: q.askPrice,
  S: q.askSize,
  X: q.askExchange,
  c: q.conditions as number[],
  p: q.bidPrice,
  q: exactInt(q.sequenceNumber),
  s: q.bidSize,
  t: exactInt(q.sipTimestamp),
  x: q.bidExchange,
  z: q.tape,
});

const lastEnvelope = (results: JsonSchema) =>
  object({ status: { const: 'OK' }, request_id: str('This request; also the X-Request-Id header.'), results });

export const routes: Route[] = [
  {
    method: 'GET',
    path: `${SNAPSHOTS_PATH}/tickers`,
    access: 'snapshots',
    handle: tickersSnapshot,
    doc: {
      summary: 'Snapshots of tickers',
      description: `The snapshot of each symbol of \`tickers\` that has one, or of every symbol (by symbol, up to ${MAX_ALL_SNAPSHOTS}), as Massive's GET /v2/snapshot/locale/us/markets/stocks/tickers answers them.`,
      query: TICKERS_PARAMS,
      response: object({
        status: { const: 'OK' },
        count: int('How many snapshots `tickers` holds.'),
        tickers: arr(SNAPSHOT_SCHEMA),
        request_id: str('This request; also the X-Request-Id header.'),
      }),
    },
  },
  {
    method: 'GET',
    path: `${SNAPSHOTS_PATH}/tickers/:ticker`,
    access: 'snapshots',
    async handle(ctx, url, params) {
      const ticker = symbolParam('ticker', params.ticker!);
      parseQuery({}, url.searchParams);
      await holdRows(ctx, 'Snapshot', 1);
      const found = (await snapshotsOf(ctx.db, [ticker])).get(ticker);
      if (!found) throw unknownSymbol('snapshot', ticker);
      return json({ status: 'OK', request_id: ctx.requestId, ticker: snapshotRecord(found) });
    },
    doc: {
      summary: 'Snapshot of a ticker',
      description:
        "One symbol's last trade and quote, latest minute bar, day bar and previous day's bar, as Massive's GET /v2/snapshot/locale/us/markets/stocks/tickers/{stocksTicker} answers them; 404 for a symbol without one.",
      path: TICKER_PATH,
      response: object({
        status: { const: 'OK' },
        request_id: str('This request; also the X-Request-Id header.'),
        ticker: SNAPSHOT_SCHEMA,
      }),
    },
  },
  {
    method: 'GET',
    path: `${SNAPSHOTS_PATH}/:direction`,
    access: 'snapshots',
    async handle(ctx, url, params) {
      const direction = params.direction!.toLowerCase();
      if (direction !== 'gainers' && direction !== 'losers')
        throw badParam('direction', 'gainers or losers', params.direction!);
      parseQuery(OTC_PARAMS, url.searchParams);
      await holdRows(ctx, 'Snapshot', 20);
      const tickers = (await movers(ctx.db, direction)).map(snapshotRecord);
      return json({ status: 'OK', tickers, request_id: ctx.requestId });
    },
    doc: {
      summary: 'Gainers and losers',
      description:
        "The 20 symbols up (gainers) or down (losers) the most since the previous day's close, among those that traded 10,000 shares or more today, as Massive's GET /v2/snapshot/locale/us/markets/stocks/{direction} answers them.",
      path: {
        direction: {
          type: 'string',
          required: true,
          enum: ['gainers', 'losers'],
          description: '`gainers` or `losers`.',
        },
      },
      query: OTC_PARAMS,
      response: object({
        status: { const: 'OK' },
        tickers: arr(SNAPSHOT_SCHEMA),
        request_id: str('This request; also the X-Request-Id header.'),
      }),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v2/last/trade/:ticker',
    access: 'trades',
    async handle(ctx, url, params) {
      const ticker = symbolParam('ticker', params.ticker!);
      parseQuery({}, url.searchParams);
      await holdRows(ctx, 'Trade', 1);
      const last = (await latestTrades(ctx.db, [ticker])).get(ticker);
      if (!last) throw unknownSymbol('trade', ticker);
      return json({ status: 'OK', request_id: ctx.requestId, results: lastTradeRecord(last) });
    },
    doc: {
      summary: 'Last trade',
      description:
        "A symbol's newest stored trade by SIP timestamp, then sequence number, as Massive's GET /v2/last/trade/{stocksTicker} answers it; 404 without one. The participant and TRF timestamps are not stored, so `y` and `f` are absent.",
      path: TICKER_PATH,
      response: lastEnvelope(
        object({
          T: str('The ticker symbol.'),
          c: arr(int(), 'Trade condition codes.'),
          i: str('Trade id.'),
          p: num('Price.'),
          q: int('Sequence number.'),
          s: num('Size.'),
          ds: str('Size as a decimal string.'),
          t: int('SIP timestamp, nanoseconds (every digit).'),
          x: int('Exchange id.'),
          z: int('Tape.'),
        }),
      ),
    },
  },
  {
    method: 'GET',
    path: '/stocks/v2/last/nbbo/:ticker',
    access: 'quotes',
    async handle(ctx, url, params) {
      const ticker = symbolParam('ticker', params.ticker!);
      parseQuery({}, url.searchParams);
      await holdRows(ctx, 'Quote', 1);
      const last = (await latestQuotes(ctx.db, [ticker])).get(ticker);
      if (!last) throw unknownSymbol('quote', ticker);
      return json({ status: 'OK', request_id: ctx.requestId, results: lastQuoteRecord(last) });
    },
    doc: {
      summary: 'Last quote (NBBO)',
      description:
        "A symbol's newest stored quote by SIP timestamp, then sequence number, as Massive's GET /v2/last/nbbo/{stocksTicker} answers it; 404 without one. The participant and TRF timestamps and indicators are not stored, so `y`, `f` and `i` are absent.",
      path: TICKER_PATH,
      response: lastEnvelope(
        object({
          T: str('The ticker symbol.'),
          P: num('Ask price.'),
          S: num('Ask size.'),
          X: int('Ask exchange id.'),
          c: arr(int(), 'Quote condition codes.'),
          p: num('Bid price.'),
          q: int('Sequence number.'),
          s: num('Bid size.'),
          t: int('SIP timestamp, nanoseconds (every digit).'),
          x: int('Bid exchange id.'),
          z: int('Tape.'),
        }),
      ),
    },
  },
];
