// Security.bars: aggregates of any size from the stored minute and day bars (services/bar.ts), the
// GraphQL twin of GET /stocks/v2/aggs/ticker/... (rest/bar.ts). Days and longer are every tier's,
// minutes and hours the pro tier's, checked where the timespan is read.
import { builder } from '../builder.js';
import { checkEntitled } from '../domain/entitlements.js';
import {
  BASE_BARS,
  barBound,
  barPage,
  basesPerBar,
  defaultSession,
  MAX_MULTIPLIER,
  type Bar,
  type Session,
  type Timespan,
} from '../services/bar.js';
import { AppError } from '../errors.js';
import { checkFirst, firstArg, readRange, type PageSize } from './common.js';
import { Security } from './security.js';

/** Bars one answer holds at most; for the next ones, ask again from the bucket after the last. */
const BARS_PAGE: PageSize = { default: 5_000, max: 5_000 };

const TimespanEnum = builder.enumType('Timespan', {
  description: 'The unit of a bar.',
  values: {
    MINUTE: { value: 'minute' },
    HOUR: { value: 'hour' },
    DAY: { value: 'day', description: 'An exchange day (America/New_York).' },
    WEEK: { value: 'week', description: 'Sunday to Saturday.' },
    MONTH: { value: 'month' },
    QUARTER: { value: 'quarter' },
    YEAR: { value: 'year' },
  } as const,
});

const SessionEnum = builder.enumType('BarSession', {
  description: 'Which trades a bar holds.',
  values: {
    REGULAR: { value: 'regular', description: '09:30-16:00 New York (13:00 on an early close).' },
    EXTENDED: {
      value: 'extended',
      description: "Pre-market to after-hours, 04:00-20:00 New York (Massive's intraday bars).",
    },
  } as const,
});

const BarRef = builder.objectRef<Bar>('Bar').implement({
  description:
    'OHLCV aggregate of the trades in one bucket, each counted toward the parts its condition codes let it set (docs/graphql.md#price-history).',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the bucket.', resolve: (b) => new Date(b.t) }),
    startTimestamp: t.field({
      type: 'BigInt',
      description: 'Start of the bucket in nanoseconds since the epoch.',
      resolve: (b) => BigInt(b.t) * 1_000_000n,
    }),
    open: t.float({ description: 'Price of the first eligible trade.', resolve: (b) => b.o! }),
    high: t.float({ description: 'Highest price.', resolve: (b) => b.h! }),
    low: t.float({ description: 'Lowest price.', resolve: (b) => b.l! }),
    close: t.float({ description: 'Price of the last eligible trade.', resolve: (b) => b.c! }),
    volume: t.float({ description: 'Shares traded.', resolve: (b) => b.v }),
    vwap: t.float({
      description: 'Volume-weighted average price (0 when no trade carried volume).',
      resolve: (b) => b.vw ?? 0,
    }),
    trades: t.int({ description: 'Number of trades.', resolve: (b) => b.n }),
  }),
});

builder.prismaObjectFields(Security, (t) => ({
  bars: t.field({
    authScopes: { entitled: 'dayBars' },
    nullable: true,
    type: [BarRef],
    description:
      'Bars of `multiplier` × `timespan` between `from` and `to`, oldest first, from the stored minute and day bars. A bucket without an eligible trade has no bar: a gap, never a zero bar. ' +
      `At most \`first\` bars (default and most ${BARS_PAGE.max}): for the next ones, ask again from the start of the bucket after the last bar. Minute and hour bars need the pro tier.`,
    args: {
      first: t.arg.int(firstArg(BARS_PAGE)),
      timespan: t.arg({ type: TimespanEnum, required: true, description: 'The unit of a bar.' }),
      multiplier: t.arg.int({ description: `How many timespans one bar spans, 1 to ${MAX_MULTIPLIER}; default 1.` }),
      session: t.arg({
        type: SessionEnum,
        description: 'Which trades the bars hold; default EXTENDED for minutes and hours, REGULAR for days and longer.',
      }),
      from: t.arg({
        type: 'DateTime',
        required: true,
        description: 'Start of the range; a date alone is that exchange day from its start, in New York time.',
      }),
      to: t.arg({
        type: 'DateTime',
        required: true,
        description:
          'End of the range (inclusive); a date alone is that exchange day through its end, in New York time.',
      }),
    },
    resolve: async (security, args, ctx) => {
      const timespan = args.timespan as Timespan;
      if (timespan === 'minute' || timespan === 'hour') checkEntitled(ctx.caller, 'bars');
      const multiplier = args.multiplier ?? 1;
      if (!Number.isInteger(multiplier) || multiplier < 1 || multiplier > MAX_MULTIPLIER)
        throw new AppError(
          'BAD_REQUEST',
          `argument "multiplier" must be an integer from 1 to ${MAX_MULTIPLIER}; got ${multiplier}`,
        );
      // in order as given (a 400 naming them), then each a day in New York where it is a date alone
      readRange(args.from, args.to);
      const first = checkFirst(args.first, BARS_PAGE);
      // enough base bars for `first` whole bars, and never more than one answer may read
      const limit = Math.min(BASE_BARS.max, first * basesPerBar(timespan, multiplier));
      const page = await barPage(ctx.db, {
        symbol: security.symbol,
        multiplier,
        timespan,
        from: barBound(args.from, 'start'),
        to: barBound(args.to, 'end'),
        session: (args.session as Session | null | undefined) ?? defaultSession(timespan),
        sort: 'asc',
        limit,
        factors: [],
      });
      return page.bars.slice(0, first);
    },
  }),
}));
