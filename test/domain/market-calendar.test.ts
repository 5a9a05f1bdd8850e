import { describe, expect, it } from 'vitest';
import {
  eventsBetween,
  isTradingDay,
  type MarketEvent,
  nextTradingDay,
  nyMidnightMs,
  nyOffsetMinutes,
  nyWallTimeOffsetMinutes,
  nyWallTimeToMs,
  previousTradingDay,
  sessionAt,
  sessionsOf,
  tradingDate,
  tradingDaysBetween,
} from '../../src/domain/market-calendar.js';
import { marketStatusAt } from '../../src/domain/market-status.js';

const ms = (iso: string) => Date.parse(iso);
const DAY_MS = 86_400_000;

/** Every date from one to another, both included, counted by JavaScript's own calendar. */
function* datesFrom(from: string, to: string): Generator<string> {
  for (let t = ms(`${from}T00:00:00Z`); t <= ms(`${to}T00:00:00Z`); t += DAY_MS) {
    yield new Date(t).toISOString().slice(0, 10);
  }
}

function closedAndEarly(year: number) {
  const nyse = eventsBetween(`${year}-01-01`, `${year}-12-31`).filter((e) => e.exchange === 'NYSE');
  return {
    closed: nyse.filter((e) => e.status === 'closed').map((e) => e.date),
    early: nyse.filter((e) => e.status === 'early-close').map((e) => e.date),
  };
}

/**
 * NYSE Group's published holiday and early-close calendars, typed in from its press releases of
 * 2021-12-27 (2022-2024), 2024-11-08 (2025-2027) and 2025-12-23 (2026-2028). Early closes are
 * those the footnotes name, or (marked †) the day a footnote mark on the holiday points to where
 * the stored copy cut the footnote's text: the Friday after Thanksgiving, Christmas Eve.
 */
const PUBLISHED: Record<number, { closed: string[]; early: string[] }> = {
  2022: {
    closed: ['01-17', '02-21', '04-15', '05-30', '06-20', '07-04', '09-05', '11-24', '12-26'],
    early: ['11-25'], // †
  },
  2023: {
    closed: ['01-02', '01-16', '02-20', '04-07', '05-29', '06-19', '07-04', '09-04', '11-23', '12-25'],
    early: ['07-03', '11-24'], // 11-24 †
  },
  2024: {
    closed: ['01-01', '01-15', '02-19', '03-29', '05-27', '06-19', '07-04', '09-02', '11-28', '12-25'],
    early: ['07-03', '11-29', '12-24'], // 11-29 †, 12-24 †
  },
  2025: {
    // 01-09: the national day of mourning for President Carter, announced after the calendar
    closed: ['01-01', '01-09', '01-20', '02-17', '04-18', '05-26', '06-19', '07-04', '09-01', '11-27', '12-25'],
    early: ['07-03', '11-28', '12-24'],
  },
  2026: {
    closed: ['01-01', '01-19', '02-16', '04-03', '05-25', '06-19', '07-03', '09-07', '11-26', '12-25'],
    early: ['11-27', '12-24'], // 12-24 †
  },
  2027: {
    closed: ['01-01', '01-18', '02-15', '03-26', '05-31', '06-18', '07-05', '09-06', '11-25', '12-24'],
    early: ['11-26'],
  },
  2028: {
    closed: ['01-17', '02-21', '04-14', '05-29', '06-19', '07-04', '09-04', '11-23', '12-25'],
    early: ['07-03', '11-24'], // 11-24 †
  },
};

