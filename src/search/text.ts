/**
 * Search by name with typos, the terms and the typo rule (search/rank.ts matches with them): how a
 * symbol, a name and a query split into terms, how many typos a query token may take, and which
 * terms of the vocabulary each token matches. The rules are Typesense's defaults: no typo in a
 * token shorter than 4 characters, one up to 6, two from 7 (`min_len_1typo`, `min_len_2typo`),
 * typos counted as Damerau-Levenshtein distance (optimal string alignment), and the last token of a
 * query also matching as a prefix.
 */
import { AppError } from '../errors.js';

/** The terms a name keeps: enough for any company name, and a bound on a row's terms. */
export const MAX_NAME_TERMS = 32;

/** The tokens a query may hold: each is expanded and joined on its own. */
export const MAX_QUERY_TOKENS = 16;

/** Characters of a search query, any kind (an identifier prefix or free text), whichever API sends it. */
export const MAX_QUERY_CHARACTERS = 200;

/** The bound every API shares (REST also says it in its parameter spec); throws a BAD_REQUEST. */
export function checkQueryLength(query: string): void {
  if (query.length > MAX_QUERY_CHARACTERS)
    throw new AppError(
      'BAD_REQUEST',
      `search: a query holds at most ${MAX_QUERY_CHARACTERS} characters; got ${query.length}`,
    );
}

/**
 * Vocabulary terms one query token expands to, at most: those with the fewest typos (then in the
 * most securities) are kept. Bounds the statement's parameters (16 tokens x 200 terms) whatever
 * the size of the master; a two-letter prefix over 50,000 names would otherwise name thousands.
 */
export const MAX_EXPANSIONS = 200;

/** The shortest last token that also matches as a prefix: one letter would name a 26th of the vocabulary. */
export const MIN_PREFIX_LENGTH = 2;

/** Field numbers, in the postings keys of the engine (search/engine.ts). */
export const TEXT_FIELDS = { symbol: 0, name: 1 } as const;
export type TextField = keyof typeof TEXT_FIELDS;

/** Compatibility decomposition, accents dropped, lower case: "Société" and "societe" are one term. */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/\p{M}+/gu, '');
}

/** A run of letters, digits and the marks on them, as written in the value. */
const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** One word of a value: its terms (usually one) and where it is in the value (UTF-16 offsets). */
export interface Word {
  terms: string[];
  start: number;
  end: number;
}

