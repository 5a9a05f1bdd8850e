// GET /stocks/v1/marketstatus/now and /upcoming at instants a test's clock sets (createApp's `now`),
// against the NYSE's published 2026-2027 holiday calendar and the sessions' New York hours, typed in,
// and Massive's documented keys (its client's GetMarketStatus200Response and holiday entries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from './helpers.js';

/** Massive's documented keys of /v1/marketstatus/now; all are answered but indicesGroups. */
const STATUS_KEYS = ['afterHours', 'currencies', 'earlyHours', 'exchanges', 'indicesGroups', 'market', 'serverTime'];
const ANSWERED_KEYS = ['afterHours', 'currencies', 'earlyHours', 'exchanges', 'market', 'serverTime'];
/** The instants of the table below in the forex weekend (Friday 17:00 to Sunday 17:00 New York). */
const FX_CLOSED = new Set(['2026-11-27T22:00:00Z', '2026-07-04T15:00:00Z']);
/** Massive's documented keys of an upcoming entry; open and close only on an early close. */
const HOLIDAY_KEYS = ['close', 'date', 'exchange', 'name', 'open', 'status'];

type Entry = { date: string; name: string; status: 'closed' | 'early-close'; open?: string; close?: string };

/**
 * NYSE Group's published 2026 and 2027 closures and early closes (1:00 p.m. New York), typed in,
 * with the regular session's open and early close in UTC (EST: 14:30Z and 18:00Z).
 */
const PUBLISHED: Entry[] = [
  { date: '2026-11-26', name: 'Thanksgiving', status: 'closed' },
  {
    date: '2026-11-27',
    name: 'Thanksgiving',
    status: 'early-close',
    open: '2026-11-27T14:30:00.000Z',
    close: '2026-11-27T18:00:00.000Z',
  },
  {
    date: '2026-12-24',
    name: 'Christmas',
    status: 'early-close',
    open: '2026-12-24T14:30:00.000Z',
    close: '2026-12-24T18:00:00.000Z',
  },
  { date: '2026-12-25', name: 'Christmas', status: 'closed' },
  { date: '2027-01-01', name: 'New Years Day', status: 'closed' },
  { date: '2027-01-18', name: 'Martin Luther King, Jr. Day', status: 'closed' },
  { date: '2027-02-15', name: "Washington's Birthday", status: 'closed' },
  { date: '2027-03-26', name: 'Good Friday', status: 'closed' },
  { date: '2027-05-31', name: 'Memorial Day', status: 'closed' },
  { date: '2027-06-18', name: 'Juneteenth', status: 'closed' },
  { date: '2027-07-05', name: 'Independence Day', status: 'closed' },
  { date: '2027-09-06', name: 'Labor Day', status: 'closed' },
  { date: '2027-11-25', name: 'Thanksgiving', status: 'closed' },
  {
    date: '2027-11-26',
    name: 'Thanksgiving',
    status: 'early-close',
    open: '2027-11-26T14:30:00.000Z',
    close: '2027-11-26T18:00:00.000Z',
  },
  { date: '2027-12-24', name: 'Christmas', status: 'closed' },
];

/** Massive's entries: one per exchange and day, NYSE then NASDAQ, keys in its order. */
const asMassive = (entries: Entry[]) =>
  entries.flatMap((e) =>
    ['NYSE', 'NASDAQ'].map((exchange) => ({
      ...(e.close ? { close: e.close } : {}),
      date: e.date,
      exchange,
      name: e.name,
      ...(e.open ? { open: e.open } : {}),
      status: e.status,
    })),
  );
const between = (from: string, to: string) => PUBLISHED.filter((e) => e.date >= from && e.date <= to);

