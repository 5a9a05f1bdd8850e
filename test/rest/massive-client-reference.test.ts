// The official Massive client, @massive.com/client-js, as written by nobody here, against a live app
// with its base URL at `/stocks` (the server set up as test/rest/massive-client.test.ts does): its
// listConditions, listTickerTypes, getMarketStatus and getMarketHolidays send their own paths and parameters and
// read the answers as its own types. The app's clock is the test's, so the calendar's answers are
// the NYSE's published ones for that day, typed in.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ListConditionsDataTypeEnum,
  ListConditionsOrderEnum,
  ListConditionsSipEnum,
  ListConditionsSortEnum,
  ListTickerTypesAssetClassEnum,
  ListTickerTypesLocaleEnum,
  restClient,
} from '@massive.com/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';

const KEY = 'demo-free';

/** The client's join of followed pages: each next page's results before the page that linked to it. */
const asTheClientJoinsPages = <T>(records: T[], size: number): T[] =>
  Array.from({ length: Math.ceil(records.length / size) }, (_, i) => records.slice(i * size, (i + 1) * size))
    .reverse()
    .flat();

/** Form T as Massive lists it (trade id 12), typed in. */
const FORM_T = {
  asset_class: 'stocks',
  data_types: ['trade'],
  id: 12,
  name: 'Form T/Extended Hours',
  sip_mapping: { CTA: 'T', FINRA_TDDS: 'T', UTP: 'T' },
  type: 'sale_condition',
  update_rules: {
    consolidated: { updates_high_low: false, updates_open_close: false, updates_volume: true },
    market_center: { updates_high_low: false, updates_open_close: false, updates_volume: true },
  },
};

/** NYSE Group's published closures from 2027-06-01 through 2028-05-31 (its 2027 and 2028 calendars), typed in. */
const CLOSURES_2027_06_TO_2028_05: [string, string, 'closed' | 'early-close'][] = [
  ['2027-06-18', 'Juneteenth', 'closed'],
  ['2027-07-05', 'Independence Day', 'closed'],
  ['2027-09-06', 'Labor Day', 'closed'],
  ['2027-11-25', 'Thanksgiving', 'closed'],
  ['2027-11-26', 'Thanksgiving', 'early-close'],
  ['2027-12-24', 'Christmas', 'closed'],
  // 2028-01-01 is a Saturday: no holiday is kept for it (NYSE Rule 7.2)
  ['2028-01-17', 'Martin Luther King, Jr. Day', 'closed'],
  ['2028-02-21', "Washington's Birthday", 'closed'],
  ['2028-04-14', 'Good Friday', 'closed'],
  ['2028-05-29', 'Memorial Day', 'closed'],
];

describe.each(testDatabases())('the official Massive client, reference data and the calendar, on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  let server: Server;
  let base: string;
  let clock = Date.parse('2027-06-01T14:00:00Z');
  const seen: string[] = [];

  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    app = h.appWith({ RATE_LIMIT_FREE: '1000000' }, { now: () => clock });
    server = createServer((req, res) => {
      seen.push(req.url!);
      return app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stocks`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  it('listConditions: pagination follows every next_url to the 94 conditions, each once', async () => {
    const whole = await restClient(KEY, base).listConditions({ limit: 1000 });
    expect(whole.status).toBe('OK');
    expect(whole.count).toBe(94);
    expect(whole.next_url).toBeUndefined();
    expect(whole.results.find((c) => c.id === 12 && c.data_types.includes('trade' as never))).toEqual(FORM_T);

    seen.length = 0;
    const paged = await restClient(KEY, base, { pagination: true }).listConditions({ limit: 10 });
    // the client adds up each page's count
    expect(paged.count).toBe(94);
    expect(paged.results).toEqual(asTheClientJoinsPages(whole.results, 10));
    expect(seen).toHaveLength(10);
    expect(seen[0]).toBe(`/stocks/v3/reference/conditions?apiKey=${KEY}&limit=10`);
    for (const url of seen.slice(1)) {
      expect([...new URL(url, 'http://x').searchParams.keys()].sort()).toEqual(['apiKey', 'cursor']);
    }
  });

  it('listConditions: every parameter it sends, under its own names, is read', async () => {
    seen.length = 0;
    const answer = await restClient(KEY, base).listConditions({
      dataType: ListConditionsDataTypeEnum.Trade,
      id: 12,
      sip: ListConditionsSipEnum.Cta,
      order: ListConditionsOrderEnum.Desc,
      limit: 5,
      sort: ListConditionsSortEnum.Name,
    });
    expect(answer.results).toEqual([FORM_T]);
    expect(answer.count).toBe(1);
    expect([...new URL(seen[0]!, 'http://x').searchParams.keys()].sort()).toEqual(
      ['apiKey', 'data_type', 'id', 'limit', 'order', 'sip', 'sort'].sort(),
    );
  });

  it('listTickerTypes: the whole list, and both parameters it sends, under their own names, read', async () => {
    const whole = await restClient(KEY, base).listTickerTypes();
    expect(whole.status).toBe('OK');
    expect(whole.count).toBe(25);
    expect(whole.results?.[0]).toEqual({
      asset_class: 'stocks',
      code: 'CS',
      description: 'Common Stock',
      locale: 'us',
    });

    seen.length = 0;
    const indices = await restClient(KEY, base).listTickerTypes({
      assetClass: ListTickerTypesAssetClassEnum.Indices,
      locale: ListTickerTypesLocaleEnum.Us,
    });
    expect(indices.results).toEqual([{ asset_class: 'indices', code: 'INDEX', description: 'Index', locale: 'us' }]);
    expect(indices.count).toBe(1);
    expect(seen).toEqual([`/stocks/v3/reference/tickers/types?apiKey=${KEY}&asset_class=indices&locale=us`]);
  });

  it('getMarketStatus: the status at the clock, in its type', async () => {
    clock = Date.parse('2027-11-26T18:30:00Z'); // 13:30 New York, the day after Thanksgiving: after the early close
    expect(await restClient(KEY, base).getMarketStatus()).toEqual({
      afterHours: true,
      currencies: { crypto: 'open', fx: 'open' },
      earlyHours: false,
      exchanges: { nasdaq: 'extended-hours', nyse: 'extended-hours', otc: 'closed' },
      market: 'extended-hours',
      serverTime: '2027-11-26T13:30:00-05:00',
    });
    clock = Date.parse('2027-06-01T14:00:00Z');
    expect(await restClient(KEY, base).getMarketStatus()).toMatchObject({
      market: 'open',
      serverTime: '2027-06-01T10:00:00-04:00',
    });
  });

  it('getMarketHolidays: the published closures of the year ahead, one entry per exchange', async () => {
    clock = Date.parse('2027-06-01T14:00:00Z');
    const holidays = await restClient(KEY, base).getMarketHolidays();
    expect(holidays).toEqual(
      CLOSURES_2027_06_TO_2028_05.flatMap(([date, name, status]) =>
        ['NYSE', 'NASDAQ'].map((exchange) =>
          status === 'early-close'
            ? {
                close: `${date}T18:00:00.000Z`,
                date,
                exchange,
                name,
                open: `${date}T14:30:00.000Z`,
                status,
              }
            : { date, exchange, name, status },
        ),
      ),
    );
  });
});
