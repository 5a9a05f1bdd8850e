import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Security } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The security document, from the legacy API's documented keys (not from the code): flat keys with dots in their names.
const DOCUMENT_KEYS = [
  'classification.gics',
  'classification.gics_code',
  'classification.market_sector',
  'classification.security_description',
  'classification.security_type',
  'classification.security_type2',
  'classification.sic_code',
  'classification.sic_description',
  'company_info.address.address1',
  'company_info.address.city',
  'company_info.address.postal_code',
  'company_info.address.state',
  'company_info.description',
  'company_info.homepage_url',
  'company_info.list_date',
  'company_info.phone_number',
  'company_info.total_employees',
  'exchange_info.exchange_country',
  'exchange_info.exchange_name',
  'exchange_info.mic_code',
  'exchange_info.vendory_exchange_code',
  'exchange_info.vendory_ticker',
  'exchange_info.vendorx_exchange_code',
  'exchange_info.vendorx_exchange_name',
  'financials.market_cap',
  'financials.round_lot',
  'financials.share_class_shares_outstanding',
  'financials.weighted_shares_outstanding',
  'identifiers.cik',
  'identifiers.cusip',
  'identifiers.figi',
  'identifiers.figi_composite',
  'identifiers.figi_share_class',
  'identifiers.isin',
  'identifiers.opol',
  'identifiers.permid',
  'identifiers.ric',
  'ticker_meta.active',
  'ticker_meta.currency_name',
  'ticker_meta.last_updated_utc',
  'ticker_meta.locale',
  'ticker_meta.market',
  'ticker_meta.primary_exchange',
  'ticker_meta.ticker',
  'ticker_meta.ticker_root',
  'ticker_meta.type',
  'id',
  'isin_history',
  'name',
  'status',
  'symbol',
  'created_at',
  'updated_at',
];
const DATA_KEYS = [
  'facet_counts',
  'found',
  'hits',
  'out_of',
  'page',
  'request_params',
  'search_cutoff',
  'search_time_ms',
];
// The legacy API's 11 search types and the column each matches.
const SEARCH_TYPES: [string, keyof Security][] = [
  ['symbol', 'symbol'],
  ['identifiers.figi', 'figi'],
  ['identifiers.figi_composite', 'figiComposite'],
  ['identifiers.figi_share_class', 'figiShareClass'],
  ['identifiers.isin', 'isin'],
  ['identifiers.opol', 'opol'],
  ['identifiers.cusip', 'cusip'],
  ['identifiers.cik', 'cik'],
  ['exchange_info.mic_code', 'micCode'],
  ['exchange_info.exchange_country', 'exchangeCountry'],
  ['classification.gics_code', 'gicsCode'],
];
const PATH = '/search/api/v1/securities';
const q = (params: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;

describe.each(testDatabases())('REST security search on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: Security[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    all = await h.db.prisma.security.findMany({ orderBy: { id: 'asc' } });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The rows a prefix search must return, in its order (the field, then id). */
  const matches = (column: keyof Security, prefix: string) =>
    all
      .filter((s) => String(s[column] ?? '').startsWith(prefix))
      .sort((a, b) => {
        const x = String(a[column]),
          y = String(b[column]);
        return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      });

  /** Every security as the wildcard lists it: by symbol, then id (code-point order). */
  const bySymbol = () =>
    [...all].sort((a, b) =>
      a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );

  it('q=* matches every security, whatever the search type: found = out_of, pages by symbol then id, no highlight', async () => {
    const expected = bySymbol().map((s) => s.id);
    for (const search_type of ['symbol', 'identifiers.isin', 'classification.gics_code']) {
      const seen: string[] = [];
      for (let page = 1; seen.length < expected.length && page < 100; page++) {
        const r = await rest(h, q({ q: '*', search_type, per_page: 7, page }));
        expect(r.status).toBe(200);
        expect(r.body.data).toMatchObject({ found: all.length, out_of: all.length, page });
        expect(r.body.message).toBe(`${all.length} of ${all.length} securities match`);
        for (const hit of r.body.data.hits) {
          expect(hit.highlight).toEqual({});
          expect(hit.highlights).toEqual([]);
          seen.push(hit.document.id);
        }
      }
      expect(seen, search_type).toEqual(expected);
    }
    // with spaces around it, still the wildcard; inside a longer query, a literal that matches nothing
    expect((await rest(h, q({ search: ' * ', search_type: 'symbol' }))).body.data.found).toBe(all.length);
    expect((await rest(h, q({ search: 'A*', search_type: 'symbol' }))).body.data.found).toBe(0);
  });

  it('GraphQL securities without search (or with "*") pages through every security by cursor, in the same order; "" is refused naming "*"', async () => {
    const expected = bySymbol().map((s) => s.symbol);
    for (const search of [undefined, '*']) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let i = 0; i < 100; i++) {
        const r: any = await h.gql(
          'query($s: String, $after: String) { securities(search: $s, first: 9, after: $after) { nodes { symbol } pageInfo { hasNextPage endCursor } } }',
          { s: search, after },
        );
        expect(r.errors).toBeUndefined();
        seen.push(...r.data.securities.nodes.map((n: any) => n.symbol));
        if (!r.data.securities.pageInfo.hasNextPage) break;
        after = r.data.securities.pageInfo.endCursor;
      }
      expect(seen, String(search)).toEqual(expected);
    }
    const total = await h.gql('{ securities(first: 1) { totalCount } }');
    expect(total.data.securities.totalCount).toBe(all.length);
    const empty = await h.gql('{ securities(search: "") { nodes { symbol } } }');
    expect(empty.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringContaining('"*"'),
    });
  });

  it('queries ending in non-ASCII or astral characters match nothing, without an error', async () => {
    for (const search of ['NV😀', 'é', 'A\u{10FFFF}', '😀']) {
      for (const search_type of ['symbol', 'identifiers.isin']) {
        const r = await rest(h, q({ search, search_type }));
        expect(r.status, `${search_type} ${search}`).toBe(200);
        expect(r.body.data).toMatchObject({ found: 0, hits: [] });
      }
      const g = await h.gql('query($s: String!) { securities(search: $s) { nodes { symbol } } }', { s: search });
      expect(g.errors, search).toBeUndefined();
      expect(g.data.securities.nodes).toEqual([]);
    }
  });

  it('found and out_of follow an import at once, and its removal (they are exact, never reused past a write)', async () => {
    const path = q({ search: 'US', search_type: 'exchange_info.exchange_country' });
    const us = matches('exchangeCountry', 'US').length;
    expect((await rest(h, path)).body.data).toMatchObject({ found: us, out_of: all.length });
    const { writeSecurities } = await import('../../src/services/security-write.js');
    const { createdAt: _c, updatedAt: _u, ...template } = all[0]!;
    const extra = {
      ...template,
      id: 'BBG00OUTOF01_XTST',
      figi: 'BBG00OUTOF01',
      micCode: 'XTST',
      symbol: 'OUTOF',
      exchangeCountry: 'US',
      isinHistory: null,
    };
    await writeSecurities(h.db, [extra as never]);
    try {
      expect((await rest(h, path)).body.data).toMatchObject({ found: us + 1, out_of: all.length + 1 });
    } finally {
      await h.db.prisma.security.delete({ where: { id: extra.id } });
    }
    expect((await rest(h, path)).body.data).toMatchObject({ found: us, out_of: all.length });
  });

  it('an exact symbol: the envelope, exactly the legacy document keys with the stored values, and the highlight', async () => {
    const s = all.find((x) => x.isinHistory !== null) ?? all[0]!;
    const r = await rest(h, q({ search: s.symbol.toLowerCase(), search_type: 'symbol' }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'error', 'message']);
    expect(r.body.error).toBeNull();
    expect(typeof r.body.message).toBe('string');
    expect(Object.keys(r.body.data).sort()).toEqual([...DATA_KEYS].sort());
    const want = matches('symbol', s.symbol);
    expect(r.body.data).toMatchObject({
      facet_counts: [],
      found: want.length,
      out_of: all.length,
      page: 1,
      search_cutoff: false,
      request_params: { collection_name: 'securities', per_page: 10, q: s.symbol.toLowerCase() },
    });
    expect(Number.isInteger(r.body.data.search_time_ms)).toBe(true);
    const hit = r.body.data.hits.find((x: any) => x.document.id === s.id);
    expect(Object.keys(hit).sort()).toEqual(['document', 'highlight', 'highlights']);
    const doc = hit.document;
    // every documented key (the sample fills every field), and no other
    expect(Object.keys(doc).sort()).toEqual([...DOCUMENT_KEYS].sort());
    expect(doc).toMatchObject({
      id: `${s.figi}_${s.micCode}`,
      symbol: s.symbol,
      name: s.name,
      status: s.status,
      isin_history: s.isinHistory ?? null,
      'classification.gics': s.gics,
      'classification.gics_code': s.gicsCode,
      'company_info.address.city': s.city,
      'company_info.list_date': s.listDate,
      'company_info.total_employees': s.totalEmployees,
      'exchange_info.mic_code': s.micCode,
      'identifiers.figi': s.figi,
      'identifiers.cik': s.cik,
      'identifiers.isin': s.isin,
      'ticker_meta.active': s.active,
      'ticker_meta.last_updated_utc': s.lastUpdatedUtc!.toISOString(),
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    });
    // 64-bit integers as exact JSON numbers
    expect(r.text).toContain(`"financials.market_cap":${s.marketCap}`);
    expect(r.text).toContain(`"financials.share_class_shares_outstanding":${s.shareClassSharesOutstanding}`);
    expect(typeof doc['financials.market_cap']).toBe('number');
    expect(hit.highlight).toEqual({ symbol: { snippet: `<mark>${s.symbol}</mark>`, matched_tokens: [s.symbol] } });
    expect(hit.highlights).toEqual([
      { field: 'symbol', snippet: `<mark>${s.symbol}</mark>`, matched_tokens: [s.symbol] },
    ]);
  });

  it('leaves out null optional fields, and answers isin_history null when there is none', async () => {
    const s = all.find((x) => x.isinHistory === null)!;
    await h.db.prisma.security.update({
      where: { id: s.id },
      data: { gics: null, marketCap: null, lastUpdatedUtc: null },
    });
    try {
      const r = await rest(h, q({ search: s.figi, search_type: 'identifiers.figi' }));
      const doc = r.body.data.hits[0].document;
      expect(doc.id).toBe(s.id);
      expect(doc.isin_history).toBeNull();
      for (const k of ['classification.gics', 'financials.market_cap', 'ticker_meta.last_updated_utc'])
        expect(doc).not.toHaveProperty(k);
      expect(Object.keys(doc).length).toBe(DOCUMENT_KEYS.length - 3);
    } finally {
      await h.db.prisma.security.update({
        where: { id: s.id },
        data: { gics: s.gics, marketCap: s.marketCap, lastUpdatedUtc: s.lastUpdatedUtc },
      });
    }
  });

  it('every search_type matches by prefix (checked against the database), with the matched field highlighted', async () => {
    const s = all[3]!;
    for (const [type, column] of SEARCH_TYPES) {
      const value = String(s[column]);
      const prefix =
        type === 'identifiers.cik'
          ? value.replace(/^0+/, '')
          : value.slice(0, Math.max(1, Math.ceil(value.length / 2)));
      const want = type === 'identifiers.cik' ? matches(column, value) : matches(column, prefix);
      const r = await rest(h, q({ search: prefix.toLowerCase(), search_type: type, per_page: 250 }));
      expect(r.status, type).toBe(200);
      expect(r.body.data.found, type).toBe(want.length);
      expect(
        r.body.data.hits.map((x: any) => x.document.id),
        type,
      ).toEqual(want.map((w) => w.id));
      const matched = type === 'identifiers.cik' ? value : prefix.toUpperCase();
      for (const hit of r.body.data.hits) {
        const full = String(all.find((a) => a.id === hit.document.id)![column]);
        expect(hit.highlight[type], type).toEqual({
          snippet: `<mark>${matched}</mark>${full.slice(matched.length)}`,
          matched_tokens: [matched],
        });
        expect(hit.highlights, type).toEqual([{ field: type, ...hit.highlight[type] }]);
      }
    }
    // the alias q, and a query that matches nothing
    const alias = await rest(h, q({ q: s.symbol, search_type: 'symbol' }));
    expect(alias.body.data.hits.map((x: any) => x.document.id)).toEqual(matches('symbol', s.symbol).map((w) => w.id));
    expect(alias.body.data.request_params.q).toBe(s.symbol);
    const none = await rest(h, q({ search: 'ZZZZZZ', search_type: 'symbol' }));
    expect(none.body.data).toMatchObject({ found: 0, hits: [], out_of: all.length });
    // LIKE wildcards and SQL-looking text are matched literally, never interpreted
    for (const text of ['%', '_', "' OR 1=1 --", '<script>']) {
      const r = await rest(h, q({ search: text, search_type: 'symbol' }));
      expect(r.status, text).toBe(200);
      expect(r.body.data.found, text).toBe(0);
      expect(r.body.data.request_params.q).toBe(text);
    }
  });

  it('% and _ are never wildcards, in REST and GraphQL alike: they match nothing', async () => {
    // (no identifier of any search type contains them; see services/security.ts)
    const b = all[6]!;
    await h.db.prisma.security.update({ where: { id: b.id }, data: { opol: 'XAYBZ' } });
    try {
      for (const text of ['X_', 'X%', '%', '_', 'X\\']) {
        const r = await rest(h, q({ search: text, search_type: 'identifiers.opol' }));
        expect(r.body.data.found, text).toBe(0);
        const g = await h.gql(
          'query($s: String!) { securities(search: $s, searchType: OPOL) { totalCount nodes { symbol } } }',
          { s: text },
        );
        expect(g.data.securities, text).toEqual({ totalCount: 0, nodes: [] });
      }
      expect((await rest(h, q({ search: 'XAY', search_type: 'identifiers.opol' }))).body.data.found).toBe(1);
    } finally {
      await h.db.prisma.security.update({ where: { id: b.id }, data: { opol: b.opol } });
    }
  });

  it('pages by number to the end without gaps or repeats; a page past the end has no hits', async () => {
    const want = matches('exchangeCountry', 'US');
    expect(want.length).toBeGreaterThan(20);
    for (const perPage of [7, 250]) {
      const seen: string[] = [];
      const pages = Math.ceil(want.length / perPage);
      for (let page = 1; page <= pages + 1; page++) {
        const r = await rest(
          h,
          q({ search: 'US', search_type: 'exchange_info.exchange_country', page, per_page: perPage }),
        );
        expect(r.body.data).toMatchObject({ found: want.length, page, request_params: { per_page: perPage } });
        if (page > pages) expect(r.body.data.hits).toEqual([]);
        seen.push(...r.body.data.hits.map((x: any) => x.document.id));
      }
      expect(seen).toEqual(want.map((w) => w.id));
    }
  });

  it('agrees with GraphQL securities (same ids in the same order)', async () => {
    const g = await h.gql(
      '{ securities(search: "x", searchType: MIC_CODE, first: 250) { totalCount nodes { securityId symbol identifiers { figi } } } }',
    );
    const r = await rest(h, q({ search: 'x', search_type: 'exchange_info.mic_code', per_page: 250 }));
    expect(g.errors).toBeUndefined();
    expect(r.body.data.found).toBe(g.data.securities.totalCount);
    expect(
      r.body.data.hits.map((x: any) => [x.document.id, x.document.symbol, x.document['identifiers.figi']]),
    ).toEqual(g.data.securities.nodes.map((n: any) => [n.securityId, n.symbol, n.identifiers.figi]));
    const g2 = await h.gql('{ securities(search: "N", first: 3, searchType: SYMBOL) { nodes { securityId } } }');
    const r2 = await rest(h, q({ search: 'n', search_type: 'symbol', per_page: 3 }));
    expect(r2.body.data.hits.map((x: any) => x.document.id)).toEqual(
      g2.data.securities.nodes.map((n: any) => n.securityId),
    );
  });

  it('rejects bad parameters with a 400 carrying data: null and error (the message), never a 500', async () => {
    const cases: [string, string, string?][] = [
      [q({ search: 'A' }), 'search_type'],
      [q({ search: 'A', search_type: 'names' }), 'search_type', 'names'],
      [q({ search: 'A', search_type: "symbol' OR 1=1 --" }), 'search_type'],
      [q({ search: 'A', search_type: '<script>' }), 'search_type'],
      [q({ search_type: 'symbol' }), 'search'],
      [q({ search: '   ', search_type: 'symbol' }), 'search'],
      [q({ search: 'A', q: 'B', search_type: 'symbol' }), 'search'],
      [q({ search: 'A'.repeat(201), search_type: 'symbol' }), 'search'],
      [q({ search: 'A', search_type: 'symbol', page: 0 }), 'page', '0'],
      [q({ search: 'A', search_type: 'symbol', page: 'x' }), 'page', 'x'],
      [q({ search: 'A', search_type: 'symbol', per_page: 251 }), 'per_page', '251'],
      [q({ search: 'A', search_type: 'symbol', per_page: 0 }), 'per_page', '0'],
    ];
    for (const [path, name, value] of cases) {
      const r = await rest(h, path);
      expectBadParam(r, name, value);
      expect(Object.keys(r.body).sort()).toEqual(['code', 'data', 'error', 'message', 'request_id', 'status']);
      expect(r.body).toMatchObject({ status: 'ERROR', data: null, error: r.body.message });
    }
  });

  it('401 without or with a wrong key (the common error body); the free tier is entitled', async () => {
    const path = q({ search: 'A', search_type: 'symbol' });
    for (const key of [null, 'wrong']) {
      const r = await rest(h, path, { key });
      expect(r.status).toBe(401);
      // raised by the router before the route runs: the common body, without data/error
      expect(Object.keys(r.body).sort()).toEqual(['code', 'message', 'request_id', 'status']);
    }
    expect((await rest(h, path, { key: 'demo-free' })).status).toBe(200);
    expect((await rest(h, `${path}&apikey=demo-free`, { key: null })).status).toBe(200);
  });
});
