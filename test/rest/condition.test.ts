// GET /stocks/v3/reference/conditions against Massive's documented shape (the keys typed in from its
// GET /v3/reference/conditions reference and the client's ListConditions200Response), records typed in
// from Massive's answer, paging that must cover the 94 conditions exactly once, and filters checked
// against a recomputation from the whole list here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, followPages, rest } from './helpers.js';

const PATH = '/stocks/v3/reference/conditions';
/** Massive's envelope, next_url only while a page follows. */
const ENVELOPE_KEYS = ['count', 'next_url', 'request_id', 'results', 'status'];
/** Massive's record: these always, the others only where the condition has them. */
const REQUIRED_KEYS = ['asset_class', 'data_types', 'id', 'name', 'sip_mapping', 'type'];
const OPTIONAL_KEYS = ['abbreviation', 'description', 'exchange', 'legacy', 'update_rules'];
const SIPS = ['CTA', 'UTP', 'OPRA', 'FINRA_TDDS'];
const TYPES = [
  'sale_condition',
  'quote_condition',
  'sip_generated_flag',
  'financial_status_indicator',
  'short_sale_restriction_indicator',
  'settlement_condition',
  'market_condition',
  'trade_thru_exempt',
];
/** Massive lists 94 stock conditions. */
const TOTAL = 94;

const rule = (highLow: boolean, openClose: boolean, volume: boolean) => ({
  updates_high_low: highLow,
  updates_open_close: openClose,
  updates_volume: volume,
});

/** Records as Massive answers them (its /v3/reference/conditions, asset_class=stocks), typed in. */
const ODD_LOT = {
  asset_class: 'stocks',
  data_types: ['trade'],
  id: 37,
  name: 'Odd Lot Trade',
  sip_mapping: { CTA: 'I', FINRA_TDDS: 'I', UTP: 'I' },
  type: 'sale_condition',
  update_rules: { consolidated: rule(false, false, true), market_center: rule(false, false, true) },
};
const RULE_155 = {
  asset_class: 'stocks',
  data_types: ['trade'],
  exchange: 1,
  id: 23,
  name: 'Rule 155 Trade (AMEX)',
  sip_mapping: { CTA: 'K', UTP: 'K' },
  type: 'sale_condition',
  update_rules: { consolidated: rule(true, true, true), market_center: rule(true, true, true) },
};
const CAP_ELECTION = {
  asset_class: 'stocks',
  data_types: ['trade'],
  id: 6,
  legacy: true,
  name: 'CAP Election',
  sip_mapping: { CTA: 'I' },
  type: 'sale_condition',
  update_rules: { consolidated: rule(true, true, true), market_center: rule(true, true, true) },
};
const MANUAL_BID_AND_ASK = {
  asset_class: 'stocks',
  data_types: ['bbo', 'nbbo'],
  id: 12,
  name: 'Manual Bid and Ask',
  sip_mapping: { UTP: 'H' },
  type: 'quote_condition',
};

const keyOf = (c: { id: number; name: string; data_types: string[] }) => `${c.data_types.join('+')}:${c.id}:${c.name}`;

