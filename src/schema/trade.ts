import { exposeRecordFields } from './record-fields.js';
import { TRADE_FIELDS } from '../domain/records/trade.js';
import { builder } from '../builder.js';
import { tradeTopic } from '../runtime/events.js';
import { fromMap, loaderName } from '../graphql/loaders.js';
import { children, computed, firstOf } from '../graphql/plan/declare.js';
import type { Security as SecurityRow } from '../services/security.js';
import { clampNanos, fromNanos, ticksBySymbol, toNanos } from '../services/tick.js';
import {
  barsFor,
  MAX_BAR_BUCKETS,
  MAX_BARS,
  type Bar,
  type Timespan,
  type Trade as TradeRow,
} from '../services/trade.js';
import { checkFirst, connectionType, firstArg, readRange, liveEvents, tickNodeId, type PageSize } from './common.js';
import { tickArgs, tickCountField, tickList, tickConnection, tickFeed, tickSymbolArgs, type TickArgs } from './tick.js';
import { Security } from './security.js';

export const Trade = builder.prismaNode('Trade', {
  // also reached through node(id): the type checks the entitlement itself
  authScopes: { entitled: 'trades' },
  description: 'One trade of a stock.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'symbol_sequenceNumber' },
  findUnique: (id) => ({ symbol_sequenceNumber: tickNodeId(id, 'Trade') }),
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Ticker symbol.' }),
    tradeId: t.exposeString('tradeId', { description: 'The trade id given by the exchange (REST field `id`).' }),
    ...exposeRecordFields(t, TRADE_FIELDS),
    conditions: t.field({
      type: ['Int'],
      description: 'Trade condition codes.',
      resolve: (r) => r.conditions as number[],
    }),
    time: t.field({
      type: 'DateTime',
      description: 'The SIP timestamp as a date-time (millisecond precision).',
      ...computed(['sipTimestamp'], (r: TradeRow) => fromNanos(r.sipTimestamp)),
    }),
  }),
});

export const TradeConnection = connectionType(Trade, 'TradeConnection', tickCountField('trades'));

/** At most as many bars as a range may hold; `first` asks for fewer (and costs less). */
const BARS_PAGE: PageSize = { default: MAX_BARS, max: MAX_BARS };

const Timespan = builder.enumType('Timespan', {
  description: 'Bar width.',
  values: { MINUTE: { value: 'minute' }, HOUR: { value: 'hour' }, DAY: { value: 'day' } } as const,
});

const BarRef = builder.objectRef<Bar>('Bar').implement({
  description: 'OHLCV aggregate of the trades in one time bucket.',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the bucket (UTC).', resolve: (b) => fromNanos(b.start) }),
    startTimestamp: t.field({
      type: 'BigInt',
      description: 'Start of the bucket in nanoseconds since the epoch.',
      resolve: (b) => b.start,
    }),
    open: t.exposeFloat('open', { description: 'Price of the first trade.' }),
    high: t.exposeFloat('high', { description: 'Highest price.' }),
    low: t.exposeFloat('low', { description: 'Lowest price.' }),
    close: t.exposeFloat('close', { description: 'Price of the last trade.' }),
    volume: t.exposeFloat('volume', { description: 'Shares traded.' }),
    vwap: t.exposeFloat('vwap', { description: 'Volume-weighted average price.' }),
    trades: t.exposeInt('trades', { description: 'Number of trades.' }),
  }),
});

builder.queryField('trades', (t) =>
  t.field({
    authScopes: { entitled: 'trades' },
    nullable: true,
    type: TradeConnection,
    description:
      'Trades of one symbol (`symbol`) or of a watchlist (`symbols`, as one list: by SIP timestamp, then sequence number, then symbol), newest first unless `order: ASC`.',
    args: { ...tickSymbolArgs, ...tickArgs },
    resolve: (_root, args, ctx) => tickConnection(ctx, 'Trade', args),
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  trades: t.field({
    authScopes: { entitled: 'trades' },
    nullable: true,
    type: TradeConnection,
    description: "This security's trades, newest first unless `order: ASC`.",
    args: tickArgs,
    ...children<SecurityRow, TickArgs>('symbol', (args) => tickList('Trade', args)),
  }),
  latestTrade: t.field({
    authScopes: { entitled: 'trades' },
    type: Trade,
    nullable: true,
    description: 'The most recent trade, if any.',
    ...firstOf<SecurityRow, unknown, TradeRow>('symbol', () => ticksBySymbol('Trade', {}, 'desc')),
  }),
  bars: t.field({
    authScopes: { entitled: 'trades' },
    nullable: true,
    type: [BarRef],
    description:
      `OHLCV bars aggregated from trades between \`from\` and \`to\` (a range of at most ${MAX_BAR_BUCKETS} buckets), oldest first; empty buckets are left out. ` +
      `At most \`first\` bars (default and most ${MAX_BARS}): for the next ones, ask again from the start of the bucket after the last bar.`,
    args: {
      first: t.arg.int(firstArg(BARS_PAGE)),
      timespan: t.arg({ type: Timespan, required: true, description: 'Bar width.' }),
      from: t.arg({ type: 'DateTime', required: true, description: 'Start of the range.' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'End of the range (inclusive).' }),
    },
    resolve: async (security, args, ctx) => {
      const range = readRange(args.from, args.to);
      const first = checkFirst(args.first, BARS_PAGE);
      const from = toNanos(range.from);
      const to = clampNanos(toNanos(range.to) + 999_999n);
      const timespan = args.timespan as Timespan;
      const bars = await ctx.loaders
        .get(
          loaderName('bars', { timespan, from, to, first }),
          fromMap((symbols: readonly string[]) => barsFor(ctx.db, symbols, timespan, from, to, first), [] as Bar[]),
        )
        .load(security.symbol);
      return bars;
    },
  }),
}));

builder.subscriptionField('tradeAdded', (t) =>
  t.field({
    authScopes: { entitled: 'trades' },
    type: Trade,
    description:
      'Each new trade of one symbol (`symbol`) or of a watchlist (`symbols`) as it is stored (by an import on any instance), from the moment of subscribing. A watchlist is one subscription; its symbols count apart (docs/graphql.md#subscriptions).',
    args: tickSymbolArgs,
    subscribe: (_root, args, ctx) => liveEvents<TradeRow>(ctx, 'trades', tickFeed(args, tradeTopic)),
    resolve: (trade) => trade,
  }),
);
