import type { Db } from '../db/client.js';
import { anyOf, readSql } from '../db/sql.js';
import { TEXT_FIELDS } from '../domain/search-text.js';
import { comparisonTest } from '../domain/filter-match.js';
import { TEXT_MATCH, type Filter, type SortTerm } from '../domain/search-syntax.js';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { masterVersion } from './security-counts.js';
import { MAX_FACET_VALUES, type FacetCount } from './security-facets.js';
import { SECURITY_SEARCH_FIELDS } from './security-fields.js';
import type { TextMatch } from './security-text.js';

/**
 * The security master in memory, for searches that rank, filter, sort or facet the whole master:
 * in SQL each of those is a pass over every match (a broad name like "inc" matches two thirds of a
 * 50,000-security master: hundreds of ms, bench/RESULTS.md), in memory a few milliseconds, as
 * Typesense keeps its collections. It holds the search fields of every security (not the metrics,
 * which fundamentals imports change without a version) and the postings of the term index.
 *
 * Never stale, as the master summary (security-counts.ts): it is used only at the master version it
 * was read at; a search at another version takes the SQL path, and a rebuild starts in the
 * background. Masters past MAX_INDEXED_SECURITIES are always searched in SQL: the index takes about
 * 0.9 KB of heap per security (44 MB at 50,000, measured), two while a new version is read beside
 * the old, so it is bounded by design well inside the heap `npm start` gives (512 MB), not by it.
 */
export const MAX_INDEXED_SECURITIES = 100_000;

type Value = string | number | boolean | null;

export interface SearchIndex {
  version: bigint;
  ids: readonly string[];
  /** Per search field (SECURITY_SEARCH_FIELDS, the metrics left out), its value for each security. */
  values: ReadonlyMap<string, readonly Value[]>;
  marketCap: readonly (number | null)[];
  /** Words of each name in the term index (the rank's last key). */
  nameWords: Uint16Array;
  /** The securities (by position) holding a term in a field: key `${field}:${term}`. */
  postings: ReadonlyMap<string, Int32Array>;
  /** Each security's terms, as postings keys (the same strings): the other tokens of a query are checked on them. */
  terms: readonly (readonly string[])[];
  /** Every position, by symbol then id: the wildcard's order, read without sorting. */
  bySymbol: Int32Array;
  /** The text and boolean facets as small codes (-1: no value), counted without hashing a string per security. */
  codes: ReadonlyMap<string, { codes: Int32Array; labels: readonly string[] }>;
}

const FIELDS = [...SECURITY_SEARCH_FIELDS.values()].filter((f) => !f.metrics);
const ROWS = Prisma.sql`SELECT "id", ${Prisma.join(
  FIELDS.map((f) => Prisma.raw(`"${f.column}"`)),
  ', ',
)} FROM "Security" ORDER BY "id"`;
const TERMS = Prisma.sql`SELECT "term", "field", "securityId" FROM "SecurityTerm"`;

function valueOf(kind: 'string' | 'number' | 'boolean', v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (kind === 'number') return Number(v);
  if (kind === 'boolean') return v === true || v === 1 || v === '1' || v === 't' || v === 'true';
  return String(v);
}