describe.each(testDatabases())('REST conditions on $name', (tdb) => {
  let h: GraphQLHarness;
  /** Every condition, one page: what the filters are recomputed from here. */
  let all: any[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    all = (await rest(h, `${PATH}?limit=1000`)).body.results;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("answers Massive's envelope and records: the documented keys, absent ones left out, never null", async () => {
    const r = await rest(h, PATH, { key: 'demo-free' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(ENVELOPE_KEYS);
    expect(r.body).toMatchObject({ count: 10, status: 'OK', request_id: r.headers.get('x-request-id') });
    expect(r.body.results).toHaveLength(10);
    expect(all).toHaveLength(TOTAL);
    for (const c of all) {
      for (const k of REQUIRED_KEYS) expect(c, `${keyOf(c)} has ${k}`).toHaveProperty(k);
      for (const k of Object.keys(c)) expect([...REQUIRED_KEYS, ...OPTIONAL_KEYS], keyOf(c)).toContain(k);
      for (const v of Object.values(c)) expect(v).not.toBeNull();
      expect(c.asset_class).toBe('stocks');
      expect(TYPES).toContain(c.type);
      for (const sip of Object.keys(c.sip_mapping)) expect(SIPS).toContain(sip);
      // legacy is left out when false, as Massive does
      if ('legacy' in c) expect(c.legacy).toBe(true);
    }
    expect(all.filter((c) => c.legacy)).toHaveLength(8);
    const find = (id: number, dataType: string, name?: string) =>
      all.find((c) => c.id === id && c.data_types.includes(dataType) && (name === undefined || c.name === name));
    expect(find(37, 'trade')).toEqual(ODD_LOT);
    expect(find(23, 'trade')).toEqual(RULE_155);
    expect(find(6, 'trade')).toEqual(CAP_ELECTION);
    expect(find(12, 'bbo')).toEqual(MANUAL_BID_AND_ASK);
    // the same id names another condition on a trade: Form T
    expect(find(12, 'trade')).toMatchObject({
      name: 'Form T/Extended Hours',
      update_rules: { consolidated: rule(false, false, true) },
    });
  });

  it("lists trade conditions first by id by default (Massive's order): the first page is trade ids 1 to 10", async () => {
    const r = await rest(h, PATH);
    expect(r.body.results.map((c: any) => [c.id, c.data_types])).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((id) => [id, ['trade']]),
    );
    expect(r.body.results[1]).toMatchObject({
      name: 'Average Price Trade',
      sip_mapping: { CTA: 'B', FINRA_TDDS: 'W', UTP: 'W' },
      update_rules: { consolidated: rule(false, false, true), market_center: rule(false, false, true) },
    });
  });

  it.each([1, 7, 10, 93, 94, 1000])(
    'pages of %i by next_url cover the 94 conditions exactly once, in order',
    async (limit) => {
      const pages = await followPages(h, `${PATH}?limit=${limit}`);
      expect(pages).toHaveLength(Math.ceil(TOTAL / limit));
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(limit);
      const flat = pages.flat();
      expect(new Set(flat.map(keyOf)).size).toBe(TOTAL);
      expect(flat).toEqual(all);
    },
  );

  it('each page says its count, next_url carries the filters and sort, and the last page has no next_url', async () => {
    const first = await rest(h, `${PATH}?data_type=trade&sort=name&order=desc&limit=20`);
    expect(first.body.count).toBe(20);
    const second = await rest(h, first.body.next_url);
    expect(second.body.count).toBe(20);
    const pages = await followPages(h, `${PATH}?data_type=trade&sort=name&order=desc&limit=20`);
    const expected = all.filter((c) => c.data_types.includes('trade')).map((c) => c.name);
    expect(pages.flat().map((c) => c.name)).toEqual([...expected].sort().reverse());
    const last = await rest(h, `${PATH}?data_type=trade&limit=1000`);
    expect(Object.keys(last.body)).toEqual(['count', 'request_id', 'results', 'status']);
    // a page size sent with the cursor is honoured; a filter that contradicts it is a 400
    const bigger = await rest(h, `${first.body.next_url}&limit=1000`);
    expect(bigger.body.results.map((c: any) => c.name)).toEqual([...expected].sort().reverse().slice(20));
    expectBadParam(await rest(h, `${first.body.next_url}&data_type=bbo`), 'data_type', 'bbo');
    const cursor = new URL(first.body.next_url).searchParams.get('cursor')!;
    const tampered = (cursor[0] === 'e' ? 'f' : 'e') + cursor.slice(1);
    expectBadParam(await rest(h, `${PATH}?cursor=${tampered}`), 'cursor');
    // a trades cursor does not open the conditions
    expectBadParam(await rest(h, `/stocks/v3/trades/NVLX?cursor=${cursor}`), 'cursor');
  });

  it.each([
    ['data_type=trade', (c: any) => c.data_types.includes('trade')],
    ['data_type=bbo', (c: any) => c.data_types.includes('bbo')],
    ['data_type=NBBO', (c: any) => c.data_types.includes('nbbo')],
    ['sip=CTA', (c: any) => 'CTA' in c.sip_mapping],
    ['sip=utp', (c: any) => 'UTP' in c.sip_mapping],
    ['sip=OPRA', () => false],
    ['id=12', (c: any) => c.id === 12],
    ['id=30&data_type=nbbo', (c: any) => c.id === 30 && c.data_types.includes('nbbo')],
    ['asset_class=stocks', () => true],
    ['asset_class=options', () => false],
    ['asset_class=crypto&data_type=trade', () => false],
    ['sip=CTA&data_type=trade&id=41', (c: any) => c.id === 41 && c.data_types.includes('trade')],
  ] as const)('filters %s as the whole list filtered here', async (query, keep) => {
    const r = await rest(h, `${PATH}?${query}&limit=1000`);
    expect(r.status).toBe(200);
    const expected = all.filter(keep);
    expect(r.body.results).toEqual(expected);
    expect(r.body.count).toBe(expected.length);
  });

  it('filters to the conditions typed in from Massive: trades 55, quotes on a venue and national', async () => {
    const count = async (q: string) => (await rest(h, `${PATH}?${q}&limit=1000`)).body.count;
    // 40 sale conditions, the trade-through exemption, 4 short-sale and 10 financial-status indicators
    expect(await count('data_type=trade')).toBe(55);
    expect(
      (await rest(h, `${PATH}?id=30&data_type=nbbo`)).body.results.map((c: any) => [c.name, c.legacy ?? false]),
    ).toEqual([
      ['In View Of Common', false],
      ['Equipment Changeover', true],
    ]);
    expect((await rest(h, `${PATH}?id=41&data_type=trade`)).body.results).toEqual([
      expect.objectContaining({
        name: 'Trade Thru Exempt',
        type: 'trade_thru_exempt',
        sip_mapping: { CTA: '1', UTP: 'X' },
      }),
    ]);
  });

  it.each(['id', 'type', 'name', 'data_types', 'legacy'])(
    'sorts by %s both ways; desc is asc reversed',
    async (sort) => {
      const asc = (await rest(h, `${PATH}?sort=${sort}&limit=1000`)).body.results;
      const desc = (await rest(h, `${PATH}?sort=${sort}&order=desc&limit=1000`)).body.results;
      const value = (c: any) =>
        sort === 'data_types' ? c.data_types.join(',') : sort === 'legacy' ? (c.legacy ? 1 : 0) : c[sort];
      for (let i = 1; i < asc.length; i++) expect(value(asc[i - 1]) <= value(asc[i]), `${sort} at ${i}`).toBe(true);
      expect(desc).toEqual([...asc].reverse());
      expect(new Set(asc.map(keyOf)).size).toBe(TOTAL);
    },
  );

  it.each([
    ['asset_class=bonds', 'asset_class', 'bonds'],
    ['data_type=quote', 'data_type', 'quote'],
    ['id=-1', 'id', '-1'],
    ['id=twelve', 'id', 'twelve'],
    ['sip=FINRA', 'sip', 'FINRA'],
    ['order=up', 'order', 'up'],
    ['limit=0', 'limit', '0'],
    ['limit=1001', 'limit', '1001'],
    ['sort=price', 'sort', 'price'],
    ['sort=id&sort=name', 'sort'],
  ] as [string, string, string?][])('?%s is a 400 naming the parameter', async (query, name, value) => {
    expectBadParam(await rest(h, `${PATH}?${query}`), name, value);
  });

  it('agrees with its GraphQL twin, Query.conditions', async () => {
    const res = await h.gql(
      '{ conditions(dataType: TRADE, sip: CTA) { conditionId type name assetClass dataTypes legacy exchange sipMapping { cta utp opra finraTdds } updateRules { consolidated { updatesHighLow updatesOpenClose updatesVolume } marketCenter { updatesHighLow updatesOpenClose updatesVolume } } } }',
    );
    expect(res.errors).toBeUndefined();
    const rules = (r: any) => r && rule(r.updatesHighLow, r.updatesOpenClose, r.updatesVolume);
    const asRest = res.data.conditions.map((c: any) =>
      Object.fromEntries(
        Object.entries({
          asset_class: c.assetClass.toLowerCase(),
          data_types: c.dataTypes.map((d: string) => d.toLowerCase()),
          exchange: c.exchange,
          id: c.conditionId,
          legacy: c.legacy || null,
          name: c.name,
          sip_mapping: Object.fromEntries(
            Object.entries({
              CTA: c.sipMapping.cta,
              FINRA_TDDS: c.sipMapping.finraTdds,
              OPRA: c.sipMapping.opra,
              UTP: c.sipMapping.utp,
            }).filter(([, v]) => v !== null),
          ),
          type: c.type.toLowerCase(),
          update_rules: c.updateRules && {
            consolidated: rules(c.updateRules.consolidated),
            market_center: rules(c.updateRules.marketCenter),
          },
        }).filter(([, v]) => v !== null),
      ),
    );
    expect(asRest).toEqual((await rest(h, `${PATH}?data_type=trade&sip=CTA&limit=1000`)).body.results);
  });
});
