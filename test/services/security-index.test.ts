// The master in memory (services/security-index.ts) answers every search it takes exactly as the SQL
// path does: the same hits in the same order, the same count, the same facets — over generated
// queries (names with typos, filters, sorts, facets, deep pages), on each database; and it is used
// only at the master's version, so a write is seen at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilterBy, parseSortBy } from '../../src/domain/search-syntax.js';
import { writeSecurities } from '../../src/services/security-write.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/services/security-fields.js';
import { readyIndex } from '../../src/services/security-index.js';
import { securityQueryPage, type SecurityQuery } from '../../src/services/security-query.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

/** A deterministic PRNG (mulberry32), so every run asks the same queries. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FACETS = ['exchange_info.mic_code', 'classification.gics', 'ticker_meta.active', 'financials.market_cap'];

describe.each(testDatabases())('the master in memory on $name', (tdb) => {
  let h: GraphQLHarness;
  let words: string[];
  let mics: string[];
  let caps: number[];

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const all = await h.db.prisma.security.findMany();
    words = [...new Set(all.flatMap((s) => s.name.split(/[^A-Za-z0-9]+/)).filter((w) => w.length >= 2))].sort();
    mics = [...new Set(all.map((s) => s.micCode))].sort();
    caps = all.map((s) => Number(s.marketCap)).sort((a, b) => a - b);
    // rows with missing values, so nulls meet every filter and sort
    const { createdAt: _c, updatedAt: _u, ...template } = all[0]!;
    await writeSecurities(h.db, [
      {
        ...template,
        id: 'BBG0IDX00001_XTST',
        figi: 'BBG0IDX00001',
        micCode: 'XTST',
        symbol: 'IDXA',
        name: 'Indexa Holdings Inc.',
        marketCap: null,
        gics: null,
        totalEmployees: null,
        isinHistory: null,
      } as never,
      {
        ...template,
        id: 'BBG0IDX00002_XTST',
        figi: 'BBG0IDX00002',
        micCode: 'XTST',
        symbol: 'IDXB',
        name: 'Indexa Bancorp',
        active: false,
        isinHistory: null,
      } as never,
    ]);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  function generated(count: number): SecurityQuery[] {
    const rand = prng(20261125);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
    const typo = (w: string) => (w.length >= 5 ? w.slice(0, 2) + w.slice(3) : w);
    const filters = [
      () => `exchange_info.mic_code:=${pick(mics)}`,
      () => `financials.market_cap:>${pick(caps)}`,
      () => `financials.market_cap:[${caps[5]}..${pick(caps)}] || ticker_meta.active:false`,
      () =>
        `classification.gics:!=\`Information Technology\` && company_info.total_employees:<${Math.floor(rand() * 50_000)}`,
      () => `ticker_meta.active:true && exchange_info.mic_code:!=[${mics.join(',')}]`,
    ];
    const sorts = [
      'financials.market_cap:desc',
      'name:asc',
      'company_info.total_employees:asc,symbol:desc',
      '_text_match:desc,financials.market_cap:asc',
      '_text_match:asc',
    ];
    return Array.from({ length: count }, () => {
      const text =
        rand() < 0.6
          ? {
              q: Array.from({ length: 1 + Math.floor(rand() * 2) }, () =>
                rand() < 0.3 ? typo(pick(words)) : pick(words),
              )
                .join(' ')
                .toLowerCase(),
              fields: rand() < 0.8 ? (['symbol', 'name'] as const) : (['name'] as const),
            }
          : undefined;
      const sort = rand() < 0.5 ? pick(sorts.filter((s) => text || !s.includes(TEXT))) : undefined;
      return {
        ...(text ? { text } : { search: { query: '*', type: 'symbol' as const } }),
        filter: rand() < 0.5 ? parseFilterBy(pick(filters)(), SECURITY_SEARCH_FIELDS) : undefined,
        sort: sort ? parseSortBy(sort, SECURITY_SEARCH_FIELDS) : undefined,
        facets: rand() < 0.5 ? FACETS.filter(() => rand() < 0.6) : undefined,
      };
    });
  }
  const TEXT = '_text_match';

  it('answers 120 generated searches with the hits, order, count and facets of SQL', async () => {
    expect(await readyIndex(h.db)).toBeDefined();
    let withHits = 0;
    for (const [n, query] of generated(120).entries()) {
      const page = { offset: n % 3 === 0 ? 3 : 0, limit: 1 + (n % 7) };
      const [memory, sql] = [
        await securityQueryPage(h.db, query, page),
        await securityQueryPage(h.db, query, page, { index: false }),
      ];
      const what = JSON.stringify(query);
      expect(
        memory.nodes.map((s) => s.id),
        what,
      ).toEqual(sql.nodes.map((s) => s.id));
      expect([memory.found, memory.more, memory.outOf], what).toEqual([sql.found, sql.more, sql.outOf]);
      expect(
        memory.facets.map((f) => [f.field_name, f.counts, f.stats.total_values]),
        what,
      ).toEqual(sql.facets.map((f) => [f.field_name, f.counts, f.stats.total_values]));
      for (const [i, f] of memory.facets.entries()) {
        for (const k of ['min', 'max', 'avg'] as const)
          expect(f.stats[k] ?? null, `${what} ${k}`).toBeCloseTo(sql.facets[i]!.stats[k] ?? 0, 3);
      }
      if (sql.found > 0) withHits++;
    }
    expect(withHits).toBeGreaterThan(40);
  });

  it('is used at the master version only: a write is seen by the next search', async () => {
    await readyIndex(h.db);
    const query: SecurityQuery = { text: { q: 'zephyrine', fields: ['name'] } };
    expect((await securityQueryPage(h.db, query, { offset: 0, limit: 5 })).found).toBe(0);
    const [row] = await h.db.prisma.security.findMany({ where: { symbol: 'IDXA' } });
    const { createdAt: _c, updatedAt: _u, ...rest } = row!;
    await writeSecurities(h.db, [{ ...rest, name: 'Zephyrine Holdings Inc.', isinHistory: null } as never]);
    const after = await securityQueryPage(h.db, query, { offset: 0, limit: 5 });
    expect(after.nodes.map((s) => s.symbol)).toEqual(['IDXA']);
    expect((await readyIndex(h.db))?.ids.length).toBe(after.outOf);
    expect((await securityQueryPage(h.db, query, { offset: 0, limit: 5 })).nodes.map((s) => s.symbol)).toEqual([
      'IDXA',
    ]);
  });
});
