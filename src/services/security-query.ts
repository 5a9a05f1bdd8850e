import type { Db } from '../db/client.js';
import { decodeCursor, encodeCursor, type Ordering, type Page } from '../db/keyset.js';
import { filterSql, orderSql } from '../db/search-filter.js';
import { readSql } from '../db/sql.js';
import { TEXT_MATCH, type Filter, type SortTerm } from '../domain/search-syntax.js';
import { AppError } from '../errors.js';
import type { Fallbacks } from '../observability/fallbacks.js';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { masterVersion } from './security-counts.js';
import { indexAt, searchIndex, securitiesInOrder, type SearchIndex } from './security-index.js';
import { isWildcard, matchOf, totalSecurities, type SecuritySearch } from './security.js';
import { securityFacets, type FacetCount } from './security-facets.js';
import { SECURITY_SEARCH_FIELDS } from './security-fields.js';
import type { TextField } from '../domain/search-text.js';
import { textMatch, textMatchesNothing, type TextMatch } from './security-text.js';

/**
 * A search of the master beyond one identifier prefix: free text with typos over names and symbols,
 * Typesense's filters and sort, facets over the whole match set (docs/rest.md#security-search,
 * docs/graphql.md#search-and-screener). Every part is optional; all given parts must hold.
 */
export interface SecurityQuery {
  /** An identifier prefix of one search type, or the wildcard (services/security.ts). */
  search?: SecuritySearch | undefined;
  /** Free text: each word of `q` must match a word of one of `fields`, with typos by length; the last as a prefix. */
  text?: { q: string; fields: readonly TextField[] } | undefined;
  filter?: Filter | undefined;
  /** At most three fields; `_text_match` is the text's rank. Default: the text's rank, else symbol, then id. */
  sort?: readonly SortTerm[] | undefined;
  /** Facet fields (`facet: true` in SECURITY_SEARCH_FIELDS). */
  facets?: readonly string[] | undefined;
}

export interface SecurityQueryResult {
  nodes: Security[];
  /** Whether rows follow this page. */
  more: boolean;
  found: number;
  outOf: number;
  /** The facets `query.facets` asked for. */
  facets: FacetCount[];
  /** The facets of other fields over the same match set, when a client asks for them later (GraphQL's `facets`). */
  facetsOf(fields: readonly string[]): Promise<FacetCount[]>;
  /** The text's match, for highlights; undefined without text. */
  text: TextMatch | undefined;
}

/** Hits a query may page past, as a bound on OFFSET's work: narrow the query to see further. */
export const MAX_SEARCH_OFFSET = 10_000;

/** The latest enhanced fundamentals of each symbol, by period end (the annual record on a tie): what the screener's metrics are. */
const LATEST_METRICS = Prisma.sql`SELECT f."symbol" AS "metricsSymbol", fm.* FROM "Fundamental" f JOIN "FundamentalMetrics" fm ON fm."fundamentalId" = f."id"
  WHERE f."id" = (SELECT f2."id" FROM "Fundamental" f2 WHERE f2."symbol" = f."symbol" ORDER BY f2."endPeriod" DESC, CASE WHEN f2."quarter" = 'FY' THEN 0 ELSE 1 END, f2."id" DESC LIMIT 1)`;

/** A field's SQL: a column of "Security", or of the latest metrics (`metrics.*`). */
function columnOf(field: string): Prisma.Sql {
  const spec = SECURITY_SEARCH_FIELDS.get(field);
  if (!spec) throw new AppError('BAD_REQUEST', `unknown search field ${JSON.stringify(field)}`);
  return Prisma.raw(spec.metrics ? `lm."${spec.column}"` : `s."${spec.column}"`);
}

const isMetric = (field: string) => SECURITY_SEARCH_FIELDS.get(field)?.metrics === true;
const fieldsOf = (f: Filter): string[] => ('of' in f ? f.of.flatMap(fieldsOf) : [f.field]);
const usesMetrics = (query: SecurityQuery): boolean =>
  [...(query.filter ? fieldsOf(query.filter) : []), ...(query.sort ?? []).map((s) => s.field)].some(isMetric);

/** What a query selects: its FROM and WHERE, its order, and its text's match; undefined when nothing can match. */
interface QuerySource {
  source: Prisma.Sql;
  order: Prisma.Sql;
  text: TextMatch | undefined;
}

/** The rule of a query's parts beyond each part's own: relevance needs text. */
function checkQuery(query: SecurityQuery): void {
  if (!query.text && query.sort?.some((s) => s.field === TEXT_MATCH))
    throw new AppError('BAD_REQUEST', `sort by ${TEXT_MATCH} (relevance) needs a text query`);
}

