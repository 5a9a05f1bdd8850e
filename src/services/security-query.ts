import type { Db } from '../db/client.js';
import {
  decodeCursor,
  encodeCursor,
  isBackward,
  pageSize,
  type KeysetArgs,
  type Ordering,
  type Page,
} from '../db/keyset.js';
import type { EngineQuery, SearchEngine } from '../search/engine.js';
import { type FacetCount, noFacets } from '../search/facets.js';
import { type TextMatch, textMatchesNothing } from '../search/rank.js';
import { TEXT_MATCH, type Filter, type SortTerm } from '../search/syntax.js';
import { checkQueryLength, type TextField } from '../search/text.js';
import { AppError } from '../errors.js';
import { slicer } from '../runtime/slices.js';
import type { Security } from '../../generated/prisma/client.js';
import { engineFor, securitiesInOrder } from './security-index.js';
import { isWildcard, searchPrefixes, SEARCH_TYPES, type SecuritySearch } from './security.js';

/**
 * A search of the master beyond one identifier prefix: free text with typos over names and symbols,
 * Typesense's filters and sort, facets over the whole match set (docs/rest.md#security-search,
 * docs/graphql.md#search-and-screener), all answered by the search engine (search/engine.ts). Every
 * part is optional; all given parts must hold.
 */
export interface SecurityQuery {
  /** An identifier prefix of one search type, or the wildcard (services/security.ts). */
  search?: SecuritySearch | undefined;
  /** Free text: each word of `q` must match a word of one of `fields`, with typos by length; the last as a prefix. */
  text?: { q: string; fields: readonly TextField[] } | undefined;
  filter?: Filter | undefined;
  /** At most three fields; `_text_match` is the text's rank. Default: the text's rank, else the prefix column (symbol for the wildcard), then id. */
  sort?: readonly SortTerm[] | undefined;
  /** Facet fields (`facet: true` in SECURITY_SEARCH_FIELDS). */
  facets?: readonly string[] | undefined;
}

export interface SecurityQueryResult {
  /** The position of the page's first hit among all. */
  offset: number;
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
  /** How far behind the master the answer may be, in ms: 0 but while it is read again whole (services/security-index.ts). */
  staleMs: number;
}

/**
 * The engine's passes over the master a query makes: one to match and order (text, a filter or a
 * sort), one per facet. The work it is charged is this many SEARCH_PASS_UNITS (domain/limits.ts);
 * GraphQL declares the same on `securities` and `facets` (schema/security.ts).
 */
export const searchPasses = (query: SecurityQuery): number =>
  (query.text || query.filter || query.sort?.length ? 1 : 0) + (query.facets?.length ?? 0);

/** Hits a query may page past, as a bound on the work of a deep page: narrow the query to see further. */
export const MAX_SEARCH_OFFSET = 10_000;

/** The pauses of the engine's loops: slices of the event loop, and `db`'s deadline checked at each read of the clock (a request's Db carries its own). */
const searchPause = (db: Db) => slicer(undefined, () => db.deadline.check('search'));
const facetsPause = (db: Db) => slicer(undefined, () => db.deadline.check('facets'));

/** The rule of a query's parts beyond each part's own: relevance needs text. */
function checkQuery(query: SecurityQuery): void {
  if (!query.text && query.sort?.some((s) => s.field === TEXT_MATCH))
    throw new AppError('BAD_REQUEST', `sort by ${TEXT_MATCH} (relevance) needs a text query`);
}

/** What the engine is asked: the prefix and the text match; undefined when nothing can match (text without a word that matches). */
function engineQuery(engine: SearchEngine, query: SecurityQuery): EngineQuery | undefined {
  let prefix: EngineQuery['prefix'];
  if (query.search) {
    checkQueryLength(query.search.query);
    if (!isWildcard(query.search.query)) {
      prefix = {
        column: SEARCH_TYPES[query.search.type],
        prefixes: searchPrefixes(query.search.type, query.search.query),
      };
    }
  }
  const text = query.text && engine.match(query.text.q, query.text.fields);
  if (query.text && (!text || textMatchesNothing(text))) return undefined;
  return { prefix, text, filter: query.filter, sort: query.sort };
}

/** A ranked or sorted page: its cursor is the position after a hit, since a rank is no key to seek to. */
const RANKED: Ordering<{ offset: number }> = {
  tag: 'securities.ranked',
  columns: [{ column: 'offset', type: 'int', of: (r) => r.offset }],
};

