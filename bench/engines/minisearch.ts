// MiniSearch as the security search engine, for bench/search-engines.ts: MiniSearch ranks the text
// (AND of the words, typos by length, the last word as a prefix); the rows are kept here, and the
// filter (search/syntax.ts parses, search/filter.ts decides), the sort and the facets
// are done by hand over every match.
import MiniSearch, { type SearchResult } from 'minisearch';
import { parseFilterBy, parseSortBy, TEXT_MATCH } from '../../src/search/syntax.js';
import { compileFilter } from '../../src/search/filter.js';
import { MAX_FACET_VALUES, type FacetCount } from '../../src/search/facets.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/search/fields.js';
import type { Engine, Value } from './engine.js';

/** Compatibility decomposition, accents dropped, lower case, split on anything not a letter or digit. */
const terms = (text: string) =>
  text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/\p{M}+/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
/** Typesense's typos by length: none below 4 characters or with a digit, 1 up to 6, 2 from 7. */
const typos = (t: string) => (/\p{N}/u.test(t) || [...t].length < 4 ? false : [...t].length < 7 ? 1 : 2);

/** SQL's order: nulls last either way, then by value. */
function compareValues(a: Value, b: Value, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a < b ? -1 : 1) * (desc ? -1 : 1);
}

/** A facet over the hits: counts most frequent first (ties by value), and a number's stats. */
function facetOf(field: string, hits: readonly Record<string, Value>[]): FacetCount {
  const counts = new Map<string, number>();
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let n = 0;
  for (const row of hits) {
    const v = row[field] ?? null;
    if (v === null) continue;
    counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    if (typeof v === 'number') (min = Math.min(min, v)), (max = Math.max(max, v)), (sum += v), n++;
  }
  const top = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_FACET_VALUES);
  return {
    field_name: field,
    counts: top.map(([value, count]) => ({ value, count, highlighted: value })),
    sampled: false,
    stats: { total_values: counts.size, ...(n ? { min, max, sum, avg: sum / n } : {}) },
  };
}

export function miniSearchEngine(): Engine {
  let index: MiniSearch<{ id: string; symbol: Value; name: Value }>;
  const rows = new Map<string, Record<string, Value>>();
  return {
    name: 'MiniSearch',
    files: ['bench/engines/minisearch.ts'],
    async build(listings) {
      index = new MiniSearch({
        fields: ['symbol', 'name'],
        // a symbol is one term ("BRK.A" is "brk.a")
        tokenize: (text, field) => (field === 'symbol' ? [text.trim()] : terms(text)),
        processTerm: (term) => term.normalize('NFKD').toLowerCase(),
        searchOptions: { tokenize: terms },
      });
      for (const { id, values } of listings) rows.set(id, { ...values });
      index.addAll(listings.map(({ id, values }) => ({ id, symbol: values.symbol!, name: values.name! })));
    },
    async search({ q, filterBy, sortBy, facetBy = [] }) {
      const filter = filterBy ? parseFilterBy(filterBy, SECURITY_SEARCH_FIELDS) : undefined;
      const sort = sortBy ? parseSortBy(sortBy, SECURITY_SEARCH_FIELDS) : [];
      // the engine's filter rule, compiled once over a column that reads the row being kept or not
      let row: Record<string, unknown> = {};
      const columnOf = (f: string) =>
        ({
          get 0() {
            return row[f] ?? null;
          },
        }) as unknown as readonly Value[];
      const test = filter && compileFilter(filter, columnOf);
      const keep = (r: SearchResult) => {
        if (!test) return true;
        row = rows.get(r.id)!;
        return test(0);
      };
      const hits =
        q === '*'
          ? index.search(MiniSearch.wildcard, { filter: keep })
          : index.search(q, {
              combineWith: 'AND',
              prefix: (t, i, all) => i === all.length - 1 && [...t].length >= 2,
              fuzzy: (t) => typos(t),
              filter: keep,
            });
      if (sort.length) {
        const keys = sort.map(({ field, order }) => ({ field, desc: order === 'desc' }));
        hits.sort((a, b) => {
          for (const { field, desc } of keys) {
            const c =
              field === TEXT_MATCH
                ? (desc ? -1 : 1) * (a.score - b.score)
                : compareValues(rows.get(a.id)![field] ?? null, rows.get(b.id)![field] ?? null, desc);
            if (c !== 0) return c;
          }
          return a.id < b.id ? -1 : 1;
        });
      }
      const matched = facetBy.length ? hits.map((h) => rows.get(h.id)!) : [];
      return {
        ids: hits.slice(0, 10).map((h) => String(h.id)),
        found: hits.length,
        facets: facetBy.map((f) => facetOf(f, matched)),
      };
    },
    async update({ id, values }) {
      rows.set(id, { ...values });
      index.replace({ id, symbol: values.symbol!, name: values.name! });
    },
  };
}