/** Why the master in memory cannot answer `query`: it answers the whole master (no identifier prefix), without metrics. */
const notInMemory = (query: SecurityQuery): 'prefix' | 'metrics' | undefined =>
  query.search && !isWildcard(query.search.query) ? 'prefix' : usesMetrics(query) ? 'metrics' : undefined;

/** Where a search counts its answers in SQL instead of from memory, and why (observability/fallbacks.ts); tests and benchmarks pass none. */
type SearchFallbacks = Pick<Fallbacks, 'record'> | undefined;

/** The master in memory at the master's version, with that version; undefined (told to `fallbacks`, with why) while it is (re)read. */
async function currentIndex(
  db: Db,
  fallbacks: SearchFallbacks,
): Promise<{ index: SearchIndex; version: bigint } | undefined> {
  const version = await masterVersion(db);
  const index =
    version === undefined
      ? 'unversioned'
      : indexAt(db, version, (err) => fallbacks?.record('search', 'error', { err }));
  if (typeof index !== 'string') return { index, version: version! };
  fallbacks?.record('search', index);
  return undefined;
}

/** Whether the master in memory may answer `query`: counted on `fallbacks` when it may not. */
function fromMemory(query: SecurityQuery, fallbacks: SearchFallbacks): boolean {
  const why = notInMemory(query);
  if (why) fallbacks?.record('search', why);
  return why === undefined;
}

