// The US equities calendar that NYSE and Nasdaq share, computed by rules for every year of its
// span (2000-2199) rather than read from a table of dates that runs out: New York's clock, the
// exchange holidays and early closes, the day's sessions, and the answer of Massive's
// /v1/marketstatus/upcoming that follows from them (/now: domain/market-status.ts).
// Tests: test/domain/market-calendar.test.ts.

import { isCalendarDate } from './fiscal.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The dates the calendar answers for, inclusive; any other date or instant is a RangeError. */
export const CALENDAR_SPAN = { from: '2000-01-01', to: '2199-12-31' } as const;

/** Whether `date` is a real date YYYY-MM-DD the calendar answers for: what an argument naming one exchange day must be. */
export function inCalendarSpan(date: string): boolean {
  return isCalendarDate(date) && date >= CALENDAR_SPAN.from && date <= CALENDAR_SPAN.to;
}

const FIRST_DAY = Date.parse(`${CALENDAR_SPAN.from}T00:00:00Z`) / DAY_MS;
const LAST_DAY = Date.parse(`${CALENDAR_SPAN.to}T00:00:00Z`) / DAY_MS;
const SPAN_TEXT = `from ${CALENDAR_SPAN.from} to ${CALENDAR_SPAN.to}`;

const SUNDAY = 0;
const MONDAY = 1;
const WEDNESDAY = 3;
const THURSDAY = 4;
const SATURDAY = 6;

/** Days since 1970-01-01 of a date of the span. */
function dayOf(date: string): number {
  if (typeof date !== 'string' || !isCalendarDate(date)) {
    throw new RangeError(`a date is YYYY-MM-DD ${SPAN_TEXT}; got ${JSON.stringify(date)}`);
  }
  const day = Date.parse(`${date}T00:00:00Z`) / DAY_MS;
  if (day < FIRST_DAY || day > LAST_DAY) throw new RangeError(`a date of the calendar is ${SPAN_TEXT}; got ${date}`);
  return day;
}

function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function ymd(year: number, month: number, dayOfMonth: number): number {
  return Date.UTC(year, month - 1, dayOfMonth) / DAY_MS;
}

/** 0 is Sunday: 1970-01-01 was a Thursday. */
function weekday(day: number): number {
  return (day + THURSDAY) % 7;
}

function isWeekend(day: number): boolean {
  const w = weekday(day);
  return w === SATURDAY || w === SUNDAY;
}

function nthWeekday(year: number, month: number, wd: number, n: number): number {
  const first = ymd(year, month, 1);
  return first + ((wd - weekday(first) + 7) % 7) + 7 * (n - 1);
}

function lastWeekday(year: number, month: number, wd: number): number {
  const last = ymd(year, month + 1, 1) - 1;
  return last - ((weekday(last) - wd + 7) % 7);
}

/** Easter Sunday by the Gregorian computus. */
function easter(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((b + 8) / 25) + 1) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const n = h + l - 7 * m + 114;
  return ymd(year, Math.floor(n / 31), (n % 31) + 1);
}

// ---- New York's clock ----------------------------------------------------------------------

const EST = -300;
const EDT = -240;
const SPAN_START_MS = FIRST_DAY * DAY_MS - EST * MINUTE_MS;
const SPAN_END_MS = (LAST_DAY + 1) * DAY_MS - EST * MINUTE_MS;

/**
 * The instants daylight time starts and ends in a year, by the US rule in force:
 * since 2007 the second Sunday of March to the first Sunday of November, before it the first
 * Sunday of April to the last Sunday of October; both at 02:00 local. In code rather than through
 * Intl so the answer depends on no ICU build, and the test checks it against Intl for every day.
 */
