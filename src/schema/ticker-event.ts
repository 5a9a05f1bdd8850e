import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { fromMap } from '../graphql/loaders.js';
import {
  MAX_SYMBOL_PERIODS,
  symbolHistories,
  symbolPeriods,
  type SymbolHistory,
  type SymbolPeriod,
} from '../services/ticker-event.js';
import { listOf } from './common.js';
import { Security } from './security.js';

export const SymbolPeriodRef = builder.objectRef<SymbolPeriod>('SymbolPeriod').implement({
  description:
    "One symbol a security traded under, and when (REST GET /stocks/vX/reference/tickers/{id}/events, Massive's ticker events): the security's id stays the same through every change.",
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The ticker symbol.' }),
    startDate: t.expose('startDate', {
      type: 'Date',
      nullable: true,
      description:
        'Its first exchange day under the symbol; for a security without a recorded change, its list date (null when unknown).',
    }),
    endDate: t.expose('endDate', {
      type: 'Date',
      nullable: true,
      description: "The day before the next symbol's first day; null for the symbol it has now.",
    }),
  }),
});

/** A security's stored history, through one loader of every security the request asks for. */
function historyOf(ctx: Context, securityId: string): Promise<SymbolHistory[]> {
  return ctx.loaders
    .get(
      'symbolHistory',
      fromMap((ids: readonly string[]) => symbolHistories(ctx.db, ids), [] as SymbolHistory[]),
    )
    .load(securityId);
}

builder.prismaObjectFields(Security, (t) => ({
  symbolHistory: t.field({
    authScopes: { entitled: 'tickerEvents' },
    nullable: true,
    type: [SymbolPeriodRef],
    description: `The symbols this security has traded under, newest first (its symbol now is the first), at most ${MAX_SYMBOL_PERIODS}: one symbol since its list date when none changed.`,
    extensions: listOf(MAX_SYMBOL_PERIODS),
    resolve: async (security, _args, ctx) => symbolPeriods(security, await historyOf(ctx, security.id)),
  }),
}));