describe("the exchanges' published calendars", () => {
  it.each(Object.entries(PUBLISHED))('%s: the closed days and early closes NYSE published', (year, published) => {
    const withYear = (days: string[]) => days.map((d) => `${year}-${d}`);
    expect(closedAndEarly(Number(year))).toEqual({
      closed: withYear(published.closed),
      early: withYear(published.early),
    });
  });

  it("answers as Massive's /v1/marketstatus/upcoming did on 2022-05-04 (its client's recorded answer)", () => {
    const row = (exchange: 'NYSE' | 'NASDAQ', name: string, date: string): MarketEvent => ({
      exchange,
      name,
      date,
      status: 'closed',
    });
    const recorded: MarketEvent[] = [
      ['Memorial Day', '2022-05-30'],
      ['Juneteenth', '2022-06-20'],
      ['Independence Day', '2022-07-04'],
      ['Labor Day', '2022-09-05'],
      ['Thanksgiving', '2022-11-24'],
      ['Christmas', '2022-12-26'],
    ].flatMap(([name, date]) => [row('NYSE', name!, date!), row('NASDAQ', name!, date!)]);
    for (const exchange of ['NYSE', 'NASDAQ'] as const) {
      recorded.push({
        exchange,
        name: 'Thanksgiving',
        date: '2022-11-25',
        status: 'early-close',
        open: '2022-11-25T14:30:00.000Z',
        close: '2022-11-25T18:00:00.000Z',
      });
    }
    const key = (e: MarketEvent) => `${e.date} ${e.exchange}`;
    const byDay = (events: MarketEvent[]) => [...events].sort((a, b) => key(a).localeCompare(key(b)));
    expect(byDay(eventsBetween('2022-05-04', '2022-12-31'))).toEqual(byDay(recorded));
  });

  it("answers as Massive's documented example for Thanksgiving 2020 (its OTC rows aside)", () => {
    expect(eventsBetween('2020-11-26', '2020-11-27').filter((e) => e.exchange === 'NYSE')).toEqual([
      { exchange: 'NYSE', name: 'Thanksgiving', date: '2020-11-26', status: 'closed' },
      {
        exchange: 'NYSE',
        name: 'Thanksgiving',
        date: '2020-11-27',
        status: 'early-close',
        open: '2020-11-27T14:30:00.000Z',
        close: '2020-11-27T18:00:00.000Z',
      },
    ]);
  });
});

describe('known historical cases', () => {
  it('keeps no New Year holiday on the Friday before a Saturday January 1 (NYSE Rule 7.2)', () => {
    expect(isTradingDay('2021-12-31')).toBe(true);
    expect(eventsBetween('2021-12-24', '2022-01-07').map((e) => e.date)).toEqual(['2021-12-24', '2021-12-24']);
    expect(isTradingDay('2010-12-31')).toBe(true);
    expect(isTradingDay('2023-01-02')).toBe(false); // a Sunday January 1 moves to the Monday
  });

  it('has no Juneteenth before 2022', () => {
    expect(isTradingDay('2020-06-19')).toBe(true);
    expect(isTradingDay('2021-06-18')).toBe(true);
    expect(isTradingDay('2022-06-20')).toBe(false);
  });

  it.each([
    ['2008-03-21'], // Easter on March 23
    ['2024-03-29'],
    ['2025-04-18'],
    ['2026-04-03'],
    ['2038-04-23'], // Easter on April 25, the latest it falls
  ])('closes for Good Friday on %s', (date) => {
    expect(isTradingDay(date)).toBe(false);
    expect(eventsBetween(date, date)[0]?.name).toBe('Good Friday');
  });

  it.each([
    '2001-09-11',
    '2001-09-12',
    '2001-09-13',
    '2001-09-14',
    '2004-06-11',
    '2007-01-02',
    '2012-10-29',
    '2012-10-30',
    '2018-12-05',
    '2025-01-09',
  ])('was closed on %s, a closure no rule predicts', (date) => {
    expect(isTradingDay(date)).toBe(false);
  });

  // The NYSE closings list pandas_market_calendars reproduces: before 2013 a Thursday July 4 moved the early close to Friday.
  it.each([
    ['2002-07-05', true],
    ['2002-07-03', false],
    ['2013-07-03', true],
    ['2003-12-26', true],
    ['2021-07-02', false], // July 4 on a Sunday, kept on the Monday
    ['2015-07-02', false], // July 4 on a Saturday, kept on the Friday
  ])('%s closes early: %s', (date, early) => {
    expect(sessionsOf(date)?.earlyClose).toBe(early);
  });
});