/** The index of the master as it is, or the version of a master past MAX_INDEXED_SECURITIES; undefined when none can be kept. */
async function readIndex(db: Db): Promise<SearchIndex | { tooLarge: bigint } | undefined> {
  const version = await masterVersion(db);
  if (version === undefined) return undefined;
  const rows = await readSql<Record<string, unknown>>(db, ROWS);
  if (rows.length > MAX_INDEXED_SECURITIES) return { tooLarge: version };
  const terms = await readSql<{ term: string; field: unknown; securityId: string }>(db, TERMS);
  // a write between the reads would mix two versions: such an index is not kept
  if ((await masterVersion(db)) !== version) return undefined;
  const ids = rows.map((r) => String(r.id));
  const at = new Map(ids.map((id, i) => [id, i]));
  const values = new Map(FIELDS.map((f) => [f.name, rows.map((r) => valueOf(f.kind, r[f.column]))]));
  const nameWords = new Uint16Array(ids.length);
  const lists = new Map<string, { key: string; items: number[] }>();
  const forward: string[][] = ids.map(() => []);
  for (const t of terms) {
    const i = at.get(t.securityId);
    if (i === undefined) continue;
    const field = Number(t.field);
    if (field === TEXT_FIELDS.name) nameWords[i] = Math.min(nameWords[i]! + 1, 0xffff);
    const key = `${field}:${t.term}`;
    let list = lists.get(key);
    if (!list) lists.set(key, (list = { key, items: [] }));
    list.items.push(i);
    forward[i]!.push(list.key);
  }
  const postings = new Map([...lists].map(([key, list]) => [key, Int32Array.from(list.items)]));
  const symbols = values.get('symbol') as string[];
  const bySymbol = Int32Array.from(ids, (_, i) => i).sort((a, b) =>
    symbols[a]! < symbols[b]! ? -1 : symbols[a]! > symbols[b]! ? 1 : ids[a]! < ids[b]! ? -1 : 1,
  );
  const codes = new Map(
    FIELDS.filter((f) => f.facet && f.kind !== 'number').map((f) => [f.name, encode(values.get(f.name)!)]),
  );
  return {
    version,
    ids,
    values,
    marketCap: values.get('financials.market_cap') as (number | null)[],
    nameWords,
    postings,
    terms: forward,
    bySymbol,
    codes,
  };
}

function encode(column: readonly Value[]): { codes: Int32Array; labels: string[] } {
  const labels: string[] = [];
  const known = new Map<string, number>();
  const codes = Int32Array.from(column, (v) => {
    if (v === null) return -1;
    const label = String(v);
    let code = known.get(label);
    if (code === undefined) known.set(label, (code = labels.push(label) - 1));
    return code;
  });
  return { codes, labels };
}

interface IndexState {
  current?: SearchIndex;
  building?: Promise<unknown>;
  /** A version whose master was found too large to hold: not read again until the master changes. */
  tooLarge?: bigint;
}

/** Why a search is answered in SQL rather than from the index (observability/fallbacks.ts's reasons). */
export type NoIndex = 'stale' | 'too_large';

// keyed by the Prisma client: one per database, whichever request's Db (Db.forRequest) asks
const states = new WeakMap<object, IndexState>();

/**
 * The index at `version`, or why there is none (the caller searches in SQL): `stale` while one is
 * read in the background, one read at a time per database; a failed read is handed to `failed`
 * and forgotten, so the next search retries.
 */
export function indexAt(db: Db, version: bigint, failed?: (err: unknown) => void): SearchIndex | NoIndex {
  let state = states.get(db.prisma);
  if (!state) states.set(db.prisma, (state = {}));
  if (state.current?.version === version) return state.current;
  if (state.tooLarge === version) return 'too_large';
  if (!state.building) {
    const s = state;
    s.building = readIndex(db)
      .then((index) => {
        if (index && 'tooLarge' in index) s.tooLarge = index.tooLarge;
        else if (index && (!s.current || index.version > s.current.version)) s.current = index;
      })
      .catch((err: unknown) => failed?.(err))
      .finally(() => (s.building = undefined));
  }
  return 'stale';
}

/** Waits for the index of the master as it is now: server.ts reads it at start, tests and benchmarks wait for it; searches never wait. */
export async function readyIndex(db: Db, failed?: (err: unknown) => void): Promise<SearchIndex | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const version = await masterVersion(db);
    if (version === undefined) return undefined;
    const index = indexAt(db, version, failed);
    if (typeof index !== 'string') return index;
    if (index === 'too_large') return undefined;
    await states.get(db.prisma)?.building;
  }
  return undefined;
}

/**
 * Each security's rank for `text` (lower first), as services/security-text.ts's SQL scores it; absent:
 * no match. Candidates come from the token whose terms reach the fewest securities; the other
 * tokens are checked on each candidate's own terms, so "merion te" reads the postings of "merion",
 * not of every term starting with "te".
 */
