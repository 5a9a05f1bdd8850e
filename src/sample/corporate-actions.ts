/**
 * The sample's corporate actions: a forward split, a reverse split, regular quarterly dividends on
 * four symbols, one special dividend, one ticker change, each on an exchange day of the two years of
 * day bars (sample/bars.ts lays the raw prices out around them: a price divides at a split and
 * drops by the amount at an ex-dividend date, so adjusted series run smoothly through them). Fixed,
 * not random: tests compute the adjusted prices around each by hand.
 */
import { nextTradingDay } from '../domain/market-calendar.js';

export interface SampleSplit {
  id: string;
  ticker: string;
  executionDate: string;
  splitFrom: number;
  splitTo: number;
}

export interface SampleDividend {
  id: string;
  ticker: string;
  cashAmount: number;
  currency: string;
  declarationDate: string;
  exDividendDate: string;
  payDate: string;
  recordDate: string;
  frequency: number;
  dividendType: 'CD' | 'SC';
}

/** A security's earlier symbol: `previous` until the day before `startDate`, `symbol` from it. */
export interface SampleTickerChange {
  symbol: string;
  previous: string;
  startDate: string;
}

/** The first exchange day on or after a date. */
const onOrAfter = (date: string) => nextTradingDay(previousDay(date));
const previousDay = (date: string) => new Date(Date.parse(date) - 86_400_000).toISOString().slice(0, 10);
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(date) + days * 86_400_000).toISOString().slice(0, 10);

export const SAMPLE_SPLITS: readonly SampleSplit[] = [
  // a 2-for-1 forward split, and a 1-for-10 reverse split of a low-priced stock
  { id: 'E-QNTR-2025-06', ticker: 'QNTR', executionDate: onOrAfter('2025-06-10'), splitFrom: 1, splitTo: 2 },
  { id: 'E-SLMI-2026-02', ticker: 'SLMI', executionDate: onOrAfter('2026-02-18'), splitFrom: 10, splitTo: 1 },
];

/** Quarterly cash dividends: symbol, amount per share, the months of the ex-dates. */
const QUARTERLY: readonly (readonly [string, number])[] = [
  ['NVLX', 0.1],
  ['BRKW', 0.24],
  ['TRLN', 0.32],
  ['PTRX', 0.45],
];
const EX_MONTHS = [
  '2025-02-12',
  '2025-05-13',
  '2025-08-12',
  '2025-11-12',
  '2026-02-11',
  '2026-05-12',
  '2026-08-12',
  '2026-11-10',
];

export const SAMPLE_DIVIDENDS: readonly SampleDividend[] = [
  ...QUARTERLY.flatMap(([ticker, cashAmount]) =>
    EX_MONTHS.map((nominal): SampleDividend => {
      const exDividendDate = onOrAfter(nominal);
      return {
        id: `E-${ticker}-${exDividendDate}`,
        ticker,
        cashAmount,
        currency: 'USD',
        declarationDate: plusDays(exDividendDate, -21),
        exDividendDate,
        payDate: plusDays(exDividendDate, 14),
        recordDate: exDividendDate,
        frequency: 4,
        dividendType: 'CD',
      };
    }),
  ),
  // one special dividend, paid once
  {
    id: 'E-GRDX-2026-03-special',
    ticker: 'GRDX',
    cashAmount: 5,
    currency: 'USD',
    declarationDate: '2026-02-20',
    exDividendDate: onOrAfter('2026-03-11'),
    payDate: '2026-03-25',
    recordDate: onOrAfter('2026-03-11'),
    frequency: 0,
    dividendType: 'SC',
  },
];

/** ORBT traded as ORBX until it took its present symbol. */
export const SAMPLE_TICKER_CHANGES: readonly SampleTickerChange[] = [
  { symbol: 'ORBT', previous: 'ORBX', startDate: onOrAfter('2025-09-15') },
];

/**
 * Listings that ended: the day each last traded. Their bars end that day and they have no ticks
 * (the sample's ticks come after both); the security master lists them as inactive (catalog.ts).
 */
export const SAMPLE_DELISTINGS: readonly { ticker: string; lastDay: string }[] = [
  { ticker: 'CNDL', lastDay: '2026-06-30' },
  { ticker: 'HRVL', lastDay: '2026-10-30' },
];

/** The last day `symbol` traded, if its listing ended. */
export const delistedAfter = (symbol: string): string | undefined =>
  SAMPLE_DELISTINGS.find((d) => d.ticker === symbol)?.lastDay;

/** The symbol `symbol` (today's) traded under on `date`. */
export function symbolOn(symbol: string, date: string): string {
  const change = SAMPLE_TICKER_CHANGES.find((c) => c.symbol === symbol);
  return change && date < change.startDate ? change.previous : symbol;
}
