// Where a bar sits in the exchange's time: days as integers (days since 1970-01-01 of the New York
// calendar date, the DayBar/MinuteBar `day` column) and each minute's day, minute of that day and
// session, from the market calendar (domain/market-calendar.ts). The base bars store these, so SQL
// groups by them and never computes a time zone or a session itself.
import { nyMidnightMs, sessionAt, sessionsOf, tradingDate, tradingDaysBetween } from './market-calendar.js';

const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' → days since 1970-01-01. */
export const dayNumber = (date: string): number =>
  Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) / DAY_MS;

/** Days since 1970-01-01 → 'YYYY-MM-DD'. */
export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Kept per day: a write touches thousands of minutes of a few days. Bounded: cleared when full. */
const spans = new Map<number, { first: number; end: number }>();
const MAX_KEPT_DAYS = 20_000;

/** The minutes since the epoch of New York's midnight starting `day`, and of the next midnight. */
export function dayMinutes(day: number): { first: number; end: number } {
  let span = spans.get(day);
  if (!span) {
    if (spans.size >= MAX_KEPT_DAYS) spans.clear();
    span = { first: nyMidnightMs(dateOfDay(day)) / 60_000, end: nyMidnightMs(dateOfDay(day + 1)) / 60_000 };
    spans.set(day, span);
  }
  return span;
}

export interface MinuteFacts {
  /** The exchange's calendar day of the minute. */
  day: number;
  /** Minutes since that day's New York midnight (0-1379, 1439 or 1499 on the days clocks change). */
  local: number;
  session: 'pre' | 'regular' | 'post' | 'closed';
}

/** The day, minute of day and session of the minute starting `minute` minutes after the epoch. */
export function minuteFacts(minute: number): MinuteFacts {
  const ms = minute * 60_000;
  const day = dayNumber(tradingDate(ms));
  return { day, local: minute - dayMinutes(day).first, session: sessionAt(ms) };
}

/** A stretch of one exchange day's session, in epoch minutes [lo, hi), with the day and lo's minute of that day. */
export interface SessionWindow {
  day: number;
  lo: number;
  hi: number;
  local: number;
}

/**
 * The minutes of the exchange's sessions between `from` and `to` (epoch ms, inclusive): the regular
 * session (09:30 to the close), or the extended day (04:00 to four hours after the close), of each
 * trading day, clipped to the range. Stops once the windows hold more than `most` minutes.
 */
export function sessionWindows(
  from: number,
  to: number,
  session: 'regular' | 'extended',
  most: number,
): SessionWindow[] {
  const out: SessionWindow[] = [];
  const lo = Math.ceil(from / 60_000);
  const hi = Math.floor(to / 60_000) + 1;
  let minutes = 0;
  for (const date of tradingDaysBetween(tradingDate(from), tradingDate(to))) {
    const s = sessionsOf(date)!;
    const start = Math.max(lo, (session === 'regular' ? s.regular.start : s.preMarket.start) / 60_000);
    const end = Math.min(hi, (session === 'regular' ? s.regular.end : s.afterHours.end) / 60_000);
    if (start >= end) continue;
    const day = dayNumber(date);
    out.push({ day, lo: start, hi: end, local: start - dayMinutes(day).first });
    minutes += end - start;
    if (minutes > most) break;
  }
  return out;
}
