// Query.conditions: Massive's 94 stock conditions, typed-in records and counts, its two filters
// checked against the whole list filtered here, and the fixed size the cost analysis counts it at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const FIELDS =
  'conditionId type name assetClass dataTypes legacy exchange sipMapping { cta utp opra finraTdds } updateRules { consolidated { updatesHighLow updatesOpenClose updatesVolume } marketCenter { updatesHighLow updatesOpenClose updatesVolume } }';
const rule = (updatesHighLow: boolean, updatesOpenClose: boolean, updatesVolume: boolean) => ({
  updatesHighLow,
  updatesOpenClose,
  updatesVolume,
});

describe.each(testDatabases())('GraphQL conditions on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: any[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    all = (await h.gql(`{ conditions { ${FIELDS} } }`, {}, { 'x-api-key': 'demo-free' })).data.conditions;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("answers Massive's 94 stock conditions, with their records as Massive gives them", () => {
    expect(all).toHaveLength(94);
    expect(all.every((c) => c.assetClass === 'STOCKS')).toBe(true);
    expect(all.filter((c) => c.legacy)).toHaveLength(8);
    const find = (id: number, dataType: string) =>
      all.find((c) => c.conditionId === id && c.dataTypes.includes(dataType) && !c.legacy);
    expect(find(2, 'TRADE')).toEqual({
      conditionId: 2,
      type: 'SALE_CONDITION',
      name: 'Average Price Trade',
      assetClass: 'STOCKS',
      dataTypes: ['TRADE'],
      legacy: false,
      exchange: null,
      sipMapping: { cta: 'B', utp: 'W', opra: null, finraTdds: 'W' },
      updateRules: { consolidated: rule(false, false, true), marketCenter: rule(false, false, true) },
    });
    expect(find(24, 'TRADE')).toMatchObject({ name: 'Rule 127 (NYSE Only)', exchange: 10 });
    expect(find(1, 'NBBO')).toEqual({
      conditionId: 1,
      type: 'QUOTE_CONDITION',
      name: 'Regular Two-Sided Open',
      assetClass: 'STOCKS',
      dataTypes: ['BBO', 'NBBO'],
      legacy: false,
      exchange: null,
      sipMapping: { cta: 'R', utp: 'R', opra: null, finraTdds: null },
      updateRules: null,
    });
  });

  it.each([
    ['dataType: TRADE', (c: any) => c.dataTypes.includes('TRADE')],
    ['dataType: BBO', (c: any) => c.dataTypes.includes('BBO')],
    ['dataType: NBBO, sip: UTP', (c: any) => c.dataTypes.includes('NBBO') && c.sipMapping.utp !== null],
    ['sip: CTA', (c: any) => c.sipMapping.cta !== null],
    ['sip: OPRA', () => false],
  ] as const)('conditions(%s) is the whole list filtered here', async (args, keep) => {
    const res = await h.gql(`{ conditions(${args}) { ${FIELDS} } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.conditions).toEqual(all.filter(keep));
  });

  it('counts 55 trade conditions (40 sale conditions, 1 trade-through exemption, 14 indicators)', async () => {
    const res = await h.gql('{ conditions(dataType: TRADE) { type } }');
    const types = res.data.conditions.map((c: { type: string }) => c.type);
    expect(types).toHaveLength(55);
    expect(types.filter((t: string) => t === 'SALE_CONDITION')).toHaveLength(40);
  });

  it('is counted at its fixed size, 94 records, whatever the filter', async () => {
    const one = await h.gql('{ conditions(sip: OPRA) { name } }');
    const whole = await h.gql('{ conditions { name } }');
    expect(one.extensions?.cost?.requested).toBe(whole.extensions?.cost?.requested);
    // one leaf more per record costs one unit per record: 94 of them
    const more = await h.gql('{ conditions { name conditionId } }');
    expect(more.extensions!.cost!.requested - whole.extensions!.cost!.requested).toBe(94);
  });

  it('needs a credential', async () => {
    const res = await h.gql('{ conditions { name } }', {}, {});
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