describe.each(testDatabases())('REST market status on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  let clock = 0;
  const at = (iso: string) => {
    clock = Date.parse(iso);
    return { app };
  };
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    app = h.appWith({ RATE_LIMIT_FREE: '1000000' }, { now: () => clock });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it.each([
    // an early close: the regular session ends at 13:00, after-hours at 17:00 (EST: 18:00Z and 22:00Z)
    ['2026-11-27T15:00:00Z', 'open', false, false, '2026-11-27T10:00:00-05:00'],
    ['2026-11-27T17:59:59Z', 'open', false, false, '2026-11-27T12:59:59-05:00'],
    ['2026-11-27T18:00:00Z', 'extended-hours', false, true, '2026-11-27T13:00:00-05:00'],
    ['2026-11-27T21:59:59Z', 'extended-hours', false, true, '2026-11-27T16:59:59-05:00'],
    ['2026-11-27T22:00:00Z', 'closed', false, false, '2026-11-27T17:00:00-05:00'],
    // Thanksgiving: closed all day
    ['2026-11-26T15:00:00Z', 'closed', false, false, '2026-11-26T10:00:00-05:00'],
    // a summer Monday (EDT): pre-market from 04:00, the regular session 09:30-16:00, after-hours to 20:00
    ['2026-07-06T07:59:59Z', 'closed', false, false, '2026-07-06T03:59:59-04:00'],
    ['2026-07-06T08:00:00Z', 'extended-hours', true, false, '2026-07-06T04:00:00-04:00'],
    ['2026-07-06T13:30:00.999Z', 'open', false, false, '2026-07-06T09:30:00-04:00'],
    ['2026-07-06T20:00:00Z', 'extended-hours', false, true, '2026-07-06T16:00:00-04:00'],
    ['2026-07-07T00:00:00Z', 'closed', false, false, '2026-07-06T20:00:00-04:00'],
    // Independence Day observed on Friday 2026-07-03, and a Saturday
    ['2026-07-03T15:00:00Z', 'closed', false, false, '2026-07-03T11:00:00-04:00'],
    ['2026-07-04T15:00:00Z', 'closed', false, false, '2026-07-04T11:00:00-04:00'],
  ])('at %s the market is %s', async (iso, market, earlyHours, afterHours, serverTime) => {
    const r = await rest(at(iso), '/stocks/v1/marketstatus/now', { key: 'demo-free' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      afterHours,
      currencies: { crypto: 'open', fx: FX_CLOSED.has(iso) ? 'closed' : 'open' },
      earlyHours,
      // OTC has no extended session in Massive's answers: closed outside the regular one
      exchanges: { nasdaq: market, nyse: market, otc: market === 'open' ? 'open' : 'closed' },
      market,
      serverTime,
    });
    expect(Object.keys(r.body.exchanges)).toEqual(['nasdaq', 'nyse', 'otc']);
    expect(Object.keys(r.body)).toEqual(ANSWERED_KEYS);
    for (const k of Object.keys(r.body)) expect(STATUS_KEYS).toContain(k);
  });

  it('lists the closures and early closes from today (New York) through the next 365 days, as published', async () => {
    const r = await rest(at('2026-11-20T15:00:00Z'), '/stocks/v1/marketstatus/upcoming', { key: 'demo-free' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(asMassive(between('2026-11-20', '2027-11-20')));
    for (const e of r.body) for (const k of Object.keys(e)) expect(HOLIDAY_KEYS).toContain(k);
    // 365 days on from 2026-11-25: Thanksgiving 2027 is in, its early close the day after is not
    const later = await rest(at('2026-11-25T15:00:00Z'), '/stocks/v1/marketstatus/upcoming');
    expect(later.body).toEqual(asMassive(between('2026-11-25', '2027-11-25')));
    expect(later.body.at(-1)).toMatchObject({ date: '2027-11-25', status: 'closed' });
  });

  it("takes today as New York's date: 23:30 on the eve of Thanksgiving still lists it, 00:30 after it does not", async () => {
    const eve = await rest(at('2026-11-26T04:30:00Z'), '/stocks/v1/marketstatus/upcoming');
    expect(eve.body[0]).toMatchObject({ date: '2026-11-26', status: 'closed' });
    const after = await rest(at('2026-11-27T05:30:00Z'), '/stocks/v1/marketstatus/upcoming');
    expect(after.body[0]).toMatchObject({ date: '2026-11-27', status: 'early-close' });
    expect(after.body).toEqual(asMassive(between('2026-11-27', '2027-11-27')));
  });

  it('takes no parameters: any sent is set aside and named', async () => {
    const r = await rest(at('2026-11-27T15:00:00Z'), '/stocks/v1/marketstatus/now?date=2026-01-01');
    expect(r.status).toBe(200);
    expect(r.body.market).toBe('open');
    expect(r.headers.get('x-ignored-parameters')).toBe('date');
  });

  it('answers with the real clock when no test sets one', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const r = await rest(h, '/stocks/v1/marketstatus/now');
    const answered = Date.parse(r.body.serverTime);
    expect(answered).toBeGreaterThanOrEqual(before);
    expect(answered).toBeLessThanOrEqual(Date.now());
  });

  it('needs a credential', async () => {
    expect((await rest(at('2026-11-27T15:00:00Z'), '/stocks/v1/marketstatus/upcoming', { key: null })).status).toBe(
      401,
    );
  });
});
