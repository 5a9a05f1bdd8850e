// GET /stocks/v3/reference/tickers/types and Query.tickerTypes against Massive's documented shape
// (the keys of its GET /v3/reference/tickers/types reference and the client's
// ListTickerTypes200Response), records typed in, and the filters checked against the whole list
// filtered here; every code the sample's security master uses is listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

const PATH = '/stocks/v3/reference/tickers/types';
/** The codes of the `type` filter of Massive's GET /v3/reference/tickers (the client's ListTickersTypeEnum), typed in. */
const CLIENT_TYPE_CODES = [
  'CS',
  'ADRC',
  'ADRP',
  'ADRR',
  'UNIT',
  'RIGHT',
  'PFD',
  'FUND',
  'SP',
  'WARRANT',
  'INDEX',
  'ETF',
  'ETN',
  'OS',
  'GDR',
  'OTHER',
  'NYRS',
  'AGEN',
  'EQLK',
  'BOND',
  'ADRW',
  'BASKET',
  'LT',
];

describe.each(testDatabases())('ticker types on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: any[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    all = (await rest(h, PATH, { key: 'demo-free' })).body.results;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("answers Massive's envelope and records, the whole list on one page, to the free tier", async () => {
    const r = await rest(h, PATH, { key: 'demo-free' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['count', 'request_id', 'results', 'status']);
    expect(r.body).toMatchObject({ count: 25, status: 'OK', request_id: r.headers.get('x-request-id') });
    for (const t of all) expect(Object.keys(t)).toEqual(['asset_class', 'code', 'description', 'locale']);
    expect(new Set(all.map((t) => t.code)).size).toBe(all.length);
    expect(all[0]).toEqual({ asset_class: 'stocks', code: 'CS', description: 'Common Stock', locale: 'us' });
    expect(all.find((t) => t.code === 'ADRC')).toEqual({
      asset_class: 'stocks',
      code: 'ADRC',
      description: 'American Depository Receipt Common',
      locale: 'us',
    });
    expect(all.find((t) => t.code === 'INDEX')).toEqual({
      asset_class: 'indices',
      code: 'INDEX',
      description: 'Index',
      locale: 'us',
    });
    for (const code of CLIENT_TYPE_CODES) expect(all.map((t) => t.code)).toContain(code);
  });

  it('lists every type code the sample security master holds', async () => {
    const rows = await h.db.prisma.security.findMany({ select: { type: true }, distinct: ['type'] });
    const codes = rows.map((r) => r.type).filter((t): t is string => t !== null);
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(all.map((t) => t.code)).toContain(code);
  });

  it.each([
    ['asset_class=stocks', (t: any) => t.asset_class === 'stocks'],
    ['asset_class=indices', (t: any) => t.asset_class === 'indices'],
    ['asset_class=crypto', () => false],
    ['locale=us', (t: any) => t.locale === 'us'],
    ['locale=global', () => false],
    ['asset_class=STOCKS&locale=us', (t: any) => t.asset_class === 'stocks' && t.locale === 'us'],
  ])('?%s answers the whole list filtered so, in its order', async (query, keep) => {
    const r = await rest(h, `${PATH}?${query}`, { key: 'demo-free' });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual(all.filter(keep));
    expect(r.body.count).toBe(r.body.results.length);
  });

  it('answers 400 naming the parameter and the value for a value Massive does not take', async () => {
    expectBadParam(await rest(h, `${PATH}?asset_class=futures`, { key: 'demo-free' }), 'asset_class', 'futures');
    expectBadParam(await rest(h, `${PATH}?locale=eu`, { key: 'demo-free' }), 'locale', 'eu');
  });

  it('Query.tickerTypes is the REST list, field for field, with the same filters', async () => {
    const q = '{ tickerTypes { code description assetClass locale } }';
    const whole = (await h.gql(q, {}, { 'x-api-key': 'demo-free' })).data.tickerTypes;
    expect(whole).toEqual(
      all.map((t) => ({
        code: t.code,
        description: t.description,
        assetClass: t.asset_class.toUpperCase(),
        locale: t.locale.toUpperCase(),
      })),
    );
    const indices = await h.gql(
      '{ tickerTypes(assetClass: INDICES, locale: US) { code } }',
      {},
      { 'x-api-key': 'demo-free' },
    );
    expect(indices.data.tickerTypes).toEqual([{ code: 'INDEX' }]);
  });
});