/** The words of `value`, split on anything that is not a letter or a digit. */
export function words(value: string): Word[] {
  const out: Word[] = [];
  for (const m of value.matchAll(RUN)) {
    // folding may bring a separator out of one run (NFKD of "½" is "1⁄2")
    const terms = fold(m[0])
      .split(SEPARATORS)
      .filter((t) => t !== '');
    if (terms.length) out.push({ terms, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** A name's terms in order, at most MAX_NAME_TERMS; a term's position is its index. */
export function nameTerms(name: string): string[] {
  return words(name)
    .flatMap((w) => w.terms)
    .slice(0, MAX_NAME_TERMS);
}

/** A symbol is one term, its `.` and `-` kept ("BRK.A" is "brk.a"); empty for a blank symbol. */
export function symbolTerm(symbol: string): string {
  return fold(symbol.trim());
}

/** The tokens of a query, as names are split. */
export function queryTokens(q: string): string[] {
  return words(q).flatMap((w) => w.terms);
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** The typos a query token may take: none below 4 characters or with a digit (an identifier), 1 up to 6, 2 from 7. */
export function typoBudget(token: string): 0 | 1 | 2 {
  if (/\p{N}/u.test(token)) return 0;
  const n = codePoints(token);
  return n < 4 ? 0 : n < 7 ? 1 : 2;
}

const codesOf = (s: string): Int32Array => Int32Array.from(s, (c) => c.codePointAt(0)!);

/** A bit per character (code point mod 32) the codes hold. */
function maskOf(codes: Int32Array): number {
  let mask = 0;
  for (const c of codes) mask |= 1 << (c & 31);
  return mask;
}

/** Set bits of a 32-bit integer. */
function bits(n: number): number {
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The optimal-string-alignment distance of `a` and `b` (insertions, deletions, substitutions and
 * swaps of two neighbours, each counted once), by code point; `max + 1` as soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  return boundedDistance(codesOf(a), codesOf(b), max);
}

// three rows of the table, reused: a search compares its tokens with tens of thousands of terms
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

function boundedDistance(s: Int32Array, t: Int32Array, max: number): number {
  if (Math.abs(s.length - t.length) > max) return max + 1;
  if (rows[0]!.length <= t.length) rows = rows.map(() => new Int32Array(t.length * 2 + 1));
  let [prev2, prev, row] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= t.length; j++) prev[j] = j;
  for (let i = 1; i <= s.length; i++) {
    row[0] = i;
    let best = i;
    const si = s[i - 1]!;
    for (let j = 1; j <= t.length; j++) {
      const tj = t[j - 1]!;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (si === tj ? 0 : 1));
      if (i > 1 && j > 1 && si === t[j - 2] && s[i - 2] === tj) d = Math.min(d, prev2[j - 2]! + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return Math.min(prev[t.length]!, max + 1);
}

// ------------------------------------------------------------------ vocabulary

/** One distinct term of the stored terms, with the securities holding it per field. */
export interface VocabularyTerm {
  term: string;
  /** its code points, for the edit distance */
  codes: Int32Array;
  /** which characters it holds (a bit per code point mod 32): a cheap lower bound of the distance */
  mask: number;
  /** field number -> how many securities hold the term in that field */
  docs: Map<number, number>;
}

/** The distinct terms of the master, sorted (for prefixes) and by length in code points (for typos). */
export interface Vocabulary {
  sorted: VocabularyTerm[];
  byLength: Map<number, VocabularyTerm[]>;
}

export function buildVocabulary(rows: Iterable<{ term: string; field: number; docs: number }>): Vocabulary {
  const steps = vocabularySteps(rows);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Rows counted, terms made or strings compared between two steps of vocabularySteps: tens of µs of work. */
const WORK_PER_STEP = 256;

/**
 * buildVocabulary a step at a time: every WORK_PER_STEP rows counted, terms made or comparisons of
 * their sort, then the vocabulary. The engine's build pauses at each step (search/engine.ts): at
 * 50,000 securities the master holds ~100,000 distinct terms, too many to count, sort and make in one turn.
 */
export function* vocabularySteps(
  rows: Iterable<{ term: string; field: number; docs: number }>,
): Generator<undefined, Vocabulary, undefined> {
  const terms = new Map<string, Map<number, number>>();
  let work = 0;
  for (const { term, field, docs } of rows) {
    const t = terms.get(term) ?? terms.set(term, new Map()).get(term)!;
    t.set(field, (t.get(field) ?? 0) + docs);
    if (++work % WORK_PER_STEP === 0) yield;
  }
  const sorted: VocabularyTerm[] = [];
  const byLength = new Map<number, VocabularyTerm[]>();
  for (const term of yield* sortSteps([...terms.keys()])) {
    const codes = codesOf(term);
    const t = { term, codes, mask: maskOf(codes), docs: terms.get(term)! };
    sorted.push(t);
    (byLength.get(codes.length) ?? byLength.set(codes.length, []).get(codes.length)!).push(t);
    if (++work % WORK_PER_STEP === 0) yield;
  }
  return { sorted, byLength };
}

/** `keys` in the order of `<` (UTF-16 code units), by a merge sort that stops at a step every WORK_PER_STEP comparisons. */
function* sortSteps(keys: string[]): Generator<undefined, string[], undefined> {
  const n = keys.length;
  let from = keys;
  let to = new Array<string>(n);
  let work = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let out = lo; out < hi; out++) {
        to[out] = i < mid && (j >= hi || from[i]! <= from[j]!) ? from[i++]! : from[j++]!;
        if (++work % WORK_PER_STEP === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/**
 * Counts `delta` more securities holding `term` in `field`: a new term takes its place in the
 * sorted list. A term no security holds any more stays, with a count of 0 (expandToken passes it by).
 */
export function countTerm(vocabulary: Vocabulary, term: string, field: number, delta: number): void {
  const at = lowerBound(vocabulary.sorted, term);
  let t = vocabulary.sorted[at];
  if (t?.term !== term) {
    const codes = codesOf(term);
    t = { term, codes, mask: maskOf(codes), docs: new Map() };
    vocabulary.sorted.splice(at, 0, t);
    const n = codes.length;
    (vocabulary.byLength.get(n) ?? vocabulary.byLength.set(n, []).get(n)!).push(t);
  }
  t.docs.set(field, (t.docs.get(field) ?? 0) + delta);
}

/** The index of the first term of `sorted` not below `s`. */
function lowerBound(sorted: readonly VocabularyTerm[], s: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.term < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What a token matched in one field: the term, its typos, and whether only as a prefix (not the whole term). */
export interface Expansion {
  term: string;
  field: number;
  typos: number;
  prefixOnly: boolean;
}

/**
 * The cost of a match, lower ranks first: 2 per typo, 1 for a prefix that is not the whole term
 * (so "novalux" ranks its exact word above "novaluxe", and both above a typo).
 */
export function matchCost(e: { typos: number; prefixOnly: boolean }): number {
  return 2 * e.typos + (e.prefixOnly ? 1 : 0);
}

export interface ExpandOptions {
  /** Whether terms starting with the token match too (the last token of a query). */
  prefix: boolean;
  /** Whether the token takes its typo budget; false: exact terms (and prefixes) only. */
  typos: boolean;
  /** Field numbers (TEXT_FIELDS) to match in. */
  fields: ReadonlySet<number>;
}

/**
 * The vocabulary terms `token` matches in `fields`: within its typo budget (terms of a length
 * within the budget are compared, no others), and with `prefix`, every term starting with it
 * (no typo; from MIN_PREFIX_LENGTH characters). At most MAX_EXPANSIONS terms, the cheapest
 * (matchCost), then those in the most securities.
 */
export function expandToken(
  vocabulary: Vocabulary,
  token: string,
  { prefix, typos: withTypos, fields }: ExpandOptions,
): Expansion[] {
  const found = new Map<VocabularyTerm, { typos: number; prefixOnly: boolean }>();
  const budget = withTypos ? typoBudget(token) : 0;
  if (budget === 0) {
    const at = vocabulary.sorted[lowerBound(vocabulary.sorted, token)];
    if (at?.term === token) found.set(at, { typos: 0, prefixOnly: false });
  } else {
    const codes = codesOf(token);
    const mask = maskOf(codes);
    for (let len = codes.length - budget; len <= codes.length + budget; len++) {
      for (const t of vocabulary.byLength.get(len) ?? []) {
        // each character class one side holds and the other lacks costs an edit of its own: past the
        // budget, the distance need not be computed (most of the vocabulary, for a short token)
        if (bits(mask & ~t.mask) > budget || bits(t.mask & ~mask) > budget) continue;
        const typos = boundedDistance(codes, t.codes, budget);
        if (typos <= budget) found.set(t, { typos, prefixOnly: false });
      }
    }
  }
  if (prefix && codePoints(token) >= MIN_PREFIX_LENGTH) {
    for (
      let i = lowerBound(vocabulary.sorted, token);
      i < vocabulary.sorted.length && vocabulary.sorted[i]!.term.startsWith(token);
      i++
    ) {
      const t = vocabulary.sorted[i]!;
      if (!found.has(t) || found.get(t)!.typos > 0) found.set(t, { typos: 0, prefixOnly: t.term !== token });
    }
  }
  const docsIn = (t: VocabularyTerm) => {
    let n = 0;
    for (const [f, d] of t.docs) if (fields.has(f)) n += d;
    return n;
  };
  // each term's cost and reach once, not in every comparison of the sort
  const ranked = [...found]
    .map(([t, m]) => ({ t, m, cost: matchCost(m), docs: docsIn(t) }))
    .filter((x) => x.docs > 0)
    .sort((a, b) => a.cost - b.cost || b.docs - a.docs || (a.t.term < b.t.term ? -1 : 1))
    .slice(0, MAX_EXPANSIONS);
  return ranked.flatMap(({ t, m }) =>
    [...t.docs.keys()].filter((f) => fields.has(f)).map((field) => ({ term: t.term, field, ...m })),
  );
}

// ------------------------------------------------------------------ highlights

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A field's value with its matched words marked, as Typesense's `highlights` give it. */
export interface Highlight {
  snippet: string;
  matched_tokens: string[];
}

/** `value` as one word (a symbol), marked when `matched(symbolTerm(value))`; undefined when not. */
export function highlightSymbol(value: string, matched: (term: string) => boolean): Highlight | undefined {
  if (!matched(symbolTerm(value))) return undefined;
  return { snippet: `<mark>${escapeHtml(value)}</mark>`, matched_tokens: [value] };
}

/**
 * `value` HTML-escaped with `<mark>…</mark>` around each word one of whose terms is `matched`
 * (among the first MAX_NAME_TERMS terms, those stored); undefined when no word is.
 */
export function highlightName(value: string, matched: (term: string) => boolean): Highlight | undefined {
  let snippet = '';
  let at = 0;
  let position = 0;
  const tokens: string[] = [];
  for (const w of words(value)) {
    const stored = w.terms.slice(0, Math.max(0, MAX_NAME_TERMS - position));
    position += w.terms.length;
    if (!stored.some(matched)) continue;
    const word = value.slice(w.start, w.end);
    snippet += `${escapeHtml(value.slice(at, w.start))}<mark>${escapeHtml(word)}</mark>`;
    at = w.end;
    tokens.push(word);
  }
  if (!tokens.length) return undefined;
  return { snippet: snippet + escapeHtml(value.slice(at)), matched_tokens: tokens };
}
