// Query.marketStatus and Query.marketCalendar: the US stock market's calendar, computed from
// domain/market-calendar.ts at the request's time (ctx.now); marketStatus is the GraphQL twin of
// GET /stocks/v1/marketstatus/now (rest/calendar.ts).
import { builder } from '../builder.js';
import {
  CALENDAR_SPAN,
  eventsBetween,
  sessionsOf,
  type DayStatus,
  type Interval,
  type Sessions,
} from '../domain/market-calendar.js';
import {
  marketStatusAt,
  type CurrencyStatus,
  type ExchangeStatus,
  type MarketStatus,
} from '../domain/market-status.js';
import { AppError } from '../errors.js';
import { listOf } from './common.js';

/** The most days one marketCalendar answers: a year, leap day included. */
export const MAX_CALENDAR_DAYS = 366;

const DAY_MS = 86_400_000;

const MarketStateEnum = builder.enumType('MarketState', {
  description: 'Where the market is in its day (REST `market`, in lower case with a hyphen).',
  values: {
    OPEN: { value: 'open', description: 'The regular session.' },
    EXTENDED_HOURS: { value: 'extended-hours', description: 'The pre-market or the after-hours session.' },
    CLOSED: { value: 'closed', description: 'No session: night, a weekend or a holiday.' },
  } as const satisfies Record<string, { value: ExchangeStatus; description: string }>,
});

const MarketStatusExchanges = builder.objectRef<MarketStatus['exchanges']>('MarketStatusExchanges').implement({
  description: "Each exchange's state.",
  fields: (t) => ({
    nyse: t.field({ type: MarketStateEnum, description: 'The New York Stock Exchange.', resolve: (e) => e.nyse }),
    nasdaq: t.field({ type: MarketStateEnum, description: 'Nasdaq.', resolve: (e) => e.nasdaq }),
    otc: t.field({
      type: MarketStateEnum,
      description: "The OTC market: OPEN in the exchanges' regular session, CLOSED otherwise (never EXTENDED_HOURS).",
      resolve: (e) => e.otc,
    }),
  }),
});

const CurrencyStateEnum = builder.enumType('CurrencyMarketState', {
  description: 'Whether a currency market trades (REST `currencies.*`, in lower case).',
  values: {
    OPEN: { value: 'open', description: 'It trades.' },
    CLOSED: { value: 'closed', description: 'It does not trade: the forex weekend.' },
  } as const satisfies Record<string, { value: CurrencyStatus; description: string }>,
});

const MarketStatusCurrencies = builder.objectRef<MarketStatus['currencies']>('MarketStatusCurrencies').implement({
  description: 'The currency markets (REST `currencies`).',
  fields: (t) => ({
    crypto: t.field({ type: CurrencyStateEnum, description: 'Crypto: always OPEN.', resolve: (c) => c.crypto }),
    fx: t.field({
      type: CurrencyStateEnum,
      description: 'Forex: OPEN from Sunday 17:00 to Friday 17:00 New York, CLOSED over the weekend.',
      resolve: (c) => c.fx,
    }),
  }),
});

const MarketStatusRef = builder.objectRef<MarketStatus>('MarketStatus').implement({
  description:
    "Whether the US stock market is open, as Massive's GET /v1/marketstatus/now answers it for NYSE, Nasdaq and OTC, with the currency markets (index groups keep their own hours and are left out).",
  fields: (t) => ({
    market: t.field({ type: MarketStateEnum, description: 'The market as a whole.', resolve: (s) => s.market }),
    earlyHours: t.exposeBoolean('earlyHours', { description: 'In the pre-market session (04:00-09:30 New York).' }),
    afterHours: t.exposeBoolean('afterHours', {
      description: 'In the after-hours session (16:00-20:00 New York; 13:00-17:00 on an early close).',
    }),
    serverTime: t.field({
      type: 'DateTime',
      description: 'The time answered for, to the second (REST `serverTime`, written there in New York time).',
      resolve: (s) => new Date(Date.parse(s.serverTime)),
    }),
    exchanges: t.field({
      type: MarketStatusExchanges,
      description: 'NYSE and Nasdaq, which keep the same hours, and OTC.',
      resolve: (s) => s.exchanges,
    }),
    currencies: t.field({
      type: MarketStatusCurrencies,
      description: 'Crypto and forex.',
      resolve: (s) => s.currencies,
    }),
  }),
});

