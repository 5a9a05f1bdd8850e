import { exposeRecordFields } from './record-fields.js';
import { QUOTE_FIELDS } from '../domain/records/quote.js';
import { builder } from '../builder.js';
import { quoteTopic } from '../runtime/events.js';
import type { Quote as QuoteRow } from '../services/quote.js';
import type { Security as SecurityRow } from '../services/security.js';
import { fromNanos, ticksBySymbol } from '../services/tick.js';
import { children, computed, firstOf } from '../graphql/plan/declare.js';
import { connectionType, liveEvents, tickNodeId } from './common.js';
import { Security } from './security.js';
import { addStreamFields, REPLAY_WORK, streamArgs, streamOf } from './stream.js';
import { tickArgs, tickCountField, tickList, tickFeed, tickSymbolArgs, tickConnection, type TickArgs } from './tick.js';

export const Quote = builder.prismaNode('Quote', {
  // also reached through node(id): the type checks the entitlement itself
  authScopes: { entitled: 'quotes' },
  description: 'One NBBO quote of a stock.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'symbol_sequenceNumber' },
  findUnique: (id) => ({ symbol_sequenceNumber: tickNodeId(id, 'Quote') }),
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Ticker symbol.' }),
    ...exposeRecordFields(t, QUOTE_FIELDS),
    conditions: t.field({
      type: ['Int'],
      description: 'Quote condition codes.',
      resolve: (r) => r.conditions as number[],
    }),
    time: t.field({
      type: 'DateTime',
      description: 'The SIP timestamp as a date-time (millisecond precision).',
      ...computed(['sipTimestamp'], (r: QuoteRow) => fromNanos(r.sipTimestamp)),
    }),
  }),
});

addStreamFields(Quote);

export const QuoteConnection = connectionType(Quote, 'QuoteConnection', tickCountField('quotes'));

builder.queryField('quotes', (t) =>
  t.field({
    authScopes: { entitled: 'quotes' },
    nullable: true,
    type: QuoteConnection,
    description:
      'Quotes of one symbol (`symbol`) or of a watchlist (`symbols`, as one list: by SIP timestamp, then sequence number, then symbol), newest first unless `order: ASC`.',
    args: { ...tickSymbolArgs, ...tickArgs },
    resolve: (_root, args, ctx) => tickConnection(ctx, 'Quote', args),
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  quotes: t.field({
    authScopes: { entitled: 'quotes' },
    nullable: true,
    type: QuoteConnection,
    description: "This security's quotes, newest first unless `order: ASC`.",
    args: tickArgs,
    ...children<SecurityRow, TickArgs>('symbol', (args) => tickList('Quote', args)),
  }),
  latestQuote: t.field({
    authScopes: { entitled: 'quotes' },
    type: Quote,
    nullable: true,
    description: 'The most recent quote, if any.',
    ...firstOf<SecurityRow, unknown, QuoteRow>('symbol', () => ticksBySymbol('Quote', {}, 'desc')),
  }),
}));

builder.subscriptionField('quoteAdded', (t) =>
  t.field({
    authScopes: { entitled: 'quotes' },
    type: Quote,
    description:
      'Each new quote of one symbol (`symbol`) or of a watchlist (`symbols`) as it is stored (by an import on any instance), from the moment of subscribing. A watchlist is one subscription; its symbols count apart (docs/graphql.md#subscriptions).',
    args: { ...tickSymbolArgs, ...streamArgs },
    extensions: { work: REPLAY_WORK },
    subscribe: (_root, args, ctx) =>
      liveEvents<QuoteRow>(ctx, 'quotes', { ...tickFeed(args, quoteTopic), ...streamOf(args, ctx.request) }),
    resolve: (quote) => quote,
  }),
);
