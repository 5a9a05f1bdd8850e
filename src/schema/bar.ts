// Security.bars: aggregates of any size from the stored minute and day bars (services/bar.ts), the
// GraphQL twin of GET /stocks/v2/aggs/ticker/... (rest/bar.ts). Days and longer are every tier's,
// minutes and hours the pro tier's, checked where the timespan is read.
import { builder } from '../builder.js';
import { checkEntitled } from '../domain/entitlements.js';
import { dateOfDay, dayNumber } from '../domain/bar-time.js';
import { adjustmentSet, FIRST_DAY, LAST_DAY, MAX_FACTORS, type AdjustmentName } from '../services/adjustment.js';
import {
  BASE_BARS,
  barBound,
  barCursor,
  barCursorStart,
  barHistory,
  today,
  type Factor,
  defaultSession,
  MAX_MULTIPLIER,
  type Bar,
  type Session,
} from '../services/bar.js';
import { basesPerBar, type Timespan } from '../services/bar-bucket.js';
import { groupedPage, type GroupedBar } from '../services/bar-day.js';
import { CALENDAR_SPAN, inCalendarSpan } from '../domain/market-calendar.js';
import { AppError } from '../errors.js';
import { FILL_POSITIONS } from '../services/bar-fill.js';
import type { SeriesSource } from '../services/indicator.js';
import type { Context } from '../context.js';
import {
  checkFirst,
  connection,
  connectionType,
  firstArg,
  keysetArgs,
  listOf,
  pagingArgs,
  readRange,
  type PageSize,
} from './common.js';
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