const dstCache = new Map<number, readonly [number, number]>();
function dstBounds(year: number): readonly [number, number] {
  let bounds = dstCache.get(year);
  if (!bounds) {
    const [start, end] =
      year >= 2007
        ? [nthWeekday(year, 3, SUNDAY, 2), nthWeekday(year, 11, SUNDAY, 1)]
        : [nthWeekday(year, 4, SUNDAY, 1), lastWeekday(year, 10, SUNDAY)];
    bounds = [start * DAY_MS + 7 * HOUR_MS, end * DAY_MS + 6 * HOUR_MS];
    dstCache.set(year, bounds);
  }
  return bounds;
}

function offsetAt(ms: number): number {
  const [start, end] = dstBounds(new Date(ms).getUTCFullYear());
  return ms >= start && ms < end ? EDT : EST;
}

/** New York's offset from UTC at an instant, in minutes: -240 in daylight time, -300 in standard time. */
export function nyOffsetMinutes(ms: number): number {
  if (!(ms >= SPAN_START_MS && ms < SPAN_END_MS)) {
    throw new RangeError(`an instant is epoch milliseconds within New York's days ${SPAN_TEXT}; got ${ms}`);
  }
  return offsetAt(ms);
}

/**
 * The instant of a New York wall time: a date and minutes after its midnight, 0 to 1440. A time
 * the clocks skip in March (02:00-02:59) reads as an hour later; a time they repeat in November
 * (01:00-01:59) is the first of the two.
 */
export function nyWallTimeToMs(date: string, minutesAfterMidnight: number): number {
  const day = dayOf(date);
  if (!(minutesAfterMidnight >= 0 && minutesAfterMidnight <= 1440)) {
    throw new RangeError(`minutes after midnight are 0 to 1440; got ${minutesAfterMidnight}`);
  }
  const wall = day * DAY_MS + minutesAfterMidnight * MINUTE_MS;
  const asDaylight = wall - EDT * MINUTE_MS;
  return offsetAt(asDaylight) === EDT ? asDaylight : wall - EST * MINUTE_MS;
}

/** New York's offset from UTC at a wall time, in minutes (see nyWallTimeToMs for skipped and repeated times). */
export function nyWallTimeOffsetMinutes(date: string, minutesAfterMidnight: number): number {
  const ms = nyWallTimeToMs(date, minutesAfterMidnight);
  return (dayOf(date) * DAY_MS + minutesAfterMidnight * MINUTE_MS - ms) / MINUTE_MS;
}

export function nyMidnightMs(date: string): number {
  return nyWallTimeToMs(date, 0);
}

/** New York's wall clock at an instant, as epoch milliseconds read as UTC. */
function nyWall(ms: number): number {
  return ms + nyOffsetMinutes(ms) * MINUTE_MS;
}

/** The exchange's calendar day of an instant: its date in New York. */
export function tradingDate(ms: number): string {
  return dateOf(Math.floor(nyWall(ms) / DAY_MS));
}

// ---- Holidays and early closes ---------------------------------------------------------------

export type DayStatus = 'closed' | 'early-close';

interface DayEvent {
  status: DayStatus;
  /** As Massive's /v1/marketstatus/upcoming names it. */
  name: string;
}

/**
 * Closures that no rule predicts, each decided by the exchanges at the time; a new one is added
 * here when announced. Names are ours: Massive's for these were not found.
 */
const ONE_OFF_EVENTS: ReadonlyArray<readonly [string, DayStatus, string]> = [
  ['2001-09-11', 'closed', 'September 11 Attacks'],
  ['2001-09-12', 'closed', 'September 11 Attacks'],
  ['2001-09-13', 'closed', 'September 11 Attacks'],
  ['2001-09-14', 'closed', 'September 11 Attacks'],
  ['2003-12-26', 'early-close', 'Christmas'],
  ['2004-06-11', 'closed', 'National Day of Mourning'], // President Reagan
  ['2007-01-02', 'closed', 'National Day of Mourning'], // President Ford
  ['2012-10-29', 'closed', 'Hurricane Sandy'],
  ['2012-10-30', 'closed', 'Hurricane Sandy'],
  ['2018-12-05', 'closed', 'National Day of Mourning'], // President George H. W. Bush
  ['2025-01-09', 'closed', 'National Day of Mourning'], // President Carter
];

