// Orama (@orama/orama) as the security search engine, for bench/search-engines.ts: a schema of the
// search fields, filter_by (parsed by search/syntax.ts) translated to Orama's `where`, one
// sort key, enum facets ranked and cut to Typesense's 10 here (Orama returns every enum value unranked).
import { create, insertMultiple, search, update, type AnyOrama } from '@orama/orama';
import { type Filter, parseFilterBy, parseSortBy, TEXT_MATCH } from '../../src/search/syntax.js';
import { MAX_FACET_VALUES, type FacetCount } from '../../src/search/facets.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/search/fields.js';
import type { Engine, Listing } from './engine.js';

const SCHEMA = {
  symbol: 'string',
  name: 'string',
  exchange_info: { mic_code: 'enum', exchange_country: 'enum' },
  classification: { gics: 'enum', security_type: 'enum', market_sector: 'enum' },
  ticker_meta: { active: 'boolean' },
  financials: { market_cap: 'number' },
  company_info: { total_employees: 'number' },
  metrics: {
    pe_ratio: 'number',
    price_to_book: 'number',
    debt_to_equity: 'number',
    return_on_equity: 'number',
    return_on_assets: 'number',
    roic: 'number',
    fcf_yield: 'number',
  },
} as const;

/** The schema's fields by their dotted names, with their Orama types. */
const TYPES = new Map<string, string>();
(function flatten(node: object, prefix: string) {
  for (const [k, v] of Object.entries(node))
    typeof v === 'string' ? TYPES.set(prefix + k, v) : flatten(v, `${prefix}${k}.`);
})(SCHEMA, '');

/** A listing as an Orama document: nested as the schema, a field without a value left out. */
function documentOf({ id, values }: Listing): Record<string, unknown> {
  const doc: Record<string, any> = { id };
  for (const field of TYPES.keys()) {
    const v = values[field];
    if (v === null || v === undefined) continue;
    const path = field.split('.');
    let at = doc;
    for (const key of path.slice(0, -1)) at = at[key] ??= {};
    at[path[path.length - 1]!] = v;
  }
  return doc;
}

const RANGE_OPS = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const;

/** A parsed filter_by as Orama's `where`. */
function whereOf(f: Filter): Record<string, unknown> {
  if ('of' in f) return { [f.op]: f.of.map(whereOf) };
  const type = TYPES.get(f.field);
  if (!type) throw new Error(`orama: ${f.field} is not in the schema`);
  if ('value' in f) return { [f.field]: { [RANGE_OPS[f.op]]: f.value } };
  const any =
    type === 'enum'
      ? [{ [f.field]: { in: f.values } }]
      : type === 'boolean'
        ? f.values.map((v) => ({ [f.field]: v }))
        : [
            ...f.values.map((v) => ({ [f.field]: { eq: v } })),
            ...f.ranges.map((r) => ({ [f.field]: { between: [r.from, r.to] } })),
          ];
  const match = any.length === 1 ? any[0]! : { or: any };
  return f.op === '=' ? match : { not: match };
}

/** Typesense's typos by length (none below 4 characters or with a digit, 1 up to 6, 2 from 7): Orama takes one tolerance per query, so the longest word's. */
const tolerance = (q: string) =>
  Math.max(
    0,
    ...q
      .split(/[^\p{L}\p{N}]+/u)
      .map((t) => (/\p{N}/u.test(t) ? 0 : [...t].length < 4 ? 0 : [...t].length < 7 ? 1 : 2)),
  );

export function oramaEngine(): Engine {
  let db: AnyOrama;
  return {
    name: 'Orama',
    files: ['bench/engines/orama.ts'],
    async build(listings) {
      db = create({ schema: SCHEMA });
      await insertMultiple(db, listings.map(documentOf) as never, 1000);
    },
    async search({ q, filterBy, sortBy, facetBy = [] }) {
      const sort = sortBy ? parseSortBy(sortBy, SECURITY_SEARCH_FIELDS) : [];
      if (sort.length > 1 || sort[0]?.field === TEXT_MATCH)
        throw new Error('orama: one sort field, and relevance only as the default order');
      const result = await search(db, {
        ...(q === '*' ? {} : { term: q, properties: ['symbol', 'name'], tolerance: tolerance(q), threshold: 0 }),
        ...(filterBy ? { where: whereOf(parseFilterBy(filterBy, SECURITY_SEARCH_FIELDS)) } : {}),
        ...(sort[0] ? { sortBy: { property: sort[0].field, order: sort[0].order === 'asc' ? 'ASC' : 'DESC' } } : {}),
        ...(facetBy.length ? { facets: Object.fromEntries(facetBy.map((f) => [f, {}])) } : {}),
        limit: 10,
      } as never);
      const facets: FacetCount[] = facetBy.map((field) => {
        const values = Object.entries(result.facets?.[field]?.values ?? {}).filter(([, n]) => n > 0);
        const top = values
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
          .slice(0, MAX_FACET_VALUES);
        return {
          field_name: field,
          counts: top.map(([value, count]) => ({ value, count, highlighted: value })),
          sampled: false,
          stats: { total_values: values.length },
        };
      });
      return { ids: result.hits.map((h) => String(h.id)), found: result.count, facets };
    },
    async update(listing) {
      await update(db, listing.id, documentOf(listing) as never);
    },
  };
}