export const BarRef = builder.objectRef<Bar>('Bar').implement({
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

const AdjustmentEnum = builder.enumType('PriceAdjustment', {
  description: 'Which corporate actions prices are adjusted for (volumes: splits only).',
  values: {
    RAW: { value: 'raw', description: 'None: prices as quoted.' },
    SPLIT: { value: 'split', description: 'Splits.' },
    DIVIDEND: {
      value: 'dividend',
      description: 'Cash dividends (the CRSP method: by 1 - amount / the close before the ex-date).',
    },
    ALL: { value: 'all', description: 'Splits and cash dividends.' },
  } as const,
});

const FactorRef = builder.objectRef<Factor>('AdjustmentFactor').implement({
  description:
    'What the adjustment multiplied the bars of a stretch of exchange days by: divide by it to get the prices as quoted.',
  fields: (t) => ({
    from: t.string({
      nullable: true,
      description: 'The first day of the stretch; null: from the first bar.',
      resolve: (f) => (f.lo <= FIRST_DAY ? null : dateOfDay(f.lo)),
    }),
    to: t.string({
      nullable: true,
      description: 'The last day of the stretch; null: to the last bar.',
      resolve: (f) => (f.hi >= LAST_DAY ? null : dateOfDay(f.hi)),
    }),
    price: t.exposeFloat('price', { description: 'Prices were multiplied by this.' }),
    volume: t.exposeFloat('volume', { description: 'Volumes were multiplied by this.' }),
  }),
});

interface BarsAnswer {
  nodes: Bar[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  queryCount: number;
  factors: Factor[];
  /** Where the page's bars came from, for its indicators' warm-up (schema/indicator.ts). */
  source?: SeriesSource;
}

export const BarConnection = builder.objectRef<BarsAnswer>('BarConnection').implement({
  description: 'A page of bars, oldest first, with the adjustment factors applied to them.',
  fields: (t) => ({
    nodes: t.field({ type: [BarRef], resolve: (a) => a.nodes }),
    pageInfo: t.field({ type: builder.pageInfoRef(), resolve: (a) => a.pageInfo }),
    queryCount: t.exposeInt('queryCount', { description: 'The base bars (minute or day) the page was built from.' }),
    factors: t.field({
      type: [FactorRef],
      extensions: listOf(MAX_FACTORS),
      description: 'The adjustment factors by stretch of days (none: the prices are as quoted).',
      resolve: (a) => a.factors,
    }),
  }),
});

const cursorOf = (t: number) => barCursor(t);
const startOf = (cursor: string, argument: 'after' | 'before') => barCursorStart(cursor, argument);

/** The bars arguments as the resolver reads them (the enum values are the services' own). */
interface BarsArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  timespan: string;
  multiplier?: number | null;
  session?: string | null;
  adjustment?: readonly string[] | null;
  asOf?: string | null;
  fill?: boolean | null;
  from: Date;
  to: Date;
}

/** One page of Security.bars: forward by first/after, backward by last/before. */
async function barsAnswer(symbol: string, args: BarsArgs, ctx: Context): Promise<BarsAnswer> {
  const timespan = args.timespan as Timespan;
  if (timespan === 'minute' || timespan === 'hour') checkEntitled(ctx.caller, 'bars');
  const multiplier = args.multiplier ?? 1;
  if (!Number.isInteger(multiplier) || multiplier < 1 || multiplier > MAX_MULTIPLIER)
    throw new AppError(
      'BAD_REQUEST',
      `argument "multiplier" must be an integer from 1 to ${MAX_MULTIPLIER}; got ${multiplier}`,
    );
  if (args.first != null && args.last != null)
    throw new AppError('BAD_REQUEST', 'arguments "first" and "last" page one way each: give one of them');
  const backward = args.last != null || args.before != null;
  const size = checkFirst(backward ? args.last : args.first, BARS_PAGE, backward ? 'last' : 'first');
  // in order as given (a 400 naming them), then each a day in New York where it is a date alone
  readRange(args.from, args.to);
  const anchor = barBound(args.from, 'start');
  let from = anchor;
  let to = barBound(args.to, 'end');
  const after = args.after == null ? undefined : startOf(args.after, 'after');
  const before = args.before == null ? undefined : startOf(args.before, 'before');
  if (after !== undefined) from = Math.max(from, after + 1);
  if (before !== undefined) to = Math.min(to, before - 1);
  const adjustments = adjustmentSet((args.adjustment as AdjustmentName[] | null | undefined) ?? ['split']);
  if (!adjustments)
    throw new AppError('BAD_REQUEST', 'argument "adjustment": RAW cannot be combined with another adjustment');
  if (from > to)
    return {
      nodes: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      queryCount: 0,
      factors: [],
    };
  const session = (args.session as Session | null | undefined) ?? defaultSession(timespan);
  const page = await barHistory(ctx.db, {
    symbol,
    multiplier,
    timespan,
    from,
    to,
    // the buckets of every page on the grid of the range's start, whatever the cursor
    anchor,
    session,
    sort: backward ? 'desc' : 'asc',
    // enough base bars for `size` whole bars, and never more than one answer may read
    limit: Math.min(BASE_BARS.max, (size + 1) * basesPerBar(timespan, multiplier)),
    adjustments,
    asOf: args.asOf == null ? today(ctx.now()) : dayNumber(args.asOf),
    fill: args.fill ?? false,
  });
  // the bucket `after` names may come back partial (its base bars before the cursor are not read)
  const bars = page.bars.filter((b) => (after === undefined || b.t > after) && (before === undefined || b.t < before));
  const more = bars.length > size || page.next !== undefined;
  const nodes = bars.slice(0, size);
  if (backward) nodes.reverse();
  return {
    nodes,
    pageInfo: {
      hasNextPage: backward ? before !== undefined : more,
      hasPreviousPage: backward ? more : after !== undefined,
      startCursor: nodes.length ? cursorOf(nodes[0]!.t) : null,
      endCursor: nodes.length ? cursorOf(nodes.at(-1)!.t) : null,
    },
    queryCount: page.queryCount,
    factors: page.factors,
    source: { symbol, segments: page.segments, factors: page.factors, timespan, multiplier, session, anchor },
  };
}

builder.prismaObjectFields(Security, (t) => ({
  bars: t.field({
    authScopes: { entitled: 'dayBars' },
    nullable: true,
    type: BarConnection,
    description:
      'Bars of `multiplier` × `timespan` between `from` and `to`, oldest first, from the stored minute and day bars, across the symbols the security has traded under, adjusted by `adjustment` to the prices quoted on `asOf`. A bucket without an eligible trade has no bar: a gap, never a zero bar. ' +
      `Pages of \`first\` bars after \`after\`, or of \`last\` bars before \`before\` (default and most ${BARS_PAGE.max}). Minute and hour bars need the pro tier (docs/graphql.md#price-history).`,
    args: {
      first: t.arg.int(firstArg(BARS_PAGE)),
      after: t.arg.string({ description: 'A cursor of these bars: the bars after it.' }),
      last: t.arg.int({
        description: `How many bars before \`before\` (or the end of the range), 1 to ${BARS_PAGE.max}.`,
        extensions: { pageSize: BARS_PAGE },
      }),
      before: t.arg.string({ description: 'A cursor of these bars: the bars before it.' }),
      timespan: t.arg({ type: TimespanEnum, required: true, description: 'The unit of a bar.' }),
      multiplier: t.arg.int({ description: `How many timespans one bar spans, 1 to ${MAX_MULTIPLIER}; default 1.` }),
      session: t.arg({
        type: SessionEnum,
        description: 'Which trades the bars hold; default EXTENDED for minutes and hours, REGULAR for days and longer.',
      }),
      adjustment: t.arg({
        type: [AdjustmentEnum],
        description: "Which corporate actions prices are adjusted for; default [SPLIT] (as Massive's adjusted=true).",
      }),
      fill: t.arg.boolean({
        description: `A bar at the previous close, with volume 0 and trades 0, for each bucket of the sessions that no eligible trade set (buckets outside the sessions still have none); a filled range spans at most ${FILL_POSITIONS} session minutes or trading days. Default false.`,
      }),
      asOf: t.arg({
        type: 'Date',
        description: 'Prices as they were quoted on this exchange day; default today (New York).',
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
    resolve: (security, args, ctx) => barsAnswer(security.symbol, args as BarsArgs, ctx),
  }),
}));

// ---- Query.groupedDaily: every symbol's bar of one exchange day, the twin of REST's grouped daily
// (GET /stocks/v2/aggs/grouped/locale/us/market/stocks/{date}, services/bar-day.ts groupedDay).

/** Symbols one page of a grouped day holds. */
const GROUPED_PAGE: PageSize = { default: 100, max: 5_000 };

const GroupedDailyBar = builder.objectRef<GroupedBar>('GroupedDailyBar').implement({
  description: "One symbol's regular-session bar of an exchange day.",
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The ticker symbol it traded under that day.' }),
    bar: t.field({ type: BarRef, description: 'Its bar of the day.', resolve: (b) => b }),
  }),
});

const GroupedDailyConnection = connectionType(GroupedDailyBar, 'GroupedDailyBarConnection');

builder.queryField('groupedDaily', (t) =>
  t.field({
    authScopes: { entitled: 'dayBars' },
    nullable: true,
    type: GroupedDailyConnection,
    description:
      "Every symbol's regular-session bar of one exchange day, by symbol, as REST GET /stocks/v2/aggs/grouped/locale/us/market/stocks/{date} answers them (docs/graphql.md#price-history).",
    args: {
      date: t.arg({
        type: 'Date',
        required: true,
        description: `An exchange day, ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}.`,
      }),
      adjusted: t.arg.boolean({
        defaultValue: true,
        description:
          "Whether prices are adjusted for the splits after the day (volumes too) to today's terms, as Massive's `adjusted`; false: as they were quoted.",
      }),
      ...pagingArgs(GROUPED_PAGE),
    },
    resolve: async (_root, args, ctx) => {
      if (!inCalendarSpan(args.date))
        throw new AppError(
          'BAD_REQUEST',
          `argument "date" must be a date from ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}; got ${args.date}`,
        );
      const paging = keysetArgs(args, GROUPED_PAGE);
      return connection(
        await groupedPage(ctx.db, dayNumber(args.date), args.adjusted ?? true, today(ctx.now()), paging),
      );
    },
  }),
);
