// The pure rules of search by name (src/search/text.ts): terms, typo budgets, the edit
// distance, a token's expansion over a vocabulary, and highlights.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_EXPANSIONS,
  MAX_NAME_TERMS,
  TEXT_FIELDS,
  buildVocabulary,
  editDistance,
  expandToken,
  highlightName,
  highlightSymbol,
  nameTerms,
  queryTokens,
  symbolTerm,
  typoBudget,
} from '../../src/search/text.js';
import { osa } from './edit-distance.js';

const both = new Set<number>([TEXT_FIELDS.symbol, TEXT_FIELDS.name]);
const names = new Set<number>([TEXT_FIELDS.name]);
const vocab = (terms: Record<string, number>, field: number = TEXT_FIELDS.name) =>
  buildVocabulary(Object.entries(terms).map(([term, docs]) => ({ term, field, docs })));
const expanded = (v: ReturnType<typeof vocab>, token: string, prefix = false) =>
  Object.fromEntries(expandToken(v, token, { prefix, typos: true, fields: both }).map((e) => [e.term, e.typos]));

describe('terms', () => {
  it('fold accents, compatibility forms and case, and split on anything but letters and digits', () => {
    expect(nameTerms('Novalux Semiconductor Corp.')).toEqual(['novalux', 'semiconductor', 'corp']);
    expect(nameTerms('Société Générale S.A.')).toEqual(['societe', 'generale', 's', 'a']);
    expect(nameTerms('Bellstone Oil & Gas Inc.')).toEqual(['bellstone', 'oil', 'gas', 'inc']);
    expect(nameTerms('ＡＢＣ Ｈｏｌｄｉｎｇｓ')).toEqual(['abc', 'holdings']); // full-width forms
    expect(queryTokens('  novlux   SEMI-conductor ')).toEqual(['novlux', 'semi', 'conductor']);
    expect(queryTokens('--- . ')).toEqual([]);
  });

  it('keep a symbol whole, lower-cased, its dot and hyphen kept', () => {
    expect(symbolTerm('BRK.A')).toBe('brk.a');
    expect(symbolTerm(' RDS-B ')).toBe('rds-b');
    expect(symbolTerm('  ')).toBe('');
  });

  it(`keep at most ${MAX_NAME_TERMS} terms of a name`, () => {
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(nameTerms(long)).toHaveLength(MAX_NAME_TERMS);
    expect(nameTerms(long).at(-1)).toBe(`w${MAX_NAME_TERMS - 1}`);
  });
});

describe('typo budget', () => {
  it("is Typesense's default: none below 4 characters, 1 for 4 to 6, 2 from 7; none with a digit", () => {
    expect(['abc', 'abcd', 'abcdef', 'abcdefg', 'semiconductor'].map(typoBudget)).toEqual([0, 1, 1, 2, 2]);
    expect(['abc1', 'bbg000b9xry4', '2200'].map(typoBudget)).toEqual([0, 0, 0]);
  });
});

describe('editDistance', () => {
  it('counts a swap of neighbours as one typo', () => {
    expect(editDistance('novlaux', 'novalux', 2)).toBe(1);
    expect(editDistance('semicondutor', 'semiconductor', 2)).toBe(1);
    expect(editDistance('ca', 'abc', 3)).toBe(3); // optimal string alignment: no edit of a swapped pair
  });

  it('agrees with the full table up to the bound, and is bound + 1 past it', () => {
    const word = fc.array(fc.constantFrom('a', 'b', 'c', 'é', '😀'), { maxLength: 8 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        expect(editDistance(a, b, max)).toBe(Math.min(osa(a, b), max + 1));
      }),
    );
  });
});

describe('expandToken', () => {
  const v = vocab({
    novalux: 1,
    novaluxe: 1,
    nova: 3,
    semiconductor: 2,
    semi: 1,
    corp: 40,
    core: 2,
    cor: 1,
    abc1: 1,
    abc2: 1,
  });

  it('takes each term within the budget, and with prefix every term starting with the token', () => {
    expect(expanded(v, 'novlux')).toEqual({ novalux: 1 });
    expect(expanded(v, 'novaluks')).toEqual({ novalux: 2, novaluxe: 2 });
    expect(expanded(v, 'nova', true)).toEqual({ nova: 0, novalux: 0, novaluxe: 0 });
    expect(expanded(v, 'semicondutcor')).toEqual({ semiconductor: 1 }); // a swap
    expect(expanded(v, 'semicondctr')).toEqual({ semiconductor: 2 });
  });

  it('gives short tokens and tokens with a digit no typo', () => {
    expect(expanded(v, 'cor')).toEqual({ cor: 0 }); // not core, corp
    expect(expanded(v, 'abc3')).toEqual({});
    expect(expanded(v, 'abc1')).toEqual({ abc1: 0 });
  });

  it('matches a prefix from two characters only, and never a prefix with a typo', () => {
    expect(expanded(v, 'n', true)).toEqual({});
    expect(expanded(v, 'nobalux', true)).toEqual({ novalux: 1, novaluxe: 2 });
  });

  it(`keeps the ${MAX_EXPANSIONS} cheapest terms, then those in the most securities`, () => {
    const many = vocab(
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`ab${String(i).padStart(3, '0')}`, i + 1])),
    );
    const got = expandToken(many, 'ab', { prefix: true, typos: true, fields: both });
    expect(got).toHaveLength(MAX_EXPANSIONS);
    expect(got[0]!.term).toBe('ab299');
    expect(got.at(-1)!.term).toBe('ab100');
  });

  it('matches only in the fields asked for', () => {
    const mixed = buildVocabulary([
      { term: 'nvlx', field: TEXT_FIELDS.symbol, docs: 1 },
      { term: 'novalux', field: TEXT_FIELDS.name, docs: 1 },
    ]);
    expect(expandToken(mixed, 'nvlx', { prefix: false, typos: true, fields: names })).toEqual([]);
    expect(expandToken(mixed, 'nvlx', { prefix: false, typos: true, fields: both })).toEqual([
      { term: 'nvlx', field: TEXT_FIELDS.symbol, typos: 0, prefixOnly: false },
    ]);
  });
});

describe('highlights', () => {
  const matched =
    (...terms: string[]) =>
    (t: string) =>
      terms.includes(t);

  it('mark each matched word of a name as written, the rest HTML-escaped', () => {
    expect(highlightName('Novalux Semiconductor Corp.', matched('novalux', 'semiconductor'))).toEqual({
      snippet: '<mark>Novalux</mark> <mark>Semiconductor</mark> Corp.',
      matched_tokens: ['Novalux', 'Semiconductor'],
    });
    expect(highlightName('Bellstone Oil & Gas <Inc.>', matched('gas'))).toEqual({
      snippet: 'Bellstone Oil &amp; <mark>Gas</mark> &lt;Inc.&gt;',
      matched_tokens: ['Gas'],
    });
    expect(highlightName('Société Générale', matched('societe'))?.snippet).toBe('<mark>Société</mark> Générale');
    expect(highlightName('Novalux Semiconductor', matched('corp'))).toBeUndefined();
  });

  it('mark a symbol whole', () => {
    expect(highlightSymbol('BRK.A', matched('brk.a'))).toEqual({
      snippet: '<mark>BRK.A</mark>',
      matched_tokens: ['BRK.A'],
    });
    expect(highlightSymbol('NVLX', matched('nvl'))).toBeUndefined();
  });
});