async function sourceOf(db: Db, query: SecurityQuery): Promise<QuerySource | undefined> {
  const [search, text] = await Promise.all([
    query.search && matchOf(db, query.search),
    query.text && textMatch(db, query.text.q, query.text.fields),
  ]);
  // nothing can match: LIKE's wildcards in an identifier prefix, or text without a single word
  if ((query.search && !search) || (query.text && (!text || textMatchesNothing(text)))) return undefined;
  const joins = Prisma.join(
    [
      Prisma.sql`FROM "Security" s`,
      ...(text ? [Prisma.sql`JOIN (${text.sql}) m ON m."securityId" = s."id"`] : []),
      ...(usesMetrics(query) ? [Prisma.sql`LEFT JOIN (${LATEST_METRICS}) lm ON lm."metricsSymbol" = s."symbol"`] : []),
    ],
    ' ',
  );
  const conditions = [...(search ? [search.match] : []), ...(query.filter ? [filterSql(query.filter, columnOf)] : [])];
  const source = Prisma.sql`${joins} WHERE ${conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`}`;
  // relevance is best first for `desc`, as Typesense's _text_match: the score is lower the better
  const sorted = query.sort?.length
    ? orderSql(query.sort, columnOf, text ? Prisma.raw('(-m."score")') : undefined)
    : Prisma.empty;
  const order =
    sorted !== Prisma.empty
      ? Prisma.sql`${sorted}, s."id"`
      : text
        ? Prisma.sql`m."score", s."marketCap" DESC NULLS LAST, s."id"`
        : Prisma.raw(`s."${search && !search.wildcard ? search.column : 'symbol'}", s."id"`);
  return { source, order, text: text || undefined };
}

const facetSpecs = (fields: readonly string[]) =>
  fields.map((field) => ({
    field,
    column: SECURITY_SEARCH_FIELDS.get(field)!.column,
    kind: SECURITY_SEARCH_FIELDS.get(field)!.kind,
  }));
const noFacets = (fields: readonly string[]): FacetCount[] =>
  fields.map((field) => ({ field_name: field, counts: [], sampled: false, stats: { total_values: 0 } }));

/** A ranked or sorted page: its cursor is the position after a hit, since a rank is no key to seek to. */
const RANKED: Ordering<{ offset: number }> = {
  tag: 'securities.ranked',
  columns: [{ column: 'offset', type: 'int', of: (r) => r.offset }],
};

/** `securityQueryPage` by cursor, as a connection pages: the page of `first` hits after `after`, and the result it comes from. */
export async function securityQueryCursorPage(
  db: Db,
  query: SecurityQuery,
  { first, after }: { first: number; after?: string | null | undefined },
  fallbacks?: SearchFallbacks,
): Promise<{ page: Page<Security>; result: SecurityQueryResult }> {
  const offset = after ? Number(decodeCursor(RANKED, 'asc', after)[0]) : 0;
  if (offset < 0) throw new AppError('BAD_REQUEST', 'after: not a cursor of this list');
  const result = await securityQueryPage(db, query, { offset, limit: first }, { fallbacks });
  const page: Page<Security> = {
    nodes: result.nodes,
    hasNextPage: result.more,
    cursorAt: (i) => encodeCursor(RANKED, 'asc', { offset: offset + i + 1 }),
    totalCount: async () => result.found,
  };
  return { page, result };
}

/**
 * Page `offset`..`offset + limit` of the securities `query` matches, in its order, with exact counts
 * and the facets asked for: the page with its count is one statement, the facets another, run together.
 * Ranked and sorted results page by offset (a rank is no key to seek to), at most MAX_SEARCH_OFFSET deep.
 */
export async function securityQueryPage(
  db: Db,
  query: SecurityQuery,
  { offset, limit }: { offset: number; limit: number },
  { index = true, fallbacks }: { index?: boolean; fallbacks?: SearchFallbacks } = {},
): Promise<SecurityQueryResult> {
  if (offset > MAX_SEARCH_OFFSET)
    throw new AppError(
      'BAD_REQUEST',
      `a search pages at most ${MAX_SEARCH_OFFSET} hits deep; got offset ${offset}: narrow the query or filter`,
    );
  checkQuery(query);
  if (index && fromMemory(query, fallbacks)) {
    const found = await fromIndex(db, query, offset, limit, fallbacks);
    if (found) return found;
  }
  const [q, outOf] = await Promise.all([sourceOf(db, query), totalSecurities(db)]);
  if (!q)
    return {
      nodes: [],
      more: false,
      found: 0,
      outOf,
      facets: noFacets(query.facets ?? []),
      facetsOf: async (fields) => noFacets(fields),
      text: undefined,
    };
  const facetsOf = (fields: readonly string[]) => securityFacets(db, q.source, facetSpecs(fields));
  // the count rides on the page (one pass over the match set, not two); a page past the end has no
  // row to carry it, and counts alone
  const [rows, facets] = await Promise.all([
    readSql<Security & { matchCount?: unknown }>(
      db,
      Prisma.sql`SELECT s.*, COUNT(*) OVER () AS "matchCount" ${q.source} ORDER BY ${q.order} LIMIT ${limit + 1} OFFSET ${offset}`,
    ),
    facetsOf(query.facets ?? []),
  ]);
  const found = rows.length
    ? Number(rows[0]!.matchCount)
    : offset === 0
      ? 0
      : Number((await readSql<{ n: unknown }>(db, Prisma.sql`SELECT COUNT(*) AS "n" ${q.source}`))[0]?.n ?? 0);
  const nodes = rows.slice(0, limit).map(({ matchCount: _, ...row }) => row as Security);
  return { nodes, more: rows.length > limit, found, outOf, facets, facetsOf, text: q.text };
}

/** The page from the master in memory (services/security-index.ts), when it is at the master's version; else undefined (SQL answers). */
async function fromIndex(
  db: Db,
  query: SecurityQuery,
  offset: number,
  limit: number,
  fallbacks: SearchFallbacks,
): Promise<SecurityQueryResult | undefined> {
  const current = await currentIndex(db, fallbacks);
  if (!current) return undefined;
  const { index, version } = current;
  // the version just read serves the vocabulary too: one read of it per search
  const text = query.text && (await textMatch(db, query.text.q, query.text.fields, version));
  const none = query.text && (!text || textMatchesNothing(text));
  const hits = none
    ? { ids: [], found: 0, facetsOf: noFacets }
    : searchIndex(index, { text, filter: query.filter, sort: query.sort }, offset + limit + 1);
  const rows = await securitiesInOrder(db, hits.ids.slice(offset, offset + limit + 1));
  return {
    nodes: rows.slice(0, limit),
    more: rows.length > limit,
    found: hits.found,
    outOf: index.ids.length,
    facets: hits.facetsOf(query.facets ?? []),
    facetsOf: async (fields) => hits.facetsOf(fields),
    text: text || undefined,
  };
}

/** The facets of `fields` over everything `query` matches, alone (GraphQL's `facets` on a keyset page). */
export async function securityQueryFacets(
  db: Db,
  query: SecurityQuery,
  fields: readonly string[],
  fallbacks?: SearchFallbacks,
): Promise<FacetCount[]> {
  checkQuery(query);
  if (!query.text && fromMemory(query, fallbacks)) {
    const current = await currentIndex(db, fallbacks);
    if (current) return searchIndex(current.index, { filter: query.filter }, 0).facetsOf(fields);
  }
  const q = await sourceOf(db, query);
  return q ? securityFacets(db, q.source, facetSpecs(fields)) : noFacets(fields);
}
