import { describe, expect, it } from 'vitest';
import {
  CalendarDay,
  calendarDate,
  inclusiveEnd,
  MAX_TIME_CHARACTERS,
  parseTime,
  spanNs,
  timeAsDate,
} from '../../src/domain/time.js';

/** Nanoseconds of an instant as JavaScript's own parser reads its canonical ISO text, plus a fraction below the millisecond. */
const ns = (iso: string, belowMs = 0n) => BigInt(Date.parse(iso)) * 1_000_000n + belowMs;

describe('parseTime: the one reading of a date or time (docs/rest.md#what-the-routes-accept)', () => {
  it('reads a date alone as the start of its day in UTC', () => {
    expect(parseTime('2026-11-01')).toEqual({ ns: ns('2026-11-01T00:00:00Z'), dateOnly: true });
    expect(parseTime('2024-02-29')).toEqual({ ns: ns('2024-02-29T00:00:00Z'), dateOnly: true });
    // years 0-99 are those years, not 1900-1999
    expect(parseTime('0050-01-01')?.ns).toBe(BigInt(new Date('0050-01-01T00:00:00Z').getTime()) * 1_000_000n);
  });

  it.each([
    ['2026-11-01 14:30:00', '2026-11-01T14:30:00Z'],
    ['2026-11-01T14:30:00', '2026-11-01T14:30:00Z'],
    ['2026-11-01T14:30', '2026-11-01T14:30:00Z'],
    ['2026-11-01 14:30', '2026-11-01T14:30:00Z'],
    ['2026-11-01t14:30:00z', '2026-11-01T14:30:00Z'],
    ['2026-11-01T14:30:00Z', '2026-11-01T14:30:00Z'],
    ['2026-11-01T14:30:00.250Z', '2026-11-01T14:30:00.250Z'],
    ['2026-11-01T14:30:00+02:00', '2026-11-01T12:30:00Z'],
    ['2026-11-01T14:30:00+0200', '2026-11-01T12:30:00Z'],
    ['2026-11-01T14:30:00+02', '2026-11-01T12:30:00Z'],
    ['2026-11-01T14:30:00 02:00', '2026-11-01T12:30:00Z'],
    ['2026-11-01T01:30:00-05:00', '2026-11-01T06:30:00Z'],
    ['2026-11-01T23:30:00-05:00', '2026-11-02T04:30:00Z'],
    ['2026-11-01T00:15:00+05:45', '2026-10-31T18:30:00Z'],
  ])('reads %s as the instant %s', (raw, iso) => {
    expect(parseTime(raw)).toEqual({ ns: ns(iso), dateOnly: false });
  });

  it('keeps every digit of a fraction down to the nanosecond', () => {
    expect(parseTime('2026-11-19T14:30:00.123456789Z')?.ns).toBe(ns('2026-11-19T14:30:00.123Z', 456_789n));
    expect(parseTime('2026-11-19T14:30:00.1Z')?.ns).toBe(ns('2026-11-19T14:30:00.100Z'));
  });

  it.each([
    '2026-13-01',
    '2026-02-30',
    '2026-11-1',
    '26-11-01',
    '2026/11/01',
    '01/11/2026',
    '2026-11-01T24:00:00',
    '2026-11-01T14:60',
    '2026-11-01T14:30:60',
    '2026-11-01T14:30:00.1234567890Z',
    '2026-11-01T14:30:00+24:00',
    '2026-11-01T14:30:00+02:60',
    '2026-11-01Z',
    '2026-11-01T',
    '2026-11-01  14:30',
    '1700000000',
    'yesterday',
    '',
    `2026-11-01T14:30:00${'0'.repeat(MAX_TIME_CHARACTERS)}`,
  ])('refuses %j', (raw) => {
    expect(parseTime(raw)).toBeUndefined();
  });

  it('a date alone is a CalendarDay: JSON the date, and an inclusive upper bound through its last millisecond', () => {
    const day = timeAsDate(parseTime('2026-11-01')!);
    expect(day).toBeInstanceOf(CalendarDay);
    expect(JSON.stringify({ to: day })).toBe('{"to":"2026-11-01"}');
    expect(inclusiveEnd(day).toISOString()).toBe('2026-11-01T23:59:59.999Z');
    const instant = timeAsDate(parseTime('2026-11-01 00:00:00')!);
    expect(instant).not.toBeInstanceOf(CalendarDay);
    expect(inclusiveEnd(instant)).toBe(instant);
    expect(JSON.stringify({ to: instant })).toBe('{"to":"2026-11-01T00:00:00.000Z"}');
  });

  it('spans a date alone over its day in nanoseconds, an instant over itself', () => {
    expect(spanNs(parseTime('2026-11-19')!)).toEqual([ns('2026-11-19T00:00:00Z'), ns('2026-11-20T00:00:00Z') - 1n]);
    const at = parseTime('2026-11-19T14:30:00.000000001Z')!;
    expect(spanNs(at)).toEqual([at.ns, at.ns]);
  });

  it('a time before 1970 with a fraction below the millisecond goes to the earlier millisecond', () => {
    expect(timeAsDate(parseTime('1969-12-31T23:59:59.9995Z')!).toISOString()).toBe('1969-12-31T23:59:59.999Z');
  });

  it('names a calendar date for a date alone or midnight UTC, and for no other time', () => {
    expect(calendarDate(parseTime('2024-03-31')!)).toBe('2024-03-31');
    expect(calendarDate(parseTime('2024-03-31T00:00:00Z')!)).toBe('2024-03-31');
    expect(calendarDate(parseTime('2024-03-31T05:30:00+05:30')!)).toBe('2024-03-31');
    expect(calendarDate(parseTime('2024-03-31T00:00:00.001Z')!)).toBeUndefined();
    expect(calendarDate(parseTime('2024-03-31T00:00:00-01:00')!)).toBeUndefined();
  });
});
