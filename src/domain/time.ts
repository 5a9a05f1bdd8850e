// The one reading of a date or a time a client sends: every REST parameter that takes one
// (rest/params.ts) and GraphQL's DateTime scalar (builder.ts) read it here, so a value one of
// them takes the other takes too (docs/rest.md#what-the-routes-accept).

const DAY_MS = 86_400_000;
export const DAY_NS = 86_400_000_000_000n;
const NS_PER_MS = 1_000_000n;

/** Past this a value is no time of these forms (the longest, with nanoseconds and an offset, is 35). */
export const MAX_TIME_CHARACTERS = 40;

/**
 * YYYY-MM-DD, then optionally a time after `T` or a space: HH:MM, HH:MM:SS, a fraction of up to 9
 * digits, then a zone: Z, ±HH:MM, ±HHMM or ±HH. A space where the offset's `+` stood is a `+`: an
 * unencoded `+` in a query string arrives as a space.
 */
const TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+ -])(\d{2})(?::?(\d{2}))?)?)?$/;

/** What the forms say, for messages and descriptions. */
export const TIME_FORMS =
  'a date YYYY-MM-DD, a time YYYY-MM-DD HH:MM:SS or ISO 8601 such as 2026-01-31T14:30:00Z (UTC when no zone is given)';

export interface ParsedTime {
  /** Nanoseconds since the epoch. */
  ns: bigint;
  /** Only a date was given: `ns` is the start of that day, in UTC. */
  dateOnly: boolean;
}

/** Milliseconds of the start of a calendar day (UTC), or undefined for a day the calendar lacks. */
function dayStart(year: number, month: number, day: number): number | undefined {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // not Date.UTC: it reads years 0-99 as 1900-1999
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day
    ? d.getTime()
    : undefined;
}

/** A date or a time in one of the forms above, or undefined for anything else. */
export function parseTime(raw: string): ParsedTime | undefined {
  if (raw.length > MAX_TIME_CHARACTERS) return undefined;
  const m = TIME.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00', fraction = '', , sign, oh = '00', om = '00'] = m;
  const day = dayStart(Number(y), Number(mo), Number(d));
  if (day === undefined) return undefined;
  if (h === undefined) return { ns: BigInt(day) * NS_PER_MS, dateOnly: true };
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const ms = day + ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 - offsetMinutes * 60_000;
  return { ns: BigInt(ms) * NS_PER_MS + BigInt(fraction.padEnd(9, '0')), dateOnly: false };
}

/**
 * The start of a day given as a date alone: a Date, so it goes wherever a time goes, that an
 * inclusive upper bound reads as the whole day (inclusiveEnd). Its JSON is the date, so it never
 * shares a key (a loader's, a cache's) with the instant of midnight.
 */
export class CalendarDay extends Date {
  override toJSON(): string {
    return this.toISOString().slice(0, 10);
  }
}

/** Floor division: a time before 1970 with a fraction of a millisecond goes to the earlier one. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** A parsed time as a Date (to the millisecond): a CalendarDay for a date alone. */
export function timeAsDate(t: ParsedTime): Date {
  const ms = Number(floorDiv(t.ns, NS_PER_MS));
  return t.dateOnly ? new CalendarDay(ms) : new Date(ms);
}

/** An inclusive upper bound: a date alone reaches the last millisecond of its day; a time is itself. */
export function inclusiveEnd(d: Date): Date {
  return d instanceof CalendarDay ? new Date(d.getTime() + DAY_MS - 1) : d;
}

/** A lower bound: the instant itself, as a plain Date. */
export function inclusiveStart(d: Date): Date {
  return d instanceof CalendarDay ? new Date(d.getTime()) : d;
}

/** The nanoseconds a parsed time covers: its whole day for a date alone, else the one instant. */
export function spanNs(t: ParsedTime): readonly [bigint, bigint] {
  return t.dateOnly ? [t.ns, t.ns + DAY_NS - 1n] : [t.ns, t.ns];
}

/** The calendar date a parsed time names: a date alone, or midnight UTC of it; undefined for any other time. */
export function calendarDate(t: ParsedTime): string | undefined {
  if (t.ns % DAY_NS !== 0n) return undefined;
  return new Date(Number(t.ns / NS_PER_MS)).toISOString().slice(0, 10);
}