builder.queryField('marketStatus', (t) =>
  t.field({
    authScopes: { entitled: 'calendar' },
    nullable: true,
    type: MarketStatusRef,
    description: 'The US stock market now (REST GET /stocks/v1/marketstatus/now).',
    resolve: (_root, _args, ctx) => marketStatusAt(ctx.now()),
  }),
);

/** One day of the calendar. */
interface MarketDay {
  date: string;
  status: DayStatus | 'open';
  holiday: string | undefined;
  sessions: Sessions | undefined;
}

const MarketDayStatusEnum = builder.enumType('MarketDayStatus', {
  description: "A day's trading.",
  values: {
    OPEN: { value: 'open', description: 'A full trading day.' },
    EARLY_CLOSE: { value: 'early-close', description: 'The regular session closes at 13:00 New York.' },
    CLOSED: { value: 'closed', description: 'No trading: a weekend or a holiday.' },
  } as const satisfies Record<string, { value: MarketDay['status']; description: string }>,
});

const TradingSession = builder.objectRef<Interval>('TradingSession').implement({
  description: 'A session of a trading day: from `start` (included) to `end` (excluded).',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'When it opens.', resolve: (i) => new Date(i.start) }),
    end: t.field({ type: 'DateTime', description: 'When it closes.', resolve: (i) => new Date(i.end) }),
  }),
});

const MarketDayRef = builder.objectRef<MarketDay>('MarketDay').implement({
  description: "A day of the NYSE's and Nasdaq's calendar, its sessions in New York time (given in UTC).",
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The day, in New York.', resolve: (d) => d.date }),
    status: t.field({
      type: MarketDayStatusEnum,
      description: 'Open, closing early or closed.',
      resolve: (d) => d.status,
    }),
    holiday: t.string({
      nullable: true,
      description:
        "The holiday that closes the market or closes it early, as Massive's /v1/marketstatus/upcoming names it; null on other days.",
      resolve: (d) => d.holiday,
    }),
    preMarket: t.field({
      type: TradingSession,
      nullable: true,
      description: '04:00 to 09:30; null on a closed day.',
      resolve: (d) => d.sessions?.preMarket,
    }),
    regular: t.field({
      type: TradingSession,
      nullable: true,
      description: '09:30 to 16:00 (13:00 on an early close); null on a closed day.',
      resolve: (d) => d.sessions?.regular,
    }),
    afterHours: t.field({
      type: TradingSession,
      nullable: true,
      description: 'Four hours from the close; null on a closed day.',
      resolve: (d) => d.sessions?.afterHours,
    }),
  }),
});

/** Every day from `from` to `to`, both included, with its holiday and sessions. */
function marketDays(from: string, to: string): MarketDay[] {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value < CALENDAR_SPAN.from || value > CALENDAR_SPAN.to)
      throw new AppError(
        'BAD_REQUEST',
        `argument "${name}" must be a date from ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}; got ${value}`,
      );
  }
  const first = Date.parse(`${from}T00:00:00Z`);
  const days = (Date.parse(`${to}T00:00:00Z`) - first) / DAY_MS + 1;
  if (days < 1) throw new AppError('BAD_REQUEST', `argument "from" (${from}) is after "to" (${to})`);
  if (days > MAX_CALENDAR_DAYS)
    throw new AppError(
      'BAD_REQUEST',
      `arguments "from" and "to" span at most ${MAX_CALENDAR_DAYS} days, both included; got ${days} (${from} to ${to})`,
    );
  const holidays = new Map(eventsBetween(from, to).map((e) => [e.date, e.name]));
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    const sessions = sessionsOf(date);
    return {
      date,
      status: sessions ? (sessions.earlyClose ? 'early-close' : 'open') : 'closed',
      holiday: holidays.get(date),
      sessions,
    };
  });
}

builder.queryField('marketCalendar', (t) =>
  t.field({
    authScopes: { entitled: 'calendar' },
    nullable: true,
    type: [MarketDayRef],
    description: `Every day from \`from\` to \`to\` (both included, at most ${MAX_CALENDAR_DAYS} days, ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}): open, closing early or closed, with its holiday and its sessions.`,
    extensions: listOf(MAX_CALENDAR_DAYS),
    args: {
      from: t.arg({ type: 'Date', required: true, description: 'The first day, YYYY-MM-DD.' }),
      to: t.arg({ type: 'Date', required: true, description: 'The last day, YYYY-MM-DD.' }),
    },
    resolve: (_root, args) => marketDays(args.from, args.to),
  }),
);