describe("New York's clock", () => {
  const intl = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'longOffset' });
  const intlOffset = (t: number) => {
    const name = intl.formatToParts(t).find((p) => p.type === 'timeZoneName')?.value ?? '';
    const [, sign, h, m] = /GMT([+-])(\d\d):(\d\d)/.exec(name) ?? [];
    return (sign === '-' ? -1 : 1) * (Number(h) * 60 + Number(m));
  };

  it("agrees with the platform's time zone database around both changes' instants on every day 2000-2199", () => {
    let disagreements = 0;
    for (const date of datesFrom('2000-01-01', '2199-12-31')) {
      const midnight = ms(`${date}T00:00:00Z`);
      for (const hour of [6, 7]) {
        for (const t of [midnight + hour * 3_600_000 - 1, midnight + hour * 3_600_000]) {
          if (nyOffsetMinutes(t) !== intlOffset(t)) disagreements++;
        }
      }
      if (nyOffsetMinutes(midnight + 43_200_000) !== intlOffset(midnight + 43_200_000)) disagreements++;
    }
    expect(disagreements).toBe(0);
  });

  it('opens at 13:30 UTC the Monday after the March change, 14:30 UTC before it', () => {
    expect(sessionsOf('2025-03-07')?.regular.start).toBe(ms('2025-03-07T14:30:00Z'));
    expect(sessionsOf('2025-03-10')?.regular.start).toBe(ms('2025-03-10T13:30:00Z'));
    expect(sessionsOf('2025-10-31')?.regular.start).toBe(ms('2025-10-31T13:30:00Z'));
    expect(sessionsOf('2025-11-03')?.regular.start).toBe(ms('2025-11-03T14:30:00Z'));
    // the rule before 2007: the first Sunday of April to the last Sunday of October
    expect(sessionsOf('2006-03-31')?.regular.start).toBe(ms('2006-03-31T14:30:00Z'));
    expect(sessionsOf('2006-04-03')?.regular.start).toBe(ms('2006-04-03T13:30:00Z'));
    expect(sessionsOf('2006-10-30')?.regular.start).toBe(ms('2006-10-30T14:30:00Z'));
  });

  it('reads a skipped wall time an hour later and a repeated one as its first', () => {
    expect(nyWallTimeToMs('2025-03-09', 150)).toBe(ms('2025-03-09T07:30:00Z'));
    expect(nyWallTimeOffsetMinutes('2025-03-09', 150)).toBe(-300);
    expect(nyWallTimeToMs('2025-03-09', 180)).toBe(ms('2025-03-09T07:00:00Z'));
    expect(nyWallTimeToMs('2025-11-02', 90)).toBe(ms('2025-11-02T05:30:00Z'));
    expect(nyWallTimeOffsetMinutes('2025-11-02', 90)).toBe(-240);
    expect(nyWallTimeToMs('2025-11-02', 120)).toBe(ms('2025-11-02T07:00:00Z'));
    expect(nyMidnightMs('2025-03-09')).toBe(ms('2025-03-09T05:00:00Z'));
    expect(nyWallTimeToMs('2025-03-09', 1440)).toBe(ms('2025-03-10T04:00:00Z'));
  });

  it("dates an instant by New York's day", () => {
    expect(tradingDate(ms('2025-07-01T03:59:59.999Z'))).toBe('2025-06-30');
    expect(tradingDate(ms('2025-07-01T04:00:00Z'))).toBe('2025-07-01');
    expect(tradingDate(ms('2025-01-01T04:59:59.999Z'))).toBe('2024-12-31');
    expect(tradingDate(ms('2025-01-01T05:00:00Z'))).toBe('2025-01-01');
  });

  it('refuses dates and instants outside 2000-2199 and wall times that are none', () => {
    for (const date of ['1999-12-31', '2200-01-01', '2025-02-30', '2025-2-3', '']) {
      expect(() => isTradingDay(date)).toThrow(RangeError);
    }
    expect(() => tradingDate(ms('2000-01-01T04:59:59.999Z'))).toThrow(RangeError);
    expect(() => tradingDate(ms('2200-01-01T05:00:00Z'))).toThrow(RangeError);
    expect(() => tradingDate(Number.NaN)).toThrow(RangeError);
    for (const minutes of [-1, 1441, Number.NaN])
      expect(() => nyWallTimeToMs('2025-03-09', minutes)).toThrow(RangeError);
  });
});