/** The position a ranked cursor holds: the number of hits up to and including its own. */
function positionOf(cursor: string, argument: 'after' | 'before'): number {
  const position = Number(decodeCursor(RANKED, 'asc', cursor, argument)[0]);
  if (position < 0) throw new AppError('BAD_REQUEST', `${argument}: not a cursor of this list`);
  return position;
}

/**
 * `securityQueryPage` by cursor, as a connection pages (Relay's `first`/`after`, `last`/`before`,
 * with the keyset pages' meaning, db/keyset.ts): the hits between the cursors, the first or the
 * last of them, and the result they come from. Hit `i` has the cursor `i + 1`.
 */
export async function securityQueryCursorPage(
  db: Db,
  query: SecurityQuery,
  args: KeysetArgs,
): Promise<{ page: Page<Security>; result: SecurityQueryResult }> {
  const start = args.after ? positionOf(args.after, 'after') : 0;
  // the hits before the one whose cursor `before` is
  const end = args.before ? Math.max(start, positionOf(args.before, 'before') - 1) : undefined;
  const size = pageSize(args);
  const backward = isBackward(args);
  const result = backward
    ? await securityQueryPage(db, query, { offset: start, limit: size, until: end ?? 'end' })
    : await securityQueryPage(db, query, {
        offset: start,
        limit: end === undefined ? size : Math.min(size, end - start),
      });
  const offset = result.offset;
  const page: Page<Security> = {
    nodes: result.nodes,
    hasNextPage: !backward && result.more && (end === undefined || start + size < end),
    hasPreviousPage: backward && result.more,
    cursorAt: (i) => encodeCursor(RANKED, 'asc', { offset: offset + i + 1 }),
    totalCount: async () => result.found,
  };
  return { page, result };
}

const tooDeep = (offset: number) =>
  new AppError(
    'BAD_REQUEST',
    `a search pages at most ${MAX_SEARCH_OFFSET} hits deep; got offset ${offset}: narrow the query or filter`,
  );

/**
 * Page `offset`..`offset + limit` of the securities `query` matches, in its order, with exact counts
 * and the facets asked for; with `until`, the last `limit` hits from `offset` up to hit `until` (or
 * the end), whose `more` says hits between `offset` and the page were left out. Ranked and sorted
 * results page by offset (a rank is no key to seek to), at most MAX_SEARCH_OFFSET deep.
 */
export async function securityQueryPage(
  db: Db,
  query: SecurityQuery,
  { offset, limit, until }: { offset: number; limit: number; until?: number | 'end' },
): Promise<SecurityQueryResult> {
  if (offset > MAX_SEARCH_OFFSET) throw tooDeep(offset);
  checkQuery(query);
  const { engine, staleMs } = await engineFor(db, 'a search by text, filter, sort or facets');
  const q = engineQuery(engine, query);
  const outOf = engine.size;
  // from the end: every hit up to the deepest page there is (further, the page is refused below)
  const deepest = MAX_SEARCH_OFFSET + limit;
  const wanted =
    until === undefined ? offset + limit + 1 : until === 'end' ? deepest + 1 : Math.min(until, deepest + 1);
  const hits = q
    ? await engine.search(q, wanted, searchPause(db))
    : { ids: [], found: 0, facetsOf: async (fields: readonly string[]) => noFacets(fields) };
  const stop = until === undefined ? offset + limit + 1 : Math.min(hits.found, wanted);
  const from = until === undefined ? offset : Math.max(offset, stop - limit);
  if (from > MAX_SEARCH_OFFSET) throw tooDeep(from);
  const rows = await securitiesInOrder(db, hits.ids.slice(from, stop));
  return {
    offset: from,
    nodes: rows.slice(0, limit),
    more: until === undefined ? rows.length > limit : from > offset,
    found: hits.found,
    outOf,
    facets: await hits.facetsOf(query.facets ?? [], facetsPause(db)),
    facetsOf: (fields) => hits.facetsOf(fields, facetsPause(db)),
    text: q?.text,
    staleMs,
  };
}

/** The facets of `fields` over everything `query` matches, alone (GraphQL's `facets` on a keyset page). */
export async function securityQueryFacets(
  db: Db,
  query: SecurityQuery,
  fields: readonly string[],
): Promise<FacetCount[]> {
  checkQuery(query);
  const { engine } = await engineFor(db, 'facets');
  const q = engineQuery(engine, query);
  return q ? (await engine.search(q, 0, searchPause(db))).facetsOf(fields, facetsPause(db)) : noFacets(fields);
}