/** A holiday on a Saturday is kept the Friday before it, one on a Sunday the Monday after it (NYSE Rule 7.2). */
function observed(day: number): number {
  const w = weekday(day);
  return w === SATURDAY ? day - 1 : w === SUNDAY ? day + 1 : day;
}

const yearCache = new Map<number, ReadonlyMap<number, DayEvent>>();
function yearEvents(year: number): ReadonlyMap<number, DayEvent> {
  const cached = yearCache.get(year);
  if (cached) return cached;
  const events = new Map<number, DayEvent>();
  const closed = (day: number, name: string) => events.set(day, { status: 'closed', name });
  const early = (day: number, name: string) => events.set(day, { status: 'early-close', name });

  // Not moved to a Saturday's Friday: that Friday ends a yearly accounting period (NYSE Rule 7.2).
  const newYear = ymd(year, 1, 1);
  if (weekday(newYear) !== SATURDAY) closed(observed(newYear), 'New Years Day');
  closed(nthWeekday(year, 1, MONDAY, 3), 'Martin Luther King, Jr. Day');
  closed(nthWeekday(year, 2, MONDAY, 3), "Washington's Birthday");
  closed(easter(year) - 2, 'Good Friday');
  closed(lastWeekday(year, 5, MONDAY), 'Memorial Day');
  if (year >= 2022) closed(observed(ymd(year, 6, 19)), 'Juneteenth');
  closed(observed(ymd(year, 7, 4)), 'Independence Day');
  closed(nthWeekday(year, 9, MONDAY, 1), 'Labor Day');
  const thanksgiving = nthWeekday(year, 11, THURSDAY, 4);
  closed(thanksgiving, 'Thanksgiving');
  closed(observed(ymd(year, 12, 25)), 'Christmas');

  // July 3 closes early when it is Monday to Thursday (a Friday July 3 is the observed holiday),
  // except that before 2013 a Thursday July 4 moved the early close to Friday July 5.
  const july3 = ymd(year, 7, 3);
  if (year < 2013 && weekday(july3) === WEDNESDAY) early(july3 + 2, 'Independence Day');
  else if (weekday(july3) >= MONDAY && weekday(july3) <= THURSDAY) early(july3, 'Independence Day');
  early(thanksgiving + 1, 'Thanksgiving');
  // Christmas Eve on a Friday is the observed holiday itself; on a weekend there is nothing to shorten.
  const christmasEve = ymd(year, 12, 24);
  if (weekday(christmasEve) >= MONDAY && weekday(christmasEve) <= THURSDAY) early(christmasEve, 'Christmas');

  for (const [date, status, name] of ONE_OFF_EVENTS) {
    if (date.startsWith(`${year}-`)) events.set(dayOf(date), { status, name });
  }
  yearCache.set(year, events);
  return events;
}

function eventOn(day: number): DayEvent | undefined {
  return yearEvents(new Date(day * DAY_MS).getUTCFullYear()).get(day);
}

function isTradingDayNumber(day: number): boolean {
  return !isWeekend(day) && eventOn(day)?.status !== 'closed';
}

export function isTradingDay(date: string): boolean {
  return isTradingDayNumber(dayOf(date));
}

/** The trading day before a date (which need not be one); a RangeError before the span's first. */
export function previousTradingDay(date: string): string {
  let day = dayOf(date) - 1;
  while (day >= FIRST_DAY && !isTradingDayNumber(day)) day--;
  if (day < FIRST_DAY) throw new RangeError(`no trading day of the calendar (${SPAN_TEXT}) comes before ${date}`);
  return dateOf(day);
}

/** The trading day after a date (which need not be one); a RangeError past the span's last. */
export function nextTradingDay(date: string): string {
  let day = dayOf(date) + 1;
  while (day <= LAST_DAY && !isTradingDayNumber(day)) day++;
  if (day > LAST_DAY) throw new RangeError(`no trading day of the calendar (${SPAN_TEXT}) comes after ${date}`);
  return dateOf(day);
}

