// Search by symbol and name with typos (src/services/security-text.ts) on the sample master: what
// finds what, in what order, the exact count against a brute-force oracle, the terms kept by
// every writer, and the statements a search costs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/client.js';
import { nameTerms, queryTokens, symbolTerm, typoBudget, type TextField } from '../../src/domain/search-text.js';
import { writeSecurities, type SecurityInput } from '../../src/services/security-write.js';
import { securityQueryPage } from '../../src/services/security-query.js';
import {
  ensureSecurityTerms,
  rebuildSecurityTerms,
  textHighlights,
  textMatch,
} from '../../src/services/security-text.js';
import { testDatabases } from '../helpers.js';
import { osa } from '../domain/edit-distance.js';

/**
 * A page of a text search as the routes read it in SQL (services/security-query.ts), in this file's
 * words: these tests hold the term table and its SQL; test/services/security-index.test.ts holds the
 * master in memory to the same answers.
 */
async function textSearchPage(
  db: Db,
  q: string,
  fields: readonly TextField[],
  page: { offset: number; limit: number },
) {
  const r = await securityQueryPage(db, { text: { q, fields } }, page, { index: false });
  return { rows: r.nodes, found: r.found, match: r.text };
}

const BOTH: TextField[] = ['symbol', 'name'];

type Row = { id: string; symbol: string; name: string };

/**
 * The match set by brute force over every row: each query token matches a term of the row within
 * its typo budget (or, the last one, as a prefix from 2 characters), or the whole query is the
 * row's symbol or starts it.
 */
function oracle(rows: readonly Row[], q: string, fields: readonly TextField[]): Set<string> {
  const tokens = queryTokens(q);
  const whole = symbolTerm(q);
  const out = new Set<string>();
  for (const r of rows) {
    const terms = [
      ...(fields.includes('symbol') ? [symbolTerm(r.symbol)] : []),
      ...(fields.includes('name') ? nameTerms(r.name) : []),
    ];
    const tokenMatches = (token: string, last: boolean) =>
      terms.some((t) => osa(token, t) <= typoBudget(token) || (last && [...token].length >= 2 && t.startsWith(token)));
    const sym = symbolTerm(r.symbol);
    const wholeMatches =
      fields.includes('symbol') && whole !== '' && (sym === whole || ([...whole].length >= 2 && sym.startsWith(whole)));
    if (wholeMatches || tokens.every((t, i) => tokenMatches(t, i === tokens.length - 1))) out.add(r.id);
  }
  return out;
}

function security(id: string, symbol: string, name: string, marketCap: bigint | null): SecurityInput {
  return { id, symbol, name, status: 'ACTIVE', micCode: 'XTST', figi: id.split('_')[0]!, isinHistory: null, marketCap };
}

