// Snapshots and movers (services/snapshot.ts): the same stored rows the REST routes answer
// (rest/snapshot.ts, test/rest/snapshot.test.ts compares them), read in one statement per request.
import { builder } from '../builder.js';
import { MAX_SYMBOLS, parseSymbolList } from '../domain/symbols.js';
import { fromMap, loaderName } from '../graphql/loaders.js';
import type { Security as SecurityRow } from '../services/security.js';
import { movers, MOVERS, snapshotsOf, type Snapshot } from '../services/snapshot.js';
import { fromNanos } from '../services/tick.js';
import { BarRef } from './bar.js';
import { listOf } from './common.js';
import { Security } from './security.js';

interface LastTrade {
  at: bigint;
  id: string;
  price: number;
  size: number;
  exchange: number;
  conditions: number[];
}
interface LastQuote {
  at: bigint;
  bidPrice: number;
  bidSize: number;
  bidExchange: number;
  askPrice: number;
  askSize: number;
  askExchange: number;
}

/** The SIP timestamp of a last trade or quote, exact and as a date-time: the two fields each has. */
function stampFields<T extends { at: bigint }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, T>,
) {
  return {
    sipTimestamp: t.field({
      type: 'BigInt',
      description: 'SIP timestamp in nanoseconds since the epoch (exact digits).',
      resolve: (r) => r.at,
    }),
    time: t.field({
      type: 'DateTime',
      description: 'The SIP timestamp as a date-time (millisecond precision).',
      resolve: (r) => fromNanos(r.at),
    }),
  };
}

const SnapshotTrade = builder.objectRef<LastTrade>('SnapshotTrade').implement({
  description: "A symbol's last trade: the newest by SIP timestamp, then sequence number.",
  fields: (t) => ({
    ...stampFields(t),
    tradeId: t.exposeString('id', { description: 'The trade id given by the exchange.' }),
    price: t.exposeFloat('price', { description: 'Trade price.' }),
    size: t.exposeFloat('size', { description: 'Number of shares traded.' }),
    exchange: t.exposeInt('exchange', { description: 'Exchange id.' }),
    conditions: t.exposeIntList('conditions', { description: 'Trade condition codes.' }),
  }),
});

const SnapshotQuote = builder.objectRef<LastQuote>('SnapshotQuote').implement({
  description: "A symbol's last quote (NBBO): the newest by SIP timestamp, then sequence number.",
  fields: (t) => ({
    ...stampFields(t),
    bidPrice: t.exposeFloat('bidPrice', { description: 'Best bid price.' }),
    bidSize: t.exposeFloat('bidSize', { description: 'Shares bid.' }),
    bidExchange: t.exposeInt('bidExchange', { description: 'Exchange id of the best bid.' }),
    askPrice: t.exposeFloat('askPrice', { description: 'Best ask price.' }),
    askSize: t.exposeFloat('askSize', { description: 'Shares offered.' }),
    askExchange: t.exposeInt('askExchange', { description: 'Exchange id of the best ask.' }),
  }),
});

export const SnapshotRef = builder.objectRef<Snapshot>('Snapshot').implement({
  authScopes: { entitled: 'snapshots' },
  description:
    "The state of one symbol's market now: last trade and quote, latest minute bar, the day's bar, the previous trading day's regular-session bar, and the change since its close (docs/graphql.md#snapshots).",
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Ticker symbol.' }),
    lastTrade: t.field({
      type: SnapshotTrade,
      nullable: true,
      description: 'The last trade, if any is stored.',
      resolve: (s) =>
        s.tradeAt === null
          ? null
          : {
              at: s.tradeAt,
              id: s.tradeId!,
              price: s.tradePrice!,
              size: s.tradeSize!,
              exchange: s.tradeExchange!,
              conditions: s.tradeConditions ?? [],
            },
    }),
    lastQuote: t.field({
      type: SnapshotQuote,
      nullable: true,
      description: 'The last quote, if any is stored.',
      resolve: (s) =>
        s.quoteAt === null
          ? null
          : {
              at: s.quoteAt,
              bidPrice: s.bidPrice!,
              bidSize: s.bidSize!,
              bidExchange: s.bidExchange!,
              askPrice: s.askPrice!,
              askSize: s.askSize!,
              askExchange: s.askExchange!,
            },
    }),
    minute: t.field({
      type: BarRef,
      nullable: true,
      description: 'The latest minute bar.',
      resolve: (s) => s.minuteBar,
    }),
    day: t.field({
      type: BarRef,
      nullable: true,
      description: "The bar of the latest minute bar's exchange day, pre-market to after-hours.",
      resolve: (s) => s.dayBar,
    }),
    previousDay: t.field({
      type: BarRef,
      nullable: true,
      description: "The previous trading day's regular-session bar.",
      resolve: (s) => s.prevDayBar,
    }),
    todaysChange: t.exposeFloat('todaysChange', {
      nullable: true,
      description: "The last trade's price (the day's close without one) minus the previous day's close.",
    }),
    todaysChangePerc: t.exposeFloat('todaysChangePerc', {
      nullable: true,
      description: "`todaysChange` as a percentage of the previous day's close.",
    }),
    updated: t.field({
      type: 'BigInt',
      description: 'When the last trade or quote was, in nanoseconds since the epoch.',
      resolve: (s) => s.updated,
    }),
  }),
});

const MoverDirection = builder.enumType('MoverDirection', {
  description: "Which movers: up or down the most since the previous day's close.",
  values: {
    GAINERS: { value: 'gainers', description: 'Up the most, largest rise first.' },
    LOSERS: { value: 'losers', description: 'Down the most, largest fall first.' },
  } as const,
});

builder.prismaObjectFields(Security, (t) => ({
  snapshot: t.field({
    authScopes: { entitled: 'snapshots' },
    type: SnapshotRef,
    nullable: true,
    description: "This security's snapshot, if its symbol has one.",
    resolve: (s: SecurityRow, _args, ctx) =>
      ctx.loaders
        .get(
          loaderName('snapshot', {}),
          fromMap((symbols: readonly string[]) => snapshotsOf(ctx.db, symbols), null as Snapshot | null),
        )
        .load(s.symbol),
  }),
}));

builder.queryField('snapshots', (t) =>
  t.field({
    authScopes: { entitled: 'snapshots' },
    type: [SnapshotRef],
    nullable: { list: true, items: true },
    description: `The snapshot of each symbol of \`symbols\` (1 to ${MAX_SYMBOLS}), in the order given: null for a symbol without one.`,
    args: { symbols: t.arg.stringList({ required: true, description: 'Ticker symbols.' }) },
    extensions: listOf(MAX_SYMBOLS, 'symbols'),
    resolve: async (_root, args, ctx) => {
      const symbols = parseSymbolList(args.symbols, 'symbols');
      const found = await snapshotsOf(ctx.db, symbols);
      return symbols.map((s) => found.get(s) ?? null);
    },
  }),
);

builder.queryField('movers', (t) =>
  t.field({
    authScopes: { entitled: 'snapshots' },
    type: [SnapshotRef],
    nullable: true,
    description: `The ${MOVERS.count} symbols up (GAINERS) or down (LOSERS) the most since the previous day's close, among those that traded ${MOVERS.minVolume.toLocaleString('en-US')} shares or more on their day (Massive's rule).`,
    args: { direction: t.arg({ type: MoverDirection, required: true, description: 'Gainers or losers.' }) },
    extensions: listOf(MOVERS.count),
    resolve: (_root, args, ctx) => movers(ctx.db, args.direction),
  }),
);
