import { exposeRecordFields } from './record-fields.js';
import { TRADE_FIELDS } from '../domain/records/trade.js';
import { builder } from '../builder.js';
import { tradeTopic } from '../runtime/events.js';
import { children, computed, firstOf } from '../graphql/plan/declare.js';
import type { Security as SecurityRow } from '../services/security.js';
import { fromNanos, ticksBySymbol } from '../services/tick.js';
import type { Trade as TradeRow } from '../services/trade.js';
import { connectionType, liveEvents, tickNodeId } from './common.js';
import { tickArgs, tickCountField, tickList, tickConnection, tickFeed, tickSymbolArgs, type TickArgs } from './tick.js';
import { Security } from './security.js';
import { addStreamFields, REPLAY_WORK, streamArgs, streamOf } from './stream.js';

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

addStreamFields(Trade);

export const TradeConnection = connectionType(Trade, 'TradeConnection', tickCountField('trades'));

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
}));

builder.subscriptionField('tradeAdded', (t) =>
  t.field({
    authScopes: { entitled: 'trades' },
    type: Trade,
    description:
      'Each new trade of one symbol (`symbol`) or of a watchlist (`symbols`) as it is stored (by an import on any instance), from the moment of subscribing. A watchlist is one subscription; its symbols count apart (docs/graphql.md#subscriptions).',
    args: { ...tickSymbolArgs, ...streamArgs },
    extensions: { work: REPLAY_WORK },
    subscribe: (_root, args, ctx) =>
      liveEvents<TradeRow>(ctx, 'trades', { ...tickFeed(args, tradeTopic), ...streamOf(args, ctx.request) }),
    resolve: (trade) => trade,
  }),
);