describe('sessions', () => {
  const interval = (start: string, end: string) => ({ start: ms(start), end: ms(end) });

  it('an ordinary summer day: 04:00-09:30, 09:30-16:00, 16:00-20:00 New York', () => {
    expect(sessionsOf('2025-06-10')).toEqual({
      preMarket: interval('2025-06-10T08:00:00Z', '2025-06-10T13:30:00Z'),
      regular: interval('2025-06-10T13:30:00Z', '2025-06-10T20:00:00Z'),
      afterHours: interval('2025-06-10T20:00:00Z', '2025-06-11T00:00:00Z'),
      earlyClose: false,
    });
  });

  it('an early close: the regular session ends at 13:00, after-hours at 17:00', () => {
    expect(sessionsOf('2025-11-28')).toEqual({
      preMarket: interval('2025-11-28T09:00:00Z', '2025-11-28T14:30:00Z'),
      regular: interval('2025-11-28T14:30:00Z', '2025-11-28T18:00:00Z'),
      afterHours: interval('2025-11-28T18:00:00Z', '2025-11-28T22:00:00Z'),
      earlyClose: true,
    });
  });

  it('the week of the March change, on both sides of it', () => {
    expect(sessionsOf('2025-03-07')?.afterHours).toEqual(interval('2025-03-07T21:00:00Z', '2025-03-08T01:00:00Z'));
    expect(sessionsOf('2025-03-10')?.preMarket).toEqual(interval('2025-03-10T08:00:00Z', '2025-03-10T13:30:00Z'));
  });

  it('none on a weekend or a holiday', () => {
    expect(sessionsOf('2025-03-08')).toBeUndefined();
    expect(sessionsOf('2025-03-09')).toBeUndefined();
    expect(sessionsOf('2025-12-25')).toBeUndefined();
  });

  it.each([
    ['2025-06-10T07:59:59.999Z', 'closed'],
    ['2025-06-10T08:00:00Z', 'pre'],
    ['2025-06-10T13:29:59.999Z', 'pre'],
    ['2025-06-10T13:30:00Z', 'regular'],
    ['2025-06-10T19:59:59.999Z', 'regular'],
    ['2025-06-10T20:00:00Z', 'post'],
    ['2025-06-10T23:59:59.999Z', 'post'],
    ['2025-06-11T00:00:00Z', 'closed'],
    ['2025-11-28T17:59:59.999Z', 'regular'],
    ['2025-11-28T18:00:00Z', 'post'],
    ['2025-11-28T22:00:00Z', 'closed'],
    ['2025-03-10T13:30:00Z', 'regular'],
    ['2025-03-07T14:29:59.999Z', 'pre'],
    ['2025-12-25T15:00:00Z', 'closed'],
    ['2025-03-08T15:00:00Z', 'closed'],
  ])('at %s the session is %s', (iso, session) => {
    expect(sessionAt(ms(iso))).toBe(session);
  });
});

