// Query.marketStatus and Query.marketCalendar at instants a test's clock sets (createApp's `now`),
// against the NYSE's published 2026-2027 calendar, its session hours in New York and the US
// daylight-saving dates, typed in; and the REST twin at the same instant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';
import { expectBadUserInput, graphqlHarness, type GraphQLHarness, type GraphQLResult } from './helpers.js';

const DAY_FIELDS = `date status holiday preMarket { start end } regular { start end } afterHours { start end }`;
const session = (start: string, end: string) => ({ start, end });

/** A trading day's sessions, typed in from its New York hours and offset (EST: +5h, EDT: +4h), as UTC. */
function openDay(date: string, next: string, offsetHours: 4 | 5, earlyClose = false) {
  const z = (d: string, hour: number, minute = 0) =>
    `${d}T${String(hour + offsetHours).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`;
  const close = earlyClose ? 13 : 16;
  const afterEnd = close + 4 + offsetHours;
  return {
    preMarket: session(z(date, 4), z(date, 9, 30)),
    regular: session(z(date, 9, 30), z(date, close)),
    afterHours: session(
      z(date, close),
      afterEnd >= 24 ? `${next}T${String(afterEnd - 24).padStart(2, '0')}:00:00.000Z` : z(date, close + 4),
    ),
  };
}
const closedDay = (date: string, holiday: string | null) => ({
  date,
  status: 'CLOSED',
  holiday,
  preMarket: null,
  regular: null,
  afterHours: null,
});

