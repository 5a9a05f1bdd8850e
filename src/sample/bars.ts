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
import { nyMidnightMs, previousTradingDay, tradingDaysBetween } from '../domain/market-calendar.js';
import { delistedAfter, SAMPLE_DIVIDENDS, SAMPLE_SPLITS, symbolOn } from './corporate-actions.js';
import type { MarketSymbol } from './ticks.js';
import { rngFor } from './random.js';
import { isoDate } from './time.js';

/** How far back the day bars go: two years of exchange days. */
const HISTORY_YEARS = 2;

const cents = (x: number) => Math.round(x * 100) / 100;

/** The last exchange days before the ticks that hold regular-session minute bars (three weeks); their day bars are made of them. */
export const MINUTE_DAYS = 15;

interface DayValues {
  date: string;
  symbol: string;
  day: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trades: number;
  vwap: number;
  /** The extended day's bar, where the day has no minutes. */
  extended: Record<string, unknown>;
}

/** Each exchange day's prices of `s` before `firstSessionMs` (epoch ms of its first sample session), oldest first. */
export function dayValues(seed: number, s: MarketSymbol, firstSessionMs: number): DayValues[] {
  const last = previousTradingDay(isoDate(firstSessionMs));
  const first = `${Number(last.slice(0, 4)) - HISTORY_YEARS}${last.slice(4)}`;
  // the same walk for a listing that ended, its days after the end left out below
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
  const end = delistedAfter(s.symbol) ?? last;
  return days.flatMap((date, i) => {
    const close = cents(closes[i]!);
    // the open follows the previous close through the day's events
    const before = i === 0 ? close : (closes[i - 1]! - events[i]!.dividend) / events[i]!.ratio;
    const open = cents(i === 0 ? close : before * (1 + 0.004 * (rng.next() - 0.5)));
    const high = cents(Math.max(open, close) * (1 + 0.01 * rng.next()));
    const low = cents(Math.min(open, close) * (1 - 0.01 * rng.next()));
    const volume = 100 * (1_000 + ((rng.next() * 50_000) | 0));
    const trades = Math.max(1, (volume / (150 + rng.next() * 100)) | 0);
    const vwap = Math.round(((high + low + close) / 3) * 10_000) / 10_000;
    const more = 1 + 0.15 * rng.next();
    const extended = {
      open: cents(open * (1 + 0.003 * (rng.next() - 0.5))),
      high: cents(high * (1 + 0.003 * rng.next())),
      low: cents(low * (1 - 0.003 * rng.next())),
      close: cents(close * (1 + 0.002 * (rng.next() - 0.5))),
      volume: Math.round(volume * more),
      vwap,
      trades: Math.round(trades * more),
    };
    const symbol = symbolOn(s.symbol, date);
    if (date > end) return [];
    return [{ date, symbol, day: dayNumber(date), open, high, low, close, volume, trades, vwap, extended }];
  });
}

/** The last MINUTE_DAYS exchange days before `firstSessionMs`: the days of minute bars. */
export function minuteWindow(firstSessionMs: number): Set<string> {
  const last = previousTradingDay(isoDate(firstSessionMs));
  return new Set(tradingDaysBetween(`${Number(last.slice(0, 4)) - 1}${last.slice(4)}`, last).slice(-MINUTE_DAYS));
}

/** The day bars of `s` for the exchange days before `firstSessionMs`, but those of the minute window (made of their minutes). */
export function* symbolDayBars(
  seed: number,
  s: MarketSymbol,
  firstSessionMs: number,
): Generator<Record<string, unknown>> {
  const window = minuteWindow(firstSessionMs);
  for (const v of dayValues(seed, s, firstSessionMs).filter((d) => !window.has(d.date))) {
    const { symbol, day, open, high, low, close, volume, vwap, trades } = v;
    yield { symbol, extended: false, day, open, high, low, close, volume, vwap, trades };
    yield { symbol, extended: true, day, ...v.extended };
  }
}

const REGULAR_MINUTES = 390;
/** Minutes from New York midnight to the open (09:30). */
const OPEN_LOCAL = 570;

/**
 * Regular-session minute bars of `s` for the last MINUTE_DAYS exchange days before the ticks: each
 * day's minutes run from its open to its close within its high and low, reach both, and share out
 * its volume and trades, so the day's bar made of them is the day's values. A walk between open
 * and close, 391 points apart: minute i opens at point i and closes at point i + 1.
 */
export function* symbolMinuteBars(
  seed: number,
  s: MarketSymbol,
  firstSessionMs: number,
): Generator<Record<string, unknown>> {
  const rng = rngFor(seed, 'minute-bars', s.index);
  const window = minuteWindow(firstSessionMs);
  for (const v of dayValues(seed, s, firstSessionMs).filter((d) => window.has(d.date))) {
    const points: number[] = [v.open];
    let walk = 0;
    for (let i = 1; i < REGULAR_MINUTES; i++) {
      walk += (rng.next() - 0.5) * (v.high - v.low) * 0.08;
      // a bridge: the walk's drift taken out, so the last point is the close
      const bridged = v.open + ((v.close - v.open) * i) / REGULAR_MINUTES + walk * (1 - i / REGULAR_MINUTES);
      points.push(cents(Math.min(v.high, Math.max(v.low, bridged))));
    }
    points.push(v.close);
    const atHigh = Math.floor(rng.next() * REGULAR_MINUTES);
    const atLow = (atHigh + 1 + Math.floor(rng.next() * (REGULAR_MINUTES - 1))) % REGULAR_MINUTES;
    const lots = share(v.volume / 100, rng);
    const trades = share(v.trades - REGULAR_MINUTES, rng);
    const first = nyMidnightMs(v.date) / 60_000 + OPEN_LOCAL;
    for (let i = 0; i < REGULAR_MINUTES; i++) {
      const open = points[i]!;
      const close = points[i + 1]!;
      const high = i === atHigh ? v.high : cents(Math.min(v.high, Math.max(open, close) * (1 + 0.0005 * rng.next())));
      const low = i === atLow ? v.low : cents(Math.max(v.low, Math.min(open, close) * (1 - 0.0005 * rng.next())));
      yield {
        symbol: v.symbol,
        minute: first + i,
        day: v.day,
        local: OPEN_LOCAL + i,
        session: 1,
        open,
        high,
        low,
        close,
        volume: lots[i]! * 100,
        vwap: Math.round(((high + low + close) / 3) * 10_000) / 10_000,
        trades: 1 + trades[i]!,
      };
    }
  }
}

/** `total` (a whole number, at least 0) in REGULAR_MINUTES whole parts at random. */
function share(total: number, rng: { next(): number }): number[] {
  const weights = Array.from({ length: REGULAR_MINUTES }, () => 0.2 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((total * w) / sum));
  let left = total - parts.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % REGULAR_MINUTES, left--) parts[i]!++;
  return parts;
}