/**
 * The trading days from one date to another, both included, ascending; none when `to` is before
 * `from`. The span bounds the list: 200 years at most, some 50,000 days.
 */
export function tradingDaysBetween(from: string, to: string): string[] {
  const last = dayOf(to);
  const days: string[] = [];
  for (let day = dayOf(from); day <= last; day++) if (isTradingDayNumber(day)) days.push(dateOf(day));
  return days;
}

// ---- Sessions ----------------------------------------------------------------------------------

const PRE_OPEN = 4 * 60;
const OPEN = 9 * 60 + 30;
const CLOSE = 16 * 60;
const EARLY_CLOSE = 13 * 60;
/** After-hours last four hours; on an early close they end at 17:00, as NYSE announces for its late sessions. */
const AFTER_HOURS = 4 * 60;

/** Epoch milliseconds from `start` (included) to `end` (excluded). */
export interface Interval {
  start: number;
  end: number;
}

export interface Sessions {
  preMarket: Interval;
  regular: Interval;
  afterHours: Interval;
  earlyClose: boolean;
}

export type Session = 'pre' | 'regular' | 'post' | 'closed';

function closeOf(day: number): number {
  return eventOn(day)?.status === 'early-close' ? EARLY_CLOSE : CLOSE;
}

/** A trading day's sessions, in epoch milliseconds; undefined on a weekend or a closed day. */
export function sessionsOf(date: string): Sessions | undefined {
  if (!isTradingDayNumber(dayOf(date))) return undefined;
  const close = closeOf(dayOf(date));
  const at = (minutes: number) => nyWallTimeToMs(date, minutes);
  return {
    preMarket: { start: at(PRE_OPEN), end: at(OPEN) },
    regular: { start: at(OPEN), end: at(close) },
    afterHours: { start: at(close), end: at(close + AFTER_HOURS) },
    earlyClose: close === EARLY_CLOSE,
  };
}

/**
 * The session an instant falls in. Sessions begin after 03:00, past any clock change, so New
 * York's minutes after midnight order them without building the day's instants.
 */
export function sessionAt(ms: number): Session {
  const wall = nyWall(ms);
  const day = Math.floor(wall / DAY_MS);
  if (!isTradingDayNumber(day)) return 'closed';
  const minutes = (wall - day * DAY_MS) / MINUTE_MS;
  const close = closeOf(day);
  if (minutes < PRE_OPEN) return 'closed';
  if (minutes < OPEN) return 'pre';
  if (minutes < close) return 'regular';
  return minutes < close + AFTER_HOURS ? 'post' : 'closed';
}

// ---- Massive's /v1/marketstatus answers ----------------------------------------------------------

/** One entry of GET /v1/marketstatus/upcoming: one per exchange and day. */
export interface MarketEvent {
  exchange: 'NYSE' | 'NASDAQ';
  name: string;
  date: string;
  status: DayStatus;
  /** On an early close: the regular session's open and close, as ISO 8601 in UTC. */
  open?: string;
  close?: string;
}

const EXCHANGES = ['NYSE', 'NASDAQ'] as const;

/** The closed and early-close days from one date to another, both included, as Massive lists them. */
export function eventsBetween(from: string, to: string): MarketEvent[] {
  const first = dayOf(from);
  const last = dayOf(to);
  const days: Array<[number, DayEvent]> = [];
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++) {
    for (const [day, event] of yearEvents(year)) if (day >= first && day <= last) days.push([day, event]);
  }
  days.sort(([a], [b]) => a - b);
  return days.flatMap(([day, { status, name }]) => {
    const date = dateOf(day);
    const hours =
      status === 'early-close'
        ? {
            open: new Date(nyWallTimeToMs(date, OPEN)).toISOString(),
            close: new Date(nyWallTimeToMs(date, EARLY_CLOSE)).toISOString(),
          }
        : {};
    return EXCHANGES.map((exchange): MarketEvent => ({ exchange, name, date, status, ...hours }));
  });
}