describe.each(testDatabases())('GraphQL market calendar on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  let clock = 0;
  /** POST /graphql to the app whose clock the test sets. */
  async function gqlAt(iso: string, query: string, key = 'demo-free'): Promise<GraphQLResult> {
    clock = Date.parse(iso);
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, ...((await res.json()) as object) };
  }
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    app = h.appWith({ RATE_LIMIT_FREE: '1000000' }, { now: () => clock });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('marketStatus answers for the clock, and agrees with GET /stocks/v1/marketstatus/now', async () => {
    for (const [iso, market, earlyHours, afterHours, otc, fx] of [
      ['2026-11-27T17:30:00.400Z', 'OPEN', false, false, 'OPEN', 'OPEN'],
      ['2026-11-27T18:30:00Z', 'EXTENDED_HOURS', false, true, 'CLOSED', 'OPEN'],
      ['2026-11-26T15:00:00Z', 'CLOSED', false, false, 'CLOSED', 'OPEN'],
      ['2026-07-06T12:00:00Z', 'EXTENDED_HOURS', true, false, 'CLOSED', 'OPEN'],
      ['2026-07-04T15:00:00Z', 'CLOSED', false, false, 'CLOSED', 'CLOSED'],
    ] as const) {
      const res = await gqlAt(
        iso,
        '{ marketStatus { market earlyHours afterHours serverTime exchanges { nyse nasdaq otc } currencies { crypto fx } } }',
      );
      expect(res.errors).toBeUndefined();
      const serverTime = `${iso.slice(0, 19)}.000Z`;
      expect(res.data.marketStatus).toEqual({
        market,
        earlyHours,
        afterHours,
        serverTime,
        exchanges: { nyse: market, nasdaq: market, otc },
        currencies: { crypto: 'OPEN', fx },
      });
      const r = await rest({ app }, '/stocks/v1/marketstatus/now');
      expect(r.body.exchanges.otc).toBe(otc.toLowerCase());
      expect(r.body.currencies).toEqual({ crypto: 'open', fx: fx.toLowerCase() });
      expect(Date.parse(r.body.serverTime)).toBe(Date.parse(serverTime));
      expect(r.body.market).toBe(market.toLowerCase().replace('_', '-'));
      expect([r.body.earlyHours, r.body.afterHours]).toEqual([earlyHours, afterHours]);
    }
  });

  it('marketCalendar: Thanksgiving week 2026 as published, each session in UTC', async () => {
    const res = await gqlAt(
      '2026-01-01T00:00:00Z',
      `{ marketCalendar(from: "2026-11-23", to: "2026-11-29") { ${DAY_FIELDS} } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.marketCalendar).toEqual([
      { date: '2026-11-23', status: 'OPEN', holiday: null, ...openDay('2026-11-23', '2026-11-24', 5) },
      { date: '2026-11-24', status: 'OPEN', holiday: null, ...openDay('2026-11-24', '2026-11-25', 5) },
      { date: '2026-11-25', status: 'OPEN', holiday: null, ...openDay('2026-11-25', '2026-11-26', 5) },
      closedDay('2026-11-26', 'Thanksgiving'),
      // closes at 13:00 New York = 18:00Z; after-hours to 17:00 = 22:00Z
      {
        date: '2026-11-27',
        status: 'EARLY_CLOSE',
        holiday: 'Thanksgiving',
        ...openDay('2026-11-27', '2026-11-28', 5, true),
      },
      closedDay('2026-11-28', null),
      closedDay('2026-11-29', null),
    ]);
    expect(res.data.marketCalendar[4].regular).toEqual(session('2026-11-27T14:30:00.000Z', '2026-11-27T18:00:00.000Z'));
  });

  it('follows New York across the change to daylight time (2026-03-08)', async () => {
    const res = await gqlAt(
      '2026-01-01T00:00:00Z',
      `{ marketCalendar(from: "2026-03-06", to: "2026-03-09") { ${DAY_FIELDS} } }`,
    );
    expect(res.data.marketCalendar).toEqual([
      { date: '2026-03-06', status: 'OPEN', holiday: null, ...openDay('2026-03-06', '2026-03-07', 5) },
      closedDay('2026-03-07', null),
      closedDay('2026-03-08', null),
      { date: '2026-03-09', status: 'OPEN', holiday: null, ...openDay('2026-03-09', '2026-03-10', 4) },
    ]);
  });

  it('a whole year, 2027: the published closures and early close, and every other weekday open', async () => {
    const res = await gqlAt(
      '2026-01-01T00:00:00Z',
      '{ marketCalendar(from: "2027-01-01", to: "2027-12-31") { date status holiday } }',
    );
    const days: { date: string; status: string; holiday: string | null }[] = res.data.marketCalendar;
    expect(days).toHaveLength(365);
    const published = ['01-01', '01-18', '02-15', '03-26', '05-31', '06-18', '07-05', '09-06', '11-25', '12-24'];
    const holidays = days.filter((d) => d.status === 'CLOSED' && d.holiday !== null).map((d) => d.date.slice(5));
    expect(holidays).toEqual(published);
    expect(days.filter((d) => d.status === 'EARLY_CLOSE').map((d) => [d.date, d.holiday])).toEqual([
      ['2027-11-26', 'Thanksgiving'],
    ]);
    for (const d of days) {
      const weekend = [0, 6].includes(new Date(`${d.date}T12:00:00Z`).getUTCDay());
      if (weekend) expect(d, d.date).toEqual({ date: d.date, status: 'CLOSED', holiday: null });
      else if (!published.includes(d.date.slice(5))) expect(['OPEN', 'EARLY_CLOSE'], d.date).toContain(d.status);
    }
    // 52 Saturdays and 52 Sundays, the ten holidays: 251 trading days
    expect(days.filter((d) => d.status !== 'CLOSED')).toHaveLength(251);
  });

  it('takes at most 366 days (a leap year whole), both days included', async () => {
    const leap = await gqlAt(
      '2026-01-01T00:00:00Z',
      '{ marketCalendar(from: "2028-01-01", to: "2028-12-31") { date } }',
    );
    expect(leap.errors).toBeUndefined();
    expect(leap.data.marketCalendar).toHaveLength(366);
    const one = await gqlAt(
      '2026-01-01T00:00:00Z',
      '{ marketCalendar(from: "2026-11-26", to: "2026-11-26") { date status } }',
    );
    expect(one.data.marketCalendar).toEqual([{ date: '2026-11-26', status: 'CLOSED' }]);
    expectBadUserInput(
      await gqlAt('2026-01-01T00:00:00Z', '{ marketCalendar(from: "2027-12-31", to: "2028-12-31") { date } }'),
      'at most 366 days',
      'got 367',
    );
  });

  it.each([
    ['from: "2026-11-27", to: "2026-11-26"', /"from" \(2026-11-27\) is after "to" \(2026-11-26\)/],
    ['from: "1999-12-31", to: "2000-01-03"', /"from" must be a date from 2000-01-01 to 2199-12-31; got 1999-12-31/],
    ['from: "2199-12-30", to: "2200-01-01"', /"to" must be a date from 2000-01-01 to 2199-12-31; got 2200-01-01/],
    ['from: "2026-02-30", to: "2026-03-01"', /2026-02-30/],
    ['from: "2026-11-26T00:00:00Z", to: "2026-11-27"', /2026-11-26T00:00:00Z/],
  ])('marketCalendar(%s) is a coded error naming what is wrong', async (args, message) => {
    const res = await gqlAt('2026-01-01T00:00:00Z', `{ marketCalendar(${args}) { date } }`);
    expect(res.errors, JSON.stringify(res)).toHaveLength(1);
    expect(res.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toMatch(message);
  });

  it('needs a credential; every tier has it', async () => {
    const query = '{ marketStatus { market } marketCalendar(from: "2026-11-26", to: "2026-11-26") { status } }';
    const anonymous = await gqlAt('2026-11-26T15:00:00Z', query, '');
    expect(anonymous.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    const free = await gqlAt('2026-11-26T15:00:00Z', query, 'demo-free');
    expect(free.data).toEqual({ marketStatus: { market: 'CLOSED' }, marketCalendar: [{ status: 'CLOSED' }] });
  });
});