function textScores(index: SearchIndex, text: TextMatch): Map<number, number> {
  const n = text.tokenCount;
  const expansions = Array.from({ length: n }, () => new Map<string, number>());
  const reach = new Array<number>(n).fill(0);
  const whole = new Map<number, number>();
  for (const [term, field, tok, cost] of text.rows) {
    const key = `${field}:${term}`;
    const list = index.postings.get(key);
    if (!list) continue;
    if (tok < 0) {
      for (const i of list) if (!(whole.get(i)! <= cost)) whole.set(i, cost);
      continue;
    }
    const cheapest = expansions[tok]!.get(key);
    if (cheapest === undefined) reach[tok]! += list.length;
    if (!(cheapest! <= cost)) expansions[tok]!.set(key, cost);
  }
  /** The cheapest match of token `t` among security `i`'s terms, or Infinity. */
  const costOf = (t: number, i: number) => {
    let best = Infinity;
    for (const key of index.terms[i]!) {
      const c = expansions[t]!.get(key);
      if (c !== undefined && c < best) best = c;
    }
    return best;
  };
  const rarest = reach.indexOf(Math.min(...reach));
  const candidates = new Map<number, number>();
  for (const [key, cost] of expansions[rarest]!)
    for (const i of index.postings.get(key)!) if (!(candidates.get(i)! <= cost)) candidates.set(i, cost);
  const scores = new Map<number, number>();
  for (const [i, cost] of candidates) {
    let sum = cost;
    for (let t = 0; t < n && sum !== Infinity; t++) if (t !== rarest) sum += costOf(t, i);
    if (sum !== Infinity) scores.set(i, (whole.get(i) ?? 2) * 10_000 + sum * 100 + index.nameWords[i]!);
  }
  // the whole query as a symbol matches without every token: its cost counts the tokens it does match
  for (const [i, w] of whole) {
    if (scores.has(i)) continue;
    let sum = 0;
    for (let t = 0; t < n; t++) {
      const c = costOf(t, i);
      if (c !== Infinity) sum += c;
    }
    scores.set(i, w * 10_000 + sum * 100 + index.nameWords[i]!);
  }
  return scores;
}

/** SQL's order of values: nulls last either way, numbers by value, text by code unit (code point below U+10000). */
function compareValues(a: Value, b: Value, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = a < b ? -1 : 1;
  return desc ? -c : c;
}

export interface IndexQuery {
  text?: TextMatch | undefined;
  filter?: Filter | undefined;
  sort?: readonly SortTerm[] | undefined;
}

export interface IndexHits {
  /** The matches in order, up to `offset + limit + 1` of them (the one past the page says more follow). */
  ids: string[];
  found: number;
  facetsOf(fields: readonly string[]): FacetCount[];
}

/** The matches of `query` in its order (services/security-query.ts's SQL order), counted, with their facets on demand. */
export function searchIndex(index: SearchIndex, query: IndexQuery, wanted: number): IndexHits {
  const scores = query.text ? textScores(index, query.text) : undefined;
  const keys = query.sort?.length ? query.sort : undefined;
  // without text or sort the order is the symbol's, kept in the index: the matches come in it
  const inOrder = !scores && !keys;
  let matches: number[] = scores ? [...scores.keys()] : Array.from(index.bySymbol);
  if (query.filter) {
    const keep = compileFilter(query.filter, (field) => index.values.get(field)!);
    matches = matches.filter(keep);
  }
  const sortKeys = keys?.map(({ field, order }) => ({
    text: field === TEXT_MATCH,
    column: index.values.get(field),
    desc: order === 'desc',
  }));
  const compare = (a: number, b: number): number => {
    if (sortKeys) {
      for (const { text, column, desc } of sortKeys) {
        const c = text
          ? (desc ? 1 : -1) * (scores!.get(a)! - scores!.get(b)!)
          : compareValues(column![a]!, column![b]!, desc);
        if (c !== 0) return c;
      }
    } else if (scores) {
      const c = scores.get(a)! - scores.get(b)! || compareValues(index.marketCap[a]!, index.marketCap[b]!, true);
      if (c !== 0) return c;
    }
    return index.ids[a]! < index.ids[b]! ? -1 : 1;
  };
  const page = inOrder ? matches.slice(0, Math.max(wanted, 0)) : topOf(matches, wanted, compare);
  return {
    ids: page.map((i) => index.ids[i]!),
    found: matches.length,
    facetsOf: (fields) => facetsOf(index, matches, fields),
  };
}