describe("Massive's /v1/marketstatus/now", () => {
  // serverTime and the fields as Massive answered: its client's recorded answer, its documented
  // example (otc closed while NYSE and Nasdaq are in extended hours), and a client's PR
  it.each([
    ['2022-04-28T16:48:08-04:00', 'extended-hours', false, true, 'closed'],
    ['2020-11-10T17:37:37-05:00', 'extended-hours', false, true, 'closed'],
    ['2023-03-29T08:59:42-04:00', 'extended-hours', true, false, 'closed'],
    ['2025-06-10T11:00:00-04:00', 'open', false, false, 'open'],
    ['2025-12-25T11:00:00-05:00', 'closed', false, false, 'closed'],
  ])('at %s: %s', (serverTime, market, earlyHours, afterHours, otc) => {
    expect(marketStatusAt(ms(serverTime) + 250)).toEqual({
      market,
      earlyHours,
      afterHours,
      serverTime,
      exchanges: { nyse: market, nasdaq: market, otc },
      currencies: { crypto: 'open', fx: 'open' },
    });
  });

  // the forex week: Sunday 17:00 to Friday 17:00 New York, across both clock changes of 2026
  it.each([
    ['2026-06-12T16:59:59-04:00', 'open'], // a Friday, the last second
    ['2026-06-12T17:00:00-04:00', 'closed'],
    ['2026-06-13T12:00:00-04:00', 'closed'], // Saturday
    ['2026-06-14T16:59:59-04:00', 'closed'], // Sunday, before the open
    ['2026-06-14T17:00:00-04:00', 'open'],
    ['2026-06-17T03:00:00-04:00', 'open'], // a Wednesday night
    ['2026-03-08T17:00:00-04:00', 'open'], // the Sunday clocks go forward
    ['2026-03-08T16:59:59-04:00', 'closed'],
    ['2026-10-30T16:59:59-04:00', 'open'], // Friday before clocks go back
    ['2026-11-01T17:00:00-05:00', 'open'], // the Sunday clocks went back
    ['2026-11-01T16:59:59-05:00', 'closed'],
    ['2026-12-25T10:00:00-05:00', 'open'], // a stock holiday on a Friday: forex trades
  ])('at %s forex is %s, crypto open', (serverTime, fx) => {
    expect(marketStatusAt(ms(serverTime)).currencies).toEqual({ crypto: 'open', fx });
  });

  it('OTC is open in the regular session only, early closes included', () => {
    expect(marketStatusAt(ms('2026-11-27T12:59:59-05:00')).exchanges.otc).toBe('open');
    expect(marketStatusAt(ms('2026-11-27T13:00:00-05:00')).exchanges).toEqual({
      nyse: 'extended-hours',
      nasdaq: 'extended-hours',
      otc: 'closed',
    });
    expect(marketStatusAt(ms('2026-07-06T09:29:59-04:00')).exchanges.otc).toBe('closed');
    expect(marketStatusAt(ms('2026-07-06T09:30:00-04:00')).exchanges.otc).toBe('open');
    expect(marketStatusAt(ms('2026-07-03T11:00:00-04:00')).exchanges.otc).toBe('closed');
  });
});

describe('trading days', () => {
  it('lists the days between two dates, both included', () => {
    expect(tradingDaysBetween('2025-12-22', '2026-01-05')).toEqual([
      '2025-12-22',
      '2025-12-23',
      '2025-12-24',
      '2025-12-26',
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-02',
      '2026-01-05',
    ]);
    expect(tradingDaysBetween('2026-01-05', '2025-12-22')).toEqual([]);
    expect(() => tradingDaysBetween('1999-01-01', '2025-01-01')).toThrow(RangeError);
  });

  it('steps over weekends and closures, and stops at the span', () => {
    expect(nextTradingDay('2001-09-10')).toBe('2001-09-17');
    expect(previousTradingDay('2001-09-17')).toBe('2001-09-10');
    expect(nextTradingDay('2025-12-25')).toBe('2025-12-26');
    expect(() => previousTradingDay('2000-01-03')).toThrow(RangeError);
    expect(() => nextTradingDay('2199-12-31')).toThrow(RangeError);
  });

  it('on every day 2000-2100: no weekend trades, and next(previous(d)) is d on a trading day', () => {
    const failures: string[] = [];
    let first = true;
    for (const date of datesFrom('2000-01-01', '2100-12-31')) {
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      const trading = isTradingDay(date);
      if ((weekday === 0 || weekday === 6) && trading) failures.push(`${date} trades on a weekend`);
      if (!trading) continue;
      if (first) {
        first = false;
        continue;
      }
      if (nextTradingDay(previousTradingDay(date)) !== date) failures.push(`${date} does not round-trip`);
    }
    expect(failures).toEqual([]);
  });
});
