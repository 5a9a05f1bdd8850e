import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// Massive's documented keys of GET /v3/reference/exchanges (not from the code): the envelope, and a
// record's, of which acronym, mic, operating_mic, participant_id and url are left out when absent.
const ENVELOPE_KEYS = ['count', 'request_id', 'results', 'status'];
const REQUIRED_KEYS = ['asset_class', 'id', 'locale', 'name', 'type'];
const OPTIONAL_KEYS = ['acronym', 'mic', 'operating_mic', 'participant_id', 'url'];
const PATH = '/stocks/v3/reference/exchanges';

describe.each(testDatabases())('REST exchanges on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** A stored exchange in Massive's shape, built from the database alone: a null column is a key left out. */
  async function expectedRecords(where: { assetClass?: 'stocks' | 'options'; locale?: 'us' | 'global' } = {}) {
    const rows = await h.db.prisma.exchange.findMany({ where, orderBy: { id: 'asc' } });
    return rows.map((e) =>
      Object.fromEntries(
        Object.entries({
          acronym: e.acronym,
          asset_class: e.assetClass,
          id: e.id,
          locale: e.locale,
          mic: e.mic,
          name: e.name,
          operating_mic: e.operatingMic,
          participant_id: e.participantId,
          type: e.type,
          url: e.url,
        }).filter(([, v]) => v !== null),
      ),
    );
  }

  it("answers the whole list in Massive's envelope, by id, absent fields left out", async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(ENVELOPE_KEYS);
    expect(r.body.status).toBe('OK');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    const stored = await expectedRecords();
    expect(r.body.count).toBe(stored.length);
    expect(r.body.results).toEqual(stored);
    for (const e of r.body.results) {
      expect(Object.keys(e).filter((k) => REQUIRED_KEYS.includes(k))).toEqual(REQUIRED_KEYS);
      for (const k of Object.keys(e)) expect([...REQUIRED_KEYS, ...OPTIONAL_KEYS]).toContain(k);
      for (const v of Object.values(e)) expect(v).not.toBeNull();
    }
    // the CTA has no MIC and no acronym: the keys are absent, not null
    const cta = r.body.results.find((e: any) => e.id === 13);
    expect(Object.keys(cta).sort()).toEqual([
      'asset_class',
      'id',
      'locale',
      'name',
      'operating_mic',
      'participant_id',
      'type',
      'url',
    ]);
    expect(r.body.results[0]).toEqual({
      acronym: 'AMEX',
      asset_class: 'stocks',
      id: 1,
      locale: 'us',
      mic: 'XASE',
      name: 'NYSE American, LLC',
      operating_mic: 'XNYS',
      participant_id: 'A',
      type: 'exchange',
      url: 'https://www.nyse.com/markets/nyse-american',
    });
  });

  it('asset_class and locale filter, alone and together', async () => {
    await h.db.prisma.exchange.create({
      data: { id: 998, type: 'exchange', assetClass: 'options', locale: 'us', name: 'Test Options Exchange' },
    });
    try {
      for (const [q, where] of [
        ['asset_class=stocks', { assetClass: 'stocks' }],
        ['asset_class=options', { assetClass: 'options' }],
        ['locale=us', { locale: 'us' }],
        ['asset_class=options&locale=us', { assetClass: 'options', locale: 'us' }],
        ['locale=global', { locale: 'global' }],
      ] as const) {
        const r = await rest(h, `${PATH}?${q}`);
        expect(r.status, q).toBe(200);
        const stored = await expectedRecords(where);
        expect(r.body.results, q).toEqual(stored);
        expect(r.body.count, q).toBe(stored.length);
      }
      const options = await rest(h, `${PATH}?asset_class=options`);
      expect(options.body.results).toEqual([
        { asset_class: 'options', id: 998, locale: 'us', name: 'Test Options Exchange', type: 'exchange' },
      ]);
      const none = await rest(h, `${PATH}?asset_class=fx`);
      expect(none.body).toMatchObject({ count: 0, results: [], status: 'OK' });
    } finally {
      await h.db.prisma.exchange.delete({ where: { id: 998 } });
    }
  });

  it('rejects bad parameters with a 400 naming the parameter and the value, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['?asset_class=bonds', 'asset_class', 'bonds'],
      ['?asset_class=stocks,options', 'asset_class', 'stocks,options'],
      ['?locale=eu', 'locale', 'eu'],
      [`?locale=${encodeURIComponent("' OR 1=1 --")}`, 'locale', "' OR 1=1 --"],
      ['?asset_class=stocks&asset_class=options', 'asset_class'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, PATH + q), name, value);
    const bad = await rest(h, `${PATH}?asset_class=bonds`);
    expect(bad.body.message).toBe(
      'parameter asset_class must be one of stocks, options, crypto, fx, futures; got "bonds"',
    );
    expect((await rest(h, `${PATH}?locale=eu`)).body.message).toBe(
      'parameter locale must be one of us, global; got "eu"',
    );
  });

  it('agrees with GraphQL exchanges: same exchanges, same values, in the same order', async () => {
    for (const [q, args] of [
      ['', ''],
      ['?asset_class=stocks&locale=us', '(assetClass: STOCKS, locale: US)'],
    ]) {
      const g = await h.gql(
        `{ exchanges${args} { exchangeId type assetClass locale name acronym mic operatingMic participantId url } }`,
      );
      expect(g.errors).toBeUndefined();
      const r = await rest(h, PATH + q);
      expect(
        r.body.results.map((e: any) => ({
          exchangeId: e.id,
          type: e.type,
          assetClass: e.asset_class.toUpperCase(),
          locale: e.locale.toUpperCase(),
          name: e.name,
          acronym: e.acronym ?? null,
          mic: e.mic ?? null,
          operatingMic: e.operating_mic ?? null,
          participantId: e.participant_id ?? null,
          url: e.url ?? null,
        })),
      ).toEqual(g.data.exchanges);
    }
  });

  it('one SQL statement per request', async () => {
    await rest(h, PATH);
    expect(await h.countStatements(() => rest(h, PATH))).toBe(1);
    expect(await h.countStatements(() => rest(h, `${PATH}?asset_class=stocks&locale=us`))).toBe(1);
  });

  it('401 without or with a wrong key; the free tier is entitled; apikey works as a parameter', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'demo-free' })).status).toBe(200);
    expect((await rest(h, `${PATH}?apikey=demo-free&asset_class=stocks`, { key: null })).status).toBe(200);
  });
});
