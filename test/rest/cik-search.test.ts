// CIK search by prefix, with or without leading zeros (docs/rest.md#security-search), on REST (the
// index path and the search engine's) and GraphQL, held to a filter written here over the seeded
// CIKs: with a leading zero the query begins the 10-digit CIK; without, it begins the CIK's
// significant digits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from './helpers.js';

const PATH = '/search/api/v1/securities';
const q = (params: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;

type Row = { id: string; cik: string };

/** CIKs of 2, 3, 4, 5 and 10 significant digits, stored zero-padded as every CIK is. */
const EXTRA_CIKS = ['0000000042', '0000000420', '0000004200', '0000042816', '4200000001', '0000000004'];

/** The brute-force rule: does the stored (zero-padded) `cik` match the query `query`? */
function cikMatches(cik: string, query: string): boolean {
  if (!/^\d{1,10}$/.test(query)) return false;
  return query.startsWith('0') ? cik.startsWith(query) : cik.replace(/^0+/, '').startsWith(query);
}

/** The part of `cik` a hit marks: its leading zeros (when the query has none) and the query. */
const markedPart = (cik: string, query: string) =>
  query.startsWith('0') ? query : cik.slice(0, cik.length - cik.replace(/^0+/, '').length) + query;

const byCikThenId = (a: Row, b: Row) => (a.cik !== b.cik ? (a.cik < b.cik ? -1 : 1) : a.id < b.id ? -1 : 1);

describe.each(testDatabases())('CIK prefix search on $name', (tdb) => {
  let h: GraphQLHarness;
  let ciks: Row[];
  /** The queries of issue 28, and a seeded CIK's beginning, whole and as its 10 digits. */
  let queries: string[];

  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RESPONSE_CACHE_TTL_SECONDS: '0' });
    // the sample's CIKs all have 7 digits: these have others, so that `42` must find 42 and 4200000001 too
    await h.db.prisma.security.createMany({
      data: EXTRA_CIKS.map((cik, i) => ({
        id: `BBG00CIKX${i}00_XTST`,
        symbol: `CIKX${i}`,
        name: `CIK test ${i}`,
        status: 'ACTIVE',
        micCode: 'XTST',
        figi: `BBG00CIKX${i}00`,
        cik,
      })),
    });
    ciks = (await h.db.prisma.security.findMany({ select: { id: true, cik: true } }))
      .filter((s): s is Row => s.cik !== null)
      .sort(byCikThenId);
    const seeded = ciks[Math.floor(ciks.length / 3)]!.cik;
    const significant = seeded.replace(/^0+/, '');
    queries = [
      '42',
      '0004',
      '428163',
      significant.slice(0, 3),
      significant,
      seeded,
      '0',
      '4',
      '00000000',
      '4200000001',
    ];
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const expected = (query: string) => ciks.filter((s) => cikMatches(s.cik, query));

  /** Every hit of a REST search over all its pages, and `found`. */
  const restHits = async (params: Record<string, string>) => {
    const hits: { id: string; cik: string; token: string }[] = [];
    for (let page = 1; page < 100; page++) {
      const r = await rest(h, q({ ...params, search_type: 'identifiers.cik', per_page: 250, page }));
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      for (const hit of r.body.data.hits)
        hits.push({
          id: hit.document.id,
          cik: hit.document['identifiers.cik'],
          token: hit.highlight['identifiers.cik'].matched_tokens[0],
        });
      if (hits.length >= r.body.data.found) return { hits, found: r.body.data.found as number };
    }
    throw new Error('too many pages');
  };

  it('the rule, on CIKs of every length: 42 finds 42, 420, 4200, 42816 and 4200000001; 0004 only 10-digit CIKs beginning so', async () => {
    const extra = (query: string) =>
      expected(query)
        .filter((s) => EXTRA_CIKS.includes(s.cik))
        .map((s) => s.cik);
    // without a leading zero: the CIK as a number begins with the query, whatever its length
    expect(extra('42')).toEqual(['0000000042', '0000000420', '0000004200', '0000042816', '4200000001']);
    expect(expected('42').length).toBeGreaterThan(extra('42').length); // and a seeded 7-digit one
    expect(extra('428')).toEqual(['0000042816']);
    expect(extra('4')).toEqual([...EXTRA_CIKS].sort());
    // with one: the 10 digits begin with it
    expect(extra('0004')).toEqual([]);
    expect(extra('00000000')).toEqual(['0000000004', '0000000042']);
    expect(extra('0000000042')).toEqual(['0000000042']);
    expect(expected('0004').length).toBeGreaterThan(1);
    for (const query of queries.slice(3, 6)) expect(expected(query).length, query).toBeGreaterThan(0);
  });

  it('REST search_type=identifiers.cik: the same securities in CIK order, found exact, the matched beginning marked', async () => {
    for (const query of queries) {
      const want = expected(query);
      const { hits, found } = await restHits({ search: query });
      expect(found, query).toBe(want.length);
      expect(
        hits.map((x) => x.id),
        query,
      ).toEqual(want.map((w) => w.id));
      for (const hit of hits) expect(hit.token, `${query} ${hit.cik}`).toBe(markedPart(hit.cik, query));
    }
  });

  it('REST through the search engine (with facet_by): the same matches and counts as the index path', async () => {
    for (const query of queries) {
      const want = expected(query);
      const { hits, found } = await restHits({ search: query, facet_by: 'exchange_info.mic_code' });
      expect(found, query).toBe(want.length);
      expect(
        hits.map((x) => x.id),
        query,
      ).toEqual(want.map((w) => w.id));
    }
  });

  it('GraphQL securities(search:, searchType: CIK): the same securities and totalCount, page after page', async () => {
    for (const query of queries) {
      const seen: string[] = [];
      let after: string | null = null;
      let total = -1;
      do {
        const r: any = await h.gql(
          'query($s: String!, $a: String) { securities(search: $s, searchType: CIK, first: 100, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { securityId } } }',
          { s: query, a: after },
        );
        expect(r.errors, query).toBeUndefined();
        total = r.data.securities.totalCount;
        seen.push(...r.data.securities.nodes.map((n: { securityId: string }) => n.securityId));
        after = r.data.securities.pageInfo.hasNextPage ? r.data.securities.pageInfo.endCursor : null;
      } while (after);
      expect(seen, query).toEqual(expected(query).map((w) => w.id));
      expect(total, query).toBe(expected(query).length);
    }
  });

  it('a query that is no CIK (letters, 11 digits) finds nothing; a blank one is still a 400', async () => {
    for (const query of ['abc', '4a', '00000000042', '12345678901']) {
      const r = await rest(h, q({ search: query, search_type: 'identifiers.cik' }));
      expect(r.status, query).toBe(200);
      expect(r.body.data.found, query).toBe(0);
      const g = await h.gql(
        'query($s: String!) { securities(search: $s, searchType: CIK) { totalCount nodes { securityId } } }',
        {
          s: query,
        },
      );
      expect(g.data.securities, query).toEqual({ totalCount: 0, nodes: [] });
    }
    const blank = await rest(h, q({ search: ' ', search_type: 'identifiers.cik' }));
    expect(blank.status).toBe(400);
  });
});
