/**
 * Day bars before the ticks: two years of each symbol's exchange days (domain/market-calendar.ts:
 * trading days only, holidays left out), as a random walk that ends at the symbol's reference price
 * the day before its first sample session, so a chart runs on into the bars the trades make. Both
 * sessions: the extended day holds the regular one, with a little more range and volume.
 *
 * The prices are raw, as they were quoted: walked backwards, a price multiplies by the split's ratio
 * before its execution date and rises by the amount before an ex-dividend date
 * (sample/corporate-actions.ts), and a bar is stored under the symbol the security had that day.
 */
import { dayNumber } from '../domain/bar-time.js';
import { previousTradingDay, tradingDaysBetween } from '../domain/market-calendar.js';
import { SAMPLE_DIVIDENDS, SAMPLE_SPLITS, symbolOn } from './corporate-actions.js';
import type { MarketSymbol } from './ticks.js';
import { rngFor } from './random.js';
import { isoDate } from './time.js';

/** How far back the day bars go: two years of exchange days. */
const HISTORY_YEARS = 2;

const cents = (x: number) => Math.round(x * 100) / 100;

/** The day bars of `s` for the exchange days before `firstSessionMs` (epoch ms of its first sample session). */
export function* symbolDayBars(
  seed: number,
  s: MarketSymbol,
  firstSessionMs: number,
): Generator<Record<string, unknown>> {
  const last = previousTradingDay(isoDate(firstSessionMs));
  const first = `${Number(last.slice(0, 4)) - HISTORY_YEARS}${last.slice(4)}`;
  const days = tradingDaysBetween(first, last);
  const rng = rngFor(seed, 'day-bars', s.index);
  // walked backwards from the reference price, then laid out oldest first
  // what each day's events do to the price at its open: divided by `ratio` after `dividend` is paid
  const events = days.map((day) => {
    const split = SAMPLE_SPLITS.find((x) => x.ticker === s.symbol && x.executionDate === day);
    const dividend = SAMPLE_DIVIDENDS.find((x) => x.ticker === s.symbol && x.exDividendDate === day);
    return { ratio: split ? split.splitTo / split.splitFrom : 1, dividend: dividend?.cashAmount ?? 0 };
  });
  const closes: number[] = new Array(days.length);
  let level = s.price;
  for (let i = days.length - 1; i >= 0; i--) {
    closes[i] = Math.max(0.05, level);
    level = Math.max(0.05, level * (1 + 0.02 * (rng.next() - 0.5)));
    level = level * events[i]!.ratio + events[i]!.dividend;
  }
  for (let i = 0; i < days.length; i++) {
    const close = cents(closes[i]!);
    // the open follows the previous close through the day's events
    const before = i === 0 ? close : (closes[i - 1]! - events[i]!.dividend) / events[i]!.ratio;
    const open = cents(i === 0 ? close : before * (1 + 0.004 * (rng.next() - 0.5)));
    const high = cents(Math.max(open, close) * (1 + 0.01 * rng.next()));
    const low = cents(Math.min(open, close) * (1 - 0.01 * rng.next()));
    const volume = 100 * (1_000 + ((rng.next() * 50_000) | 0));
    const trades = Math.max(1, (volume / (150 + rng.next() * 100)) | 0);
    const vwap = Math.round(((high + low + close) / 3) * 10_000) / 10_000;
    const day = dayNumber(days[i]!);
    const symbol = symbolOn(s.symbol, days[i]!);
    yield { symbol, extended: false, day, open, high, low, close, volume, vwap, trades };
    const more = 1 + 0.15 * rng.next();
    yield {
      symbol,
      extended: true,
      day,
      open: cents(open * (1 + 0.003 * (rng.next() - 0.5))),
      high: cents(high * (1 + 0.003 * rng.next())),
      low: cents(low * (1 - 0.003 * rng.next())),
      close: cents(close * (1 + 0.002 * (rng.next() - 0.5))),
      volume: Math.round(volume * more),
      vwap,
      trades: Math.round(trades * more),
    };
  }
}
