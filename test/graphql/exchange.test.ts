import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXCHANGES } from '../../src/services/exchange.js';
import { expectBadUserInput, graphqlHarness, type GraphQLHarness } from './helpers.js';
import { testDatabases } from '../helpers.js';

const FIELDS = 'exchangeId type assetClass locale name acronym mic operatingMic participantId url';

/** A document the response cache has not seen: what a statement count measures. */
const fresh = (selection: string) => `query Exchanges${randomUUID().replaceAll('-', '')} ${selection}`;

describe.each(testDatabases())('GraphQL exchanges on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The stored exchanges in the shape the API answers with, by id. */
  async function expected(where: { assetClass?: 'stocks' | 'options'; locale?: 'us' | 'global' } = {}) {
    const rows = await h.db.prisma.exchange.findMany({ where, orderBy: { id: 'asc' } });
    return rows.map(({ id, ...e }) => ({
      exchangeId: id,
      ...e,
      assetClass: e.assetClass.toUpperCase(),
      locale: e.locale.toUpperCase(),
    }));
  }

  it("answers every stored exchange by Massive's id, absent fields as null", async () => {
    const res = await h.gql(`{ exchanges { ${FIELDS} } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.exchanges).toEqual(await expected());
    const byId = new Map(res.data.exchanges.map((e: { exchangeId: number }) => [e.exchangeId, e]));
    // the sample's SIP venues: NYSE American has an acronym, the CTA no MIC, the FINRA TRFs no participant id
    expect(byId.get(1)).toMatchObject({ name: 'NYSE American, LLC', acronym: 'AMEX', mic: 'XASE', participantId: 'A' });
    expect(byId.get(13)).toMatchObject({ type: 'SIP', mic: null, acronym: null, operatingMic: 'XNYS' });
    expect(byId.get(201)).toMatchObject({ type: 'TRF', mic: 'FINY', participantId: null });
  });

  it('every exchange id of the sample trades and quotes is a stored exchange', async () => {
    const ids = new Set((await h.db.prisma.exchange.findMany({ select: { id: true } })).map((e) => e.id));
    const used = await h.db.prisma.$queryRawUnsafe<{ id: number }[]>(
      'SELECT DISTINCT "exchange" AS id FROM "Trade" UNION SELECT DISTINCT "askExchange" FROM "Quote" UNION SELECT DISTINCT "bidExchange" FROM "Quote"',
    );
    expect(used.length).toBeGreaterThan(0);
    for (const { id } of used) expect(ids.has(Number(id)), `exchange ${id}`).toBe(true);
  });

  it('filters by asset class and by locale, each alone and both', async () => {
    await h.db.prisma.exchange.create({
      data: {
        id: 999,
        type: 'exchange',
        assetClass: 'options',
        locale: 'global',
        name: 'Test Options Exchange',
        mic: 'TOPX',
      },
    });
    try {
      const ask = async (args: string) => {
        const res = await h.gql(fresh(`{ exchanges(${args}) { ${FIELDS} } }`));
        expect(res.errors, args).toBeUndefined();
        return res.data.exchanges;
      };
      expect(await ask('assetClass: STOCKS')).toEqual(await expected({ assetClass: 'stocks' }));
      expect(await ask('assetClass: OPTIONS')).toEqual(await expected({ assetClass: 'options' }));
      expect(await ask('locale: GLOBAL')).toEqual(await expected({ locale: 'global' }));
      expect(await ask('assetClass: STOCKS, locale: US')).toEqual(
        await expected({ assetClass: 'stocks', locale: 'us' }),
      );
      expect((await ask('assetClass: OPTIONS')).map((e: { exchangeId: number }) => e.exchangeId)).toEqual([999]);
      expect(await ask('assetClass: OPTIONS, locale: US')).toEqual([]);
      expect(await ask('assetClass: FUTURES')).toEqual([]);
    } finally {
      await h.db.prisma.exchange.delete({ where: { id: 999 } });
    }
  });

  it.each([
    ['an asset class that is not one', '{ exchanges(assetClass: BONDS) { id } }', 'argument "assetClass"', '"BONDS"'],
    ['a locale that is not one', '{ exchanges(locale: EU) { id } }', 'argument "locale"', '"EU"'],
    ['a lower-case value', '{ exchanges(assetClass: stocks) { id } }', 'argument "assetClass"', '"stocks"'],
  ])('refuses %s with BAD_USER_INPUT naming the argument and the value', async (_case, query, ...mentions) => {
    const res = await h.gql(query);
    expect(res.data?.exchanges ?? null).toBeNull();
    expectBadUserInput(res, ...mentions);
  });

  it('refuses a bad variable naming the variable and the value', async () => {
    const res = await h.gql('query($a: AssetClass) { exchanges(assetClass: $a) { id } }', { a: 'bonds' });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.message).toContain('$a');
    expect(res.errors![0]!.message).toContain('bonds');
  });

  it('every tier reads them, the free one too; without credentials the field is UNAUTHENTICATED', async () => {
    const free = await h.gql(fresh('{ exchanges(assetClass: STOCKS) { id } }'), undefined, {
      'x-api-key': 'demo-free',
    });
    expect(free.errors).toBeUndefined();
    expect(free.data.exchanges.length).toBe((await expected({ assetClass: 'stocks' })).length);
    const none = await h.gql(fresh('{ exchanges { id } }'), undefined, {});
    expect(none.data).toEqual({ exchanges: null });
    expect(none.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('node(id) returns the same exchange, to the free tier too', async () => {
    const listed = await h.gql(fresh(`{ exchanges(assetClass: STOCKS) { id ${FIELDS} } }`));
    const nyse = listed.data.exchanges.find((e: { exchangeId: number }) => e.exchangeId === 10);
    const res = await h.gql(
      `query($id: ID!) { node(id: $id) { __typename ... on Exchange { id ${FIELDS} } } }`,
      { id: nyse.id },
      {
        'x-api-key': 'demo-free',
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual({ __typename: 'Exchange', ...nyse });
  });

  it('the whole list, filtered or not, is one SQL statement', async () => {
    for (const args of ['', '(assetClass: STOCKS)', '(assetClass: STOCKS, locale: US)']) {
      const statements = await h.countWarmStatements(async () => {
        const res = await h.gql(fresh(`{ exchanges${args} { ${FIELDS} } }`));
        expect(res.errors).toBeUndefined();
      });
      expect(statements, args).toBe(1);
    }
  });

  it('is public reference data: the second identical query is served from the response cache, without SQL', async () => {
    const query = fresh(`{ exchanges(locale: US) { ${FIELDS} } }`);
    let first: unknown;
    expect(await h.countStatements(async () => (first = await h.gql(query)))).toBeGreaterThan(0);
    let second: unknown;
    expect(await h.countStatements(async () => (second = await h.gql(query)))).toBe(0);
    expect(second).toEqual(first);
  });

  it(`answers at most ${MAX_EXCHANGES} exchanges`, async () => {
    const ids = Array.from({ length: MAX_EXCHANGES }, (_, i) => 10_000 + i);
    await h.db.prisma.exchange.createMany({
      data: ids.map((id) => ({
        id,
        type: 'exchange',
        assetClass: 'crypto' as const,
        locale: 'global' as const,
        name: `X${id}`,
      })),
    });
    try {
      const res = await h.gql(fresh('{ exchanges { exchangeId } }'));
      expect(res.errors).toBeUndefined();
      expect(res.data.exchanges).toHaveLength(MAX_EXCHANGES);
      // by id: the sample's own venues come first
      expect(res.data.exchanges[0]).toEqual({ exchangeId: 1 });
    } finally {
      await h.db.prisma.exchange.deleteMany({ where: { id: { in: ids } } });
    }
  });
});