describe.each(testDatabases())('search by name with typos on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    db = await createDb(await tdb.createSeeded());
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  // a request's Db, as the REST and GraphQL searches use (on PostgreSQL it combines the reads of one turn)
  const search = (q: string, fields: TextField[] = BOTH, limit = 10) =>
    textSearchPage(db.forRequest(), q, fields, { offset: 0, limit });
  const symbols = async (q: string, fields: TextField[] = BOTH) => (await search(q, fields)).rows.map((r) => r.symbol);
  const allRows = () => db.prisma.security.findMany({ select: { id: true, symbol: true, name: true } });

  it('finds Novalux Semiconductor Corp. first by its name, a prefix of it, and with one or two typos', async () => {
    expect(osa('novaluks', 'novalux')).toBe(2);
    expect(osa('novlux', 'novalux') + osa('semicondutor', 'semiconductor')).toBe(2);
    for (const q of [
      'novalux',
      'Novalux Semi',
      'novlux semi',
      'novaluks',
      'novlux semicondutor',
      'NOVALUX semiconductor corp',
    ]) {
      expect((await symbols(q))[0], q).toBe('NVLX');
    }
  });

  it('finds a symbol first by itself, before securities that only start with it', async () => {
    expect((await symbols('nvlx'))[0]).toBe('NVLX');
    expect((await symbols('NVLX', ['symbol']))[0]).toBe('NVLX');
  });

  it('ranks an exact symbol above a name that holds the same word, whatever their market caps', async () => {
    await writeSecurities(db, [
      security('BBGTXTCORE01_XTST', 'CORE', 'Zzyzx Widgets Inc.', 1n),
      security('BBGTXTCORE02_XTST', 'QQCF', 'Core Fabrication Inc.', 10n ** 15n),
      security('BBGTXTBRKA01_XTST', 'BRK.A', 'Brookhaven Example Holdings', null),
    ]);
    expect((await symbols('core')).slice(0, 2)).toEqual(['CORE', 'QQCF']);
    // a symbol with a dot is one term: the whole query finds it, though its tokens "brk" and "a" match nothing
    expect(await symbols('BRK.A')).toEqual(['BRK.A']);
    expect(await symbols('brk.')).toEqual(['BRK.A', 'BRKW']); // the symbol it starts, then the token "brk" as a prefix
  });

  it('gives tokens shorter than 4 characters no typo', async () => {
    expect(await symbols('oil gas')).toEqual(['BLSN']);
    expect(await symbols('oik gas')).toEqual([]);
  });

  it('gives a token with a digit no typo', async () => {
    await writeSecurities(db, [security('BBGTXTACME01_XTST', 'ACMT', 'Acmetron 3000 Industries', null)]);
    expect(await symbols('acmetron 3000')).toEqual(['ACMT']);
    expect(await symbols('acmetron 3001 industries')).toEqual([]);
    expect(await symbols('acmetrom 3000 industries')).toEqual(['ACMT']); // the word without a digit takes its typo
  });

  it('counts exactly the match set of a brute force over every row, for generated queries', async () => {
    const rows = await allRows();
    const typo = fc.tuple(fc.nat(), fc.constantFrom('a', 'e', 'o', 'x', 'l', ''), fc.boolean());
    const edited = (word: fc.Arbitrary<string>) =>
      fc
        .tuple(
          word,
          fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, fc.array(typo, { minLength: 1, maxLength: 2 })),
        )
        .map(([w, edits]) => {
          let s = w;
          for (const [at, ch, swap] of edits) {
            const i = at % Math.max(s.length, 1);
            s =
              swap && i + 1 < s.length
                ? s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2)
                : s.slice(0, i) + ch + s.slice(i + 1);
          }
          return s;
        });
    const anyWord = fc.constantFrom(
      ...rows.flatMap((r) => [symbolTerm(r.symbol), ...nameTerms(r.name)]),
      'inc',
      'corp',
      'zq',
      'x',
    );
    // mostly words of one security (so that many queries find something), sometimes of any
    const words = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...rows).chain((r) =>
          fc.array(edited(fc.constantFrom(symbolTerm(r.symbol), ...nameTerms(r.name))), {
            minLength: 1,
            maxLength: 3,
          }),
        ),
      },
      { weight: 1, arbitrary: fc.array(edited(anyWord), { minLength: 1, maxLength: 3 }) },
    );
    const cut = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 4 }));
    const fields = fc.oneof(
      { weight: 3, arbitrary: fc.constant(BOTH) },
      fc.constantFrom<TextField[]>(['name'], ['symbol']),
    );
    const query = fc.tuple(words, cut, fields).map(([ws, cut, fields]) => {
      const last = ws.length - 1;
      ws[last] = ws[last]!.slice(0, Math.max(1, ws[last]!.length - cut)); // a prefix, often
      return { q: ws.join(' ').toUpperCase(), fields };
    });
    let compared = 0;
    let withHits = 0;
    await fc.assert(
      fc.asyncProperty(query, async ({ q, fields }) => {
        if (queryTokens(q).length === 0) return;
        const want = oracle(rows, q, fields);
        const got = await textSearchPage(db, q, fields, { offset: 0, limit: 1000 });
        expect(got.found, q).toBe(want.size);
        expect(new Set(got.rows.map((r) => r.id)), q).toEqual(want);
        compared++;
        if (want.size > 0) withHits++;
      }),
      { numRuns: 60, seed: 20 },
    );
    expect(compared).toBeGreaterThanOrEqual(30);
    expect(withHits).toBeGreaterThanOrEqual(15); // most queries find something: the oracle is not comparing empty sets
  });

  it('pages in rank order with the same count on every page', async () => {
    const all = await search('inc', BOTH, 1000);
    expect(all.found).toBeGreaterThan(10);
    const second = await textSearchPage(db, 'inc', BOTH, { offset: 5, limit: 5 });
    expect(second.found).toBe(all.found);
    expect(second.rows.map((r) => r.id)).toEqual(all.rows.slice(5, 10).map((r) => r.id));
  });

  it('highlights the matched words of a hit as written', async () => {
    const { rows, match } = await search('novlux semi');
    expect(textHighlights(rows[0]!, match!, BOTH)).toEqual([
      {
        field: 'name',
        snippet: '<mark>Novalux</mark> <mark>Semiconductor</mark> Corp.',
        matched_tokens: ['Novalux', 'Semiconductor'],
      },
    ]);
    const bySymbol = await search('nvlx');
    expect(textHighlights(bySymbol.rows[0]!, bySymbol.match!, BOTH)).toEqual([
      { field: 'symbol', snippet: '<mark>NVLX</mark>', matched_tokens: ['NVLX'] },
    ]);
    expect(await textMatch(db, ' -- ', BOTH)).toBeUndefined();
  });

  it('follows an import that renames a security, and a delete', async () => {
    const [nvlx] = (await search('nvlx')).rows;
    expect(nvlx!.symbol).toBe('NVLX'); // the vocabulary is built, before the rename
    const { isinHistory, createdAt: _, updatedAt: __, ...rest } = nvlx!;
    await writeSecurities(db, [
      { ...rest, isinHistory: isinHistory as string[] | null, name: 'Lumorant Devices Corp.' },
    ]);
    expect(await symbols('novalux')).toEqual([]);
    expect(await symbols('lumorant devices')).toEqual(['NVLX']);
    await db.prisma.security.delete({ where: { id: nvlx!.id } });
    expect(await symbols('lumorant')).toEqual([]);
    expect(await symbols('nvlx')).not.toContain('NVLX');
    expect(await db.prisma.securityTerm.count({ where: { securityId: nvlx!.id } })).toBe(0);
  });

  it('costs the same statements for a broad query as for a narrow one', async () => {
    const statements = async (q: string) => {
      await search(q); // the vocabulary at this version
      // the fewest of three runs: a run may also count the master summary's rebuild, which a write
      // before this test starts in the background (services/security-counts.ts)
      let n = Infinity;
      let found = 0;
      for (let i = 0; i < 3; i++) {
        const before = db.statementCount;
        found = (await search(q, BOTH, 100)).found;
        n = Math.min(n, db.statementCount - before);
      }
      return { n, found };
    };
    const broad = await statements('inc');
    const narrow = await statements('quantiro');
    expect(broad.found).toBeGreaterThan(20);
    expect(narrow.found).toBe(1);
    // at most the version (the vocabulary's, out_of's: PostgreSQL may send the two as one) and the
    // page with its count, however many hits
    expect(broad.n).toBeLessThanOrEqual(4);
    expect(narrow.n).toBeLessThanOrEqual(4);
  });

  it('writes at a start the terms of the securities that have none, and only theirs', async () => {
    const securities = await db.prisma.security.count();
    await db.prisma.securityTerm.deleteMany({ where: { security: { symbol: 'QNTR' } } });
    expect(await symbols('quantiro')).toEqual([]);
    expect(await ensureSecurityTerms(db)).toBe(1);
    expect(await symbols('quantiro')).toEqual(['QNTR']);
    await db.prisma.securityTerm.deleteMany();
    expect(await ensureSecurityTerms(db)).toBe(securities);
    expect(await ensureSecurityTerms(db)).toBe(0);
    expect(await symbols('quantiro software')).toEqual(['QNTR']);
    expect(await rebuildSecurityTerms(db)).toBe(securities);
    expect(await symbols('quantiro software')).toEqual(['QNTR']);
  });
});
