import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

describe.each(testDatabases())('GraphQL securities on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('security(symbol) returns every field group of the legacy document with the stored values', async () => {
    const row = await h.db.prisma.security.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const { data, errors } = await h.gql(
      `query($s: String!) { security(symbol: $s) {
      id securityId symbol name status
      classification { gics gicsCode sicCode }
      companyInfo { address { city postalCode } totalEmployees listDate }
      exchangeInfo { micCode exchangeName }
      financials { marketCap weightedSharesOutstanding }
      identifiers { figi isin cusip cik figiComposite }
      tickerMeta { active currencyName lastUpdatedUtc }
    } }`,
      { s: row.symbol.toLowerCase() },
    );
    expect(errors).toBeUndefined();
    expect(data.security).toMatchObject({
      securityId: row.id,
      symbol: row.symbol,
      name: row.name,
      classification: { gics: row.gics, gicsCode: row.gicsCode, sicCode: row.sicCode },
      companyInfo: {
        address: { city: row.city, postalCode: row.postalCode },
        totalEmployees: row.totalEmployees,
        listDate: row.listDate,
      },
      exchangeInfo: { micCode: row.micCode },
      financials: { marketCap: row.marketCap!.toString() },
      identifiers: { figi: row.figi, isin: row.isin, cusip: row.cusip, cik: row.cik },
      tickerMeta: { active: row.active, lastUpdatedUtc: row.lastUpdatedUtc?.toISOString() },
    });
    // the same record by every other identifier, and through node(id)
    for (const [arg, value] of [
      ['figi', row.figi],
      ['isin', row.isin],
      ['cusip', row.cusip],
      ['cik', String(Number(row.cik))],
    ] as const) {
      const r = await h.gql(`query($v: String!) { security(${arg}: $v) { securityId } }`, { v: value });
      expect(r.data.security?.securityId, arg).toBe(row.id);
    }
    const node = await h.gql('query($id: ID!) { node(id: $id) { ... on Security { securityId } } }', {
      id: data.security.id,
    });
    expect(node.data.node.securityId).toBe(row.id);
  });

  it('an unknown security is null, and a lookup needs exactly one identifier', async () => {
    expect((await h.gql('{ security(symbol: "NOSUCH") { id } }')).data.security).toBeNull();
    const none = await h.gql('{ security { id } }');
    expect(none.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(none.errors?.[0]?.message).toMatch(/exactly one of the arguments symbol, figi, isin, cusip, cik; got none/);
    const two = await h.gql('{ security(symbol: "A", figi: "B") { id } }');
    expect(two.errors?.[0]?.message).toMatch(/got symbol, figi/);
  });

  it('securities(search, searchType) matches by prefix for every search type, pages without overlap, and counts', async () => {
    const all = await h.db.prisma.security.findMany();
    const sample = all[3]!;
    const cases: [string, string, (s: typeof sample) => string | null][] = [
      ['SYMBOL', sample.symbol.slice(0, 1), (s) => s.symbol],
      ['FIGI', sample.figi, (s) => s.figi],
      ['FIGI_COMPOSITE', sample.figiComposite!, (s) => s.figiComposite],
      ['FIGI_SHARE_CLASS', sample.figiShareClass!, (s) => s.figiShareClass],
      ['ISIN', sample.isin!.slice(0, 4), (s) => s.isin],
      ['OPOL', sample.opol!, (s) => s.opol],
      ['CUSIP', sample.cusip!, (s) => s.cusip],
      ['CIK', String(Number(sample.cik)), (s) => (s.cik ? String(Number(s.cik)) : null)],
      ['MIC_CODE', sample.micCode, (s) => s.micCode],
      ['EXCHANGE_COUNTRY', 'US', (s) => s.exchangeCountry],
      ['GICS_CODE', sample.gicsCode!.slice(0, 2), (s) => s.gicsCode],
    ];
    for (const [type, search, field] of cases) {
      // a CIK without leading zeros begins the CIK's significant digits (docs/rest.md#security-search)
      const expected = all.filter((s) => (field(s) ?? '').startsWith(search.toUpperCase())).length;
      const seen: string[] = [];
      let after: string | null = null;
      let total = -1;
      do {
        const r: any = await h.gql(
          'query($s: String!, $t: SecuritySearchType, $a: String) { securities(search: $s, searchType: $t, first: 7, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { securityId } } }',
          { s: search, t: type, a: after },
        );
        expect(r.errors, type).toBeUndefined();
        total = r.data.securities.totalCount;
        seen.push(...r.data.securities.nodes.map((n: { securityId: string }) => n.securityId));
        after = r.data.securities.pageInfo.hasNextPage ? r.data.securities.pageInfo.endCursor : null;
      } while (after);
      expect(seen.length, type).toBe(expected);
      expect(new Set(seen).size, type).toBe(seen.length);
      expect(total, type).toBe(expected);
      expect(expected, type).toBeGreaterThan(0);
    }
  });

  it('rejects bad search arguments with coded errors naming the argument', async () => {
    const cases: [string, RegExp][] = [
      [
        '{ securities(search: "A", first: 0) { totalCount } }',
        /argument "first" must be an integer from 1 to 250; got 0/,
      ],
      ['{ securities(search: "A", first: 251) { totalCount } }', /got 251/],
      ['{ securities(search: "A", after: "bm9wZQ") { totalCount } }', /after: .* is not a cursor of this list/],
      ['{ securities(search: "A", searchType: NOPE) { totalCount } }', /argument "searchType"/],
      ['{ securities(search: "  ") { totalCount } }', /search: the query must not be empty/],
    ];
    for (const [query, message] of cases) {
      const r = await h.gql(query);
      expect(r.errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
      expect(r.errors?.[0]?.message, query).toMatch(message);
    }
    // a cursor of one search is not valid for a search of another field
    const a = await h.gql('{ securities(search: "A", first: 1) { pageInfo { endCursor } } }');
    const r = await h.gql(
      'query($c: String) { securities(search: "US", searchType: EXCHANGE_COUNTRY, after: $c) { totalCount } }',
      { c: a.data.securities.pageInfo.endCursor },
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
