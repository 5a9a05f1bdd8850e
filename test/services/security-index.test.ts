// The search engine (search/engine.ts, kept by services/security-index.ts) against a brute-force
// oracle written here: every generated search (names with typos, filters over the master and the
// metrics, sorts, facets, identifier prefixes, deep pages) gets the hits, order, count and facets
// that scanning every stored row gives, with text ordered by UTF-8 bytes (code points) as PostgreSQL's
// C collation would. And the engine follows writes: the next search sees them, a metrics change
// too, one changed security without reading the master again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_SEARCH_FIELDS } from '../../src/search/fields.js';
import type { TextMatch } from '../../src/search/rank.js';
import { type Filter, parseFilterBy, parseSortBy, type SortTerm } from '../../src/search/syntax.js';
import { nameTerms, symbolTerm } from '../../src/search/text.js';
import { currentEngine, setSearchCapacity } from '../../src/services/security-index.js';
import { type SecurityQuery, securityQueryPage } from '../../src/services/security-query.js';
import { writeSecurities } from '../../src/services/security-write.js';
import { SEARCH_TYPES, type SearchType } from '../../src/services/security.js';
import { type GraphQLHarness, graphqlHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

/** A deterministic PRNG (mulberry32), so every run asks the same queries. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type V = string | number | boolean | null;
type Row = { id: string; symbol: string; name: string; values: Map<string, V>; columns: Record<string, unknown> };

const FACETS = [
  'exchange_info.mic_code',
  'classification.gics',
  'ticker_meta.active',
  'financials.market_cap',
  'metrics.pe_ratio',
];
const TEXT = '_text_match';

// ---------------------------------------------------------------- the oracle

const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
function order(a: V, b: V, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = typeof a === 'string' ? bytes(a, b as string) : Number(a) < Number(b) ? -1 : 1;
  return desc ? -c : c;
}

function passes(f: Filter, row: Row): boolean {
  if ('of' in f) return f.op === 'and' ? f.of.every((p) => passes(p, row)) : f.of.some((p) => passes(p, row));
  const v = row.values.get(f.field) ?? null;
  if (v === null) return false;
  if ('values' in f) {
    const hit =
      f.values.some((x) => x === v) || f.ranges.some((r) => typeof v === 'number' && r.from <= v && v <= r.to);
    return f.op === '=' ? hit : !hit;
  }
  if (typeof v !== 'number') return false;
  return f.op === '<' ? v < f.value : f.op === '<=' ? v <= f.value : f.op === '>' ? v > f.value : v >= f.value;
}

/** A row's score for the engine's expansion of the text (search/rank.ts's rule, recomputed row by row); undefined: no match. */
function score(row: Row, text: TextMatch): number | undefined {
  const names = nameTerms(row.name);
  const keys = new Set([`0:${symbolTerm(row.symbol)}`, ...names.map((t) => `1:${t}`)]);
  const best = new Map<number, number>();
  for (const [term, field, tok, cost] of text.rows)
    if (keys.has(`${field}:${term}`)) best.set(tok, Math.min(best.get(tok) ?? Infinity, cost));
  let sum = 0;
  let all = true;
  for (let t = 0; t < text.tokenCount; t++) {
    if (best.has(t)) sum += best.get(t)!;
    else all = false;
  }
  if (!all && !best.has(-1)) return undefined;
  return (best.get(-1) ?? 2) * 10_000 + sum * 100 + names.length;
}

function facet(field: string, rows: readonly Row[]) {
  const counts = new Map<string, { n: number; v: V }>();
  for (const r of rows) {
    const v = r.values.get(field) ?? null;
    if (v === null) continue;
    const key = String(v);
    counts.set(key, { n: (counts.get(key)?.n ?? 0) + 1, v });
  }
  const list = [...counts].sort(([, a], [, b]) => b.n - a.n || order(a.v, b.v, false)).slice(0, 10);
  return [field, list.map(([value, { n }]) => ({ value, count: n, highlighted: value })), counts.size];
}

function oracle(rows: readonly Row[], query: SecurityQuery, text: TextMatch | undefined) {
  const prefix =
    query.search && query.search.query !== '*'
      ? { column: SEARCH_TYPES[query.search.type], q: query.search.query.toUpperCase() }
      : undefined;
  const scores = new Map<string, number>();
  const hits = rows.filter((r) => {
    if (prefix && !String(r.columns[prefix.column] ?? '').startsWith(prefix.q)) return false;
    if (query.filter && !passes(query.filter, r)) return false;
    if (!query.text) return true;
    const s = text && score(r, text);
    if (s === undefined) return false;
    scores.set(r.id, s);
    return true;
  });
  const sort: SortTerm[] = query.sort?.length
    ? [...query.sort]
    : query.text
      ? [
          { field: TEXT, order: 'desc' },
          { field: 'financials.market_cap', order: 'desc' },
        ]
      : [];
  const defaultColumn = prefix?.column ?? 'symbol';
  hits.sort((a, b) => {
    for (const { field, order: o } of sort) {
      const c =
        field === TEXT
          ? (o === 'desc' ? 1 : -1) * (scores.get(a.id)! - scores.get(b.id)!)
          : order(a.values.get(field) ?? null, b.values.get(field) ?? null, o === 'desc');
      if (c !== 0) return c;
    }
    if (!sort.length) {
      const c = order(
        (a.columns[defaultColumn] as string | null) ?? null,
        (b.columns[defaultColumn] as string | null) ?? null,
        false,
      );
      if (c !== 0) return c;
    }
    return bytes(a.id, b.id);
  });
  return hits;
}

// ---------------------------------------------------------------- the tests

describe.each(testDatabases())('the search engine on $name', (tdb) => {
  let h: GraphQLHarness;
  let rows: Row[];
  let words: string[];
  let mics: string[];
  let caps: number[];
  let pes: number[];

  async function readRows(): Promise<Row[]> {
    const all = await h.db.prisma.security.findMany();
    const metrics = new Map((await h.db.prisma.securityMetrics.findMany()).map((m) => [m.symbol, m]));
    return all.map((s) => {
      const values = new Map<string, V>();
      for (const f of SECURITY_SEARCH_FIELDS.values()) {
        const raw = f.metrics
          ? (metrics.get(s.symbol) as Record<string, unknown> | undefined)?.[f.column]
          : (s as Record<string, unknown>)[f.column];
        values.set(
          f.name,
          raw === null || raw === undefined ? null : typeof raw === 'bigint' ? Number(raw) : (raw as V),
        );
      }
      return { id: s.id, symbol: s.symbol, name: s.name, values, columns: s as Record<string, unknown> };
    });
  }

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const all = await h.db.prisma.security.findMany();
    // rows with missing values, an astral letter and U+FFFD, so nulls and code-point order meet every filter and sort
    const { createdAt: _c, updatedAt: _u, rev: _r, ...template } = all[0]!;
    await writeSecurities(h.db, [
      {
        ...template,
        id: 'BBG0IDX00001_XTST',
        figi: 'BBG0IDX00001',
        micCode: 'XTST',
        symbol: 'IDXA',
        name: 'Indexa \u{1D400}lpha Holdings Inc.',
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
        name: 'Indexa \uFFFDeta Bancorp',
        active: false,
        isinHistory: null,
      } as never,
    ]);
    rows = await readRows();
    words = [...new Set(all.flatMap((s) => s.name.split(/[^A-Za-z0-9]+/)).filter((w) => w.length >= 2))].sort();
    mics = [...new Set(all.map((s) => s.micCode))].sort();
    caps = rows.map((r) => r.values.get('financials.market_cap')).filter((v): v is number => typeof v === 'number');
    pes = rows.map((r) => r.values.get('metrics.pe_ratio')).filter((v): v is number => typeof v === 'number');
    expect(pes.length).toBeGreaterThan(10); // the metrics are kept beside the master
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  function generated(count: number): SecurityQuery[] {
    const rand = prng(20261127);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
    const typo = (w: string) => (w.length >= 5 ? w.slice(0, 2) + w.slice(3) : w);
    const filters = [
      () => `exchange_info.mic_code:=${pick(mics)}`,
      () => `financials.market_cap:>${pick(caps)}`,
      () => `financials.market_cap:[${Math.min(...caps)}..${pick(caps)}] || ticker_meta.active:false`,
      () =>
        `classification.gics:!=\`Information Technology\` && company_info.total_employees:<${Math.floor(rand() * 50_000)}`,
      () => `ticker_meta.active:true && exchange_info.mic_code:!=[${mics.join(',')}]`,
      () => `metrics.pe_ratio:<${pick(pes)}`,
      () => `metrics.roic:>0 || metrics.fcf_yield:<0.01`,
    ];
    const sorts = [
      'financials.market_cap:desc',
      'name:asc',
      'company_info.total_employees:asc,symbol:desc',
      '_text_match:desc,financials.market_cap:asc',
      '_text_match:asc',
      'metrics.pe_ratio:asc',
      'metrics.roic:desc,name:desc',
    ];
    const prefixes: [SearchType, string][] = [
      ['symbol', 'I'],
      ['exchange_info.mic_code', 'X'],
      ['identifiers.figi', 'BBG0'],
    ];
    return Array.from({ length: count }, () => {
      const text =
        rand() < 0.5
          ? {
              q: Array.from({ length: 1 + Math.floor(rand() * 2) }, () =>
                rand() < 0.3 ? typo(pick(words)) : pick(words),
              )
                .join(' ')
                .toLowerCase(),
              fields: rand() < 0.8 ? (['symbol', 'name'] as const) : (['name'] as const),
            }
          : undefined;
      const sort = rand() < 0.6 ? pick(sorts.filter((s) => text || !s.includes(TEXT))) : undefined;
      const [type, query] = text || rand() < 0.6 ? ['symbol' as const, '*'] : pick(prefixes);
      return {
        ...(text ? { text } : { search: { query, type } }),
        filter: rand() < 0.6 ? parseFilterBy(pick(filters)(), SECURITY_SEARCH_FIELDS) : undefined,
        sort: sort ? parseSortBy(sort, SECURITY_SEARCH_FIELDS) : undefined,
        facets: rand() < 0.5 ? FACETS.filter(() => rand() < 0.6) : undefined,
      };
    });
  }

  it('answers 160 generated searches with the hits, order, count and facets of a scan of every row', async () => {
    const engine = (await currentEngine(h.db))!;
    let withHits = 0;
    for (const [n, query] of generated(160).entries()) {
      const page = { offset: n % 3 === 0 ? 3 : 0, limit: 1 + (n % 7) };
      const got = await securityQueryPage(h.db, query, page);
      const text = query.text && engine.match(query.text.q, query.text.fields);
      const want = oracle(rows, query, text);
      const what = JSON.stringify(query);
      expect(
        got.nodes.map((s) => s.id),
        what,
      ).toEqual(want.slice(page.offset, page.offset + page.limit).map((r) => r.id));
      expect([got.found, got.more, got.outOf], what).toEqual([
        want.length,
        want.length > page.offset + page.limit,
        rows.length,
      ]);
      expect(
        got.facets.map((f) => [f.field_name, f.counts, f.stats.total_values]),
        what,
      ).toEqual((query.facets ?? []).map((f) => facet(f, want)));
      for (const f of got.facets) {
        const values = want.map((r) => r.values.get(f.field_name)).filter((v): v is number => typeof v === 'number');
        if (SECURITY_SEARCH_FIELDS.get(f.field_name)!.kind !== 'number' || values.length === 0) continue;
        expect(f.stats.min, what).toBe(Math.min(...values));
        expect(f.stats.max, what).toBe(Math.max(...values));
        expect(f.stats.avg, what).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6);
      }
      if (want.length > 0) withHits++;
    }
    expect(withHits).toBeGreaterThan(60);
  });

  it('sees a write at the next search, by reading the changed row alone', async () => {
    const before = (await currentEngine(h.db))!;
    const query: SecurityQuery = { text: { q: 'zephyrine', fields: ['name'] } };
    expect((await securityQueryPage(h.db, query, { offset: 0, limit: 5 })).found).toBe(0);
    const [row] = await h.db.prisma.security.findMany({ where: { symbol: 'IDXA' } });
    const { createdAt: _c, updatedAt: _u, rev: _r, ...rest } = row!;
    await writeSecurities(h.db, [{ ...rest, name: 'Zephyrine Holdings Inc.', isinHistory: null } as never]);
    const after = await securityQueryPage(h.db, query, { offset: 0, limit: 5 });
    expect(after.nodes.map((s) => s.symbol)).toEqual(['IDXA']);
    // the old name's words are gone from the postings and the vocabulary's counts
    expect(
      (await securityQueryPage(h.db, { text: { q: 'indexa', fields: ['name'] } }, { offset: 0, limit: 5 })).nodes.map(
        (s) => s.symbol,
      ),
    ).toEqual(['IDXB']);
    const engine = (await currentEngine(h.db))!;
    expect(engine).toBe(before); // caught up in place, not read again
  });

  it('sees a metrics change at the next search: the symbol latest fundamentals speak', async () => {
    const [f] = await h.db.prisma.fundamental.findMany({
      where: { metrics: { isNot: null } },
      orderBy: { id: 'asc' },
      take: 1,
    });
    const latest = await h.db.prisma.fundamental.findFirst({
      where: { symbol: f!.symbol },
      orderBy: [{ endPeriod: 'desc' }, { id: 'desc' }],
    });
    const lowest = {
      search: { query: '*', type: 'symbol' as const },
      sort: parseSortBy('metrics.pe_ratio:asc', SECURITY_SEARCH_FIELDS),
    };
    await h.db.prisma.fundamentalMetrics.update({ where: { fundamentalId: latest!.id }, data: { peRatio: -123_456 } });
    const first = await securityQueryPage(h.db, lowest, { offset: 0, limit: 1 });
    expect(first.nodes.map((s) => s.symbol)).toEqual([f!.symbol]);
    const filtered = await securityQueryPage(
      h.db,
      {
        search: { query: '*', type: 'symbol' },
        filter: parseFilterBy('metrics.pe_ratio:<-100000', SECURITY_SEARCH_FIELDS),
      },
      { offset: 0, limit: 5 },
    );
    expect(new Set(filtered.nodes.map((s) => s.symbol))).toEqual(new Set([f!.symbol]));
  });

  it('reads the master again whole after a delete, and refuses what needs it past its capacity (503), prefixes still served', async () => {
    const before = (await currentEngine(h.db))!;
    await h.db.prisma.security.delete({ where: { id: 'BBG0IDX00002_XTST' } });
    const after = (await currentEngine(h.db))!;
    expect(after).not.toBe(before);
    expect(after.size).toBe(before.size - 1);
    setSearchCapacity(h.db, 5);
    try {
      const r = await rest(h, '/search/api/v1/securities?search_type=name&search=indexa');
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body.message).toMatch(/at most 5 securities/);
      const prefix = await rest(h, '/search/api/v1/securities?search_type=symbol&search=IDX');
      expect([prefix.status, prefix.body.data.found]).toEqual([200, 1]);
    } finally {
      setSearchCapacity(h.db, 100_000);
    }
  });
});