/**
 * `filter` as a test of a security's position: the tree walked once, each comparison bound to its
 * column and decided by the rule matchesFilter applies (domain/filter-match.ts), so SQL's rules stay in one place.
 */
function compileFilter(filter: Filter, columnOf: (field: string) => readonly Value[]): (i: number) => boolean {
  if ('of' in filter) {
    const parts = filter.of.map((part) => compileFilter(part, columnOf));
    return filter.op === 'and' ? (i) => parts.every((p) => p(i)) : (i) => parts.some((p) => p(i));
  }
  const column = columnOf(filter.field);
  const test = comparisonTest(filter);
  return (i) => test(column[i]!);
}

/** The first `k` of `items` by `compare`: a sorted buffer for a page, a full sort for a deep one. */
function topOf(items: number[], k: number, compare: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  if (k * 16 >= items.length) return items.sort(compare).slice(0, k);
  const best: number[] = [];
  for (const item of items) {
    if (best.length === k && compare(item, best[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, item);
    if (best.length > k) best.pop();
  }
  return best;
}

/** Facet counts over `matches`, as services/security-facets.ts counts them in SQL: most frequent first, ties by value. */
function facetsOf(index: SearchIndex, matches: readonly number[], fields: readonly string[]): FacetCount[] {
  return fields.map((field) => {
    const column = index.values.get(field)!;
    return SECURITY_SEARCH_FIELDS.get(field)!.kind === 'number'
      ? numberFacet(field, column as readonly (number | null)[], matches)
      : textFacet(field, index.codes.get(field)!, matches);
  });
}

/** A text or boolean facet: counted by code, ties by the stored text (a boolean's, 0/1 or false/true, puts false first either way). */
function textFacet(
  field: string,
  { codes, labels }: { codes: Int32Array; labels: readonly string[] },
  matches: readonly number[],
): FacetCount {
  const counts = new Int32Array(labels.length);
  for (const i of matches) {
    const code = codes[i]!;
    if (code >= 0) counts[code]!++;
  }
  const present = labels.map((label, code) => [label, counts[code]!] as const).filter(([, count]) => count > 0);
  const top = present
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_FACET_VALUES);
  return {
    field_name: field,
    counts: top.map(([value, count]) => ({ value, count, highlighted: value })),
    sampled: false,
    stats: { total_values: present.length },
  };
}

/** A numeric facet: the values sorted once, each run of one value a count (a market cap has as many values as securities). */
function numberFacet(field: string, column: readonly (number | null)[], matches: readonly number[]): FacetCount {
  const values = new Float64Array(matches.length);
  let n = 0;
  for (const i of matches) {
    const v = column[i];
    if (v !== null && v !== undefined) values[n++] = v;
  }
  const sorted = values.subarray(0, n).sort();
  // ascending values: a later value with an equal count ranks below, so only a larger count displaces
  const best: { value: number; count: number }[] = [];
  let distinct = 0;
  let sum = 0;
  for (let j = 0; j < n; ) {
    let k = j;
    while (k < n && sorted[k] === sorted[j]) sum += sorted[k++]!;
    distinct++;
    const run = { value: sorted[j]!, count: k - j };
    if (best.length < MAX_FACET_VALUES || run.count > best[best.length - 1]!.count) {
      best.push(run);
      best.sort((a, b) => b.count - a.count || a.value - b.value);
      if (best.length > MAX_FACET_VALUES) best.pop();
    }
    j = k;
  }
  const stats: FacetCount['stats'] = { total_values: distinct };
  if (n > 0) Object.assign(stats, { min: sorted[0], max: sorted[n - 1], sum, avg: sum / n });
  return {
    field_name: field,
    counts: best.map(({ value, count }) => ({ value: String(value), count, highlighted: String(value) })),
    sampled: false,
    stats,
  };
}

/** The rows of `ids`, in that order (one statement); an id deleted since the index was read is left out. */
export async function securitiesInOrder(db: Db, ids: readonly string[]): Promise<Security[]> {
  if (ids.length === 0) return [];
  const rows = await readSql<Security>(db, Prisma.sql`SELECT * FROM "Security" WHERE ${anyOf('"id"', ids)}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
