import { performance } from 'node:perf_hooks';
import { holdRows, holdUnits, noteStaleSearch, type Context } from '../context.js';
import { PAGE_SIZES, SEARCH_PASS_UNITS } from '../domain/limits.js';
import { AppError } from '../errors.js';
import { parseFacetBy, parseFilterBy, parseSortBy, SEARCH_SYNTAX_LIMITS } from '../search/syntax.js';
import {
  isWildcard,
  searchPrefixes,
  securitySearchAtPage,
  SEARCH_TYPES,
  type SearchType,
  type Security,
} from '../services/security.js';
import { SECURITY_SEARCH_FIELDS } from '../search/fields.js';
import { searchPasses, securityQueryPage, type SecurityQuery } from '../services/security-query.js';
import { MAX_QUERY_CHARACTERS, type TextField } from '../search/text.js';
import { textHighlights } from '../search/rank.js';
import { arr, bool, int, num, object, str } from './json-schema.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { recordSchema, recordShaper } from './record-table.js';
import { json, shapeRows, type Route } from './route.js';
import { SECURITY_FIELDS } from '../domain/records/security.js';
import { CIK_SEARCH_RULE } from '../domain/cik.js';

/** The legacy security document (each hit's `document`): flat dotted keys, each with its column of the security master (domain/records/security.ts); a value the store lacks is left out, except isin_history (nullable: null). */
export const SECURITY_DOCUMENT_SCHEMA = recordSchema(SECURITY_FIELDS);

export const securityDocument: (s: Security) => Record<string, unknown> = recordShaper(SECURITY_FIELDS);

/** `name`: free text over symbols and names with typos (search/rank.ts); the others match one identifier by prefix. */
const SEARCH_TYPE_NAMES = [...(Object.keys(SEARCH_TYPES) as SearchType[]), 'name'] as const;
const TEXT_FIELDS: readonly TextField[] = ['symbol', 'name'];

/** `search` (alias `q`), `search_type`, `page`, `per_page`: docs/rest.md#parameters-per-route. */
export const SECURITY_SEARCH_PARAMS = {
  search: {
    type: 'string',
    required: true,
    maxLength: MAX_QUERY_CHARACTERS,
    // the legacy API does not name it: `search` is what its clients send, `q` what Typesense's do
    aliases: ['q'],
    description: `The query: an identifier, or its beginning (prefix match, case-insensitive); \`*\` matches every security (ordered by symbol). ${CIK_SEARCH_RULE} Required (or its alias q); at most ${MAX_QUERY_CHARACTERS} characters.`,
  },
  search_type: {
    type: 'string',
    enum: SEARCH_TYPE_NAMES,
    required: true,
    description:
      'The field the query is matched against by prefix, or `name`: free text over symbols and names, with typos, ranked (docs/rest.md#security-search).',
  },
  query_by: {
    type: 'string',
    maxLength: 100,
    description:
      'With search_type=name: the fields the text matches, a comma list of `symbol` and `name` (default both).',
  },
  filter_by: {
    type: 'string',
    maxLength: SEARCH_SYNTAX_LIMITS.characters,
    description:
      'Typesense filter syntax over the master: `exchange_info.mic_code:=XNAS && financials.market_cap:>1000000000`.',
  },
  sort_by: {
    type: 'string',
    maxLength: 200,
    description: 'Up to 3 `field:asc|desc`, `_text_match` among them (with search_type=name).',
  },
  facet_by: {
    type: 'string',
    maxLength: 300,
    description: 'A comma list of fields to count the matches by (facet_counts).',
  },
  page: {
    type: 'integer',
    minimum: 1,
    default: 1,
    description: 'Page number, from 1. A page past the end has no hits.',
  },
  per_page: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE_SIZES.securities.max,
    default: PAGE_SIZES.securities.default,
    description: `Hits per page, 1 to ${PAGE_SIZES.securities.max}.`,
  },
} as const satisfies ParamSpecs;

// ------------------------------------------------------------------ highlights (Typesense style)

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The matched field of a hit: its value starts with one of the query's beginnings
 * (searchPrefixes), so the mark covers that one. The snippet is HTML-escaped outside the `<mark>`
 * tags; matched_tokens are raw.
 */
function highlightOf(s: Security, type: SearchType, prefixes: readonly string[]) {
  const value = String(s[SEARCH_TYPES[type]] ?? '');
  const token = prefixes.find((p) => value.startsWith(p)) ?? '';
  const snippet = `<mark>${escapeHtml(token)}</mark>${escapeHtml(value.slice(token.length))}`;
  return {
    highlight: { [type]: { snippet, matched_tokens: [token] } },
    highlights: [{ field: type, snippet, matched_tokens: [token] }],
  };
}

const HIGHLIGHT_ENTRY = object({
  snippet: str('The field value with the matched part in <mark> tags (HTML-escaped).'),
  matched_tokens: arr(str(), 'The matched parts of the value.'),
});

export const SECURITY_SEARCH_RESPONSE = object({
  data: object({
    facet_counts: arr(
      object({
        field_name: str('The field counted (a facet_by field).'),
        counts: arr(
          object({
            value: str('A value (numbers and booleans as text).'),
            count: int('Matches with it.'),
            highlighted: str('The value.'),
          }),
          'Its 10 most frequent values among all matches, most frequent first.',
        ),
        sampled: bool('Always false: every match is counted.'),
        stats: object(
          {
            total_values: int('Distinct values among the matches.'),
            min: num('Smallest value (numeric fields).'),
            max: num('Largest value.'),
            sum: num('Sum of the values.'),
            avg: num('Average value.'),
          },
          ['total_values'],
        ),
      }),
      'One per facet_by field, in its order; empty without facet_by.',
    ),
    found: int('How many securities match.'),
    hits: arr(
      object({
        document: SECURITY_DOCUMENT_SCHEMA,
        highlight: {
          type: 'object',
          additionalProperties: HIGHLIGHT_ENTRY,
          description:
            'The matched fields (the search_type; symbol and name for search_type=name), keyed by name; empty for q=*.',
        },
        highlights: arr(
          object({
            field: str('The matched field (the search_type; symbol or name for search_type=name).'),
            snippet: str('As in highlight.'),
            matched_tokens: arr(str()),
          }),
        ),
      }),
    ),
    out_of: int('How many securities the collection holds.'),
    page: int('This page number.'),
    request_params: object({
      collection_name: { const: 'securities' },
      per_page: int('Hits per page.'),
      q: str('The query as given.'),
    }),
    search_cutoff: bool('Always false: the search is never cut short.'),
    search_time_ms: int('How long the search took, in milliseconds.'),
  }),
  message: str('What was returned.'),
  error: { type: 'null', description: 'Null on success; the failure message on an error.' },
});

// ------------------------------------------------------------------ the route

/** The search error body: the usual one plus the legacy `data: null` and `error: <message>` (docs/rest.md). */
export const SEARCH_ERROR_BODY = object({
  status: { const: 'ERROR' },
  code: str('The error code, e.g. BAD_REQUEST.'),
  message: str('What was wrong, naming the parameter and the value.'),
  request_id: str('Also sent as the X-Request-Id header.'),
  data: { type: 'null' },
  error: str('The same message (the failure message, or null on success).'),
});

function searchError(ctx: Context, e: AppError): Response {
  return json(
    { status: 'ERROR', code: e.code, message: e.message, request_id: ctx.requestId, data: null, error: e.message },
    e.status,
    e.headers,
  );
}

type SearchParams = ReturnType<typeof parseQuery<typeof SECURITY_SEARCH_PARAMS>>;

/** The hits of a search: an identifier prefix alone by its index (services/security.ts), anything more through securityQueryPage. */
async function searchHits(ctx: Context, q: string, p: SearchParams) {
  const text = p.search_type === 'name';
  if (p.query_by !== undefined && !text)
    throw new AppError(
      'BAD_REQUEST',
      `parameter query_by applies to search_type=name; got search_type=${p.search_type}`,
    );
  const filter = p.filter_by === undefined ? undefined : parseFilterBy(p.filter_by, SECURITY_SEARCH_FIELDS);
  const sort = p.sort_by === undefined ? undefined : parseSortBy(p.sort_by, SECURITY_SEARCH_FIELDS);
  const facetFields = p.facet_by === undefined ? [] : parseFacetBy(p.facet_by, SECURITY_SEARCH_FIELDS);
  if (!text && !filter && !sort && facetFields.length === 0) {
    const type = p.search_type as SearchType;
    const {
      nodes,
      totalCount: found,
      outOf,
      prefixes,
    } = await securitySearchAtPage(ctx.db, { query: q, type }, { page: p.page, pageSize: p.per_page });
    // a wildcard matches no text, so its hits highlight nothing (as Typesense's)
    const hits = shapeRows(ctx, nodes, (s) => ({
      document: securityDocument(s),
      ...(isWildcard(q) ? { highlight: {}, highlights: [] } : highlightOf(s, type, prefixes)),
    }));
    return { hits, found, outOf, facets: [] };
  }
  const fields = p.query_by === undefined ? TEXT_FIELDS : parseQueryBy(p.query_by);
  const query: SecurityQuery = text
    ? {
        ...(isWildcard(q) ? { search: { query: q, type: 'symbol' as const } } : { text: { q, fields } }),
        filter,
        sort,
        facets: facetFields,
      }
    : { search: { query: q, type: p.search_type as SearchType }, filter, sort, facets: facetFields };
  await holdUnits(ctx, searchPasses(query) * SEARCH_PASS_UNITS);
  const r = await securityQueryPage(ctx.db, query, { offset: (p.page - 1) * p.per_page, limit: p.per_page });
  noteStaleSearch(ctx, r.staleMs);
  const hits = shapeRows(ctx, r.nodes, (s) => {
    if (!r.text)
      return {
        document: securityDocument(s),
        ...(isWildcard(q) || text
          ? { highlight: {}, highlights: [] }
          : highlightOf(s, p.search_type as SearchType, searchPrefixes(p.search_type as SearchType, q))),
      };
    const highlights = textHighlights(s, r.text, fields);
    return {
      document: securityDocument(s),
      highlight: Object.fromEntries(highlights.map(({ field, ...h }) => [field, h])),
      highlights,
    };
  });
  return { hits, found: r.found, outOf: r.outOf, facets: r.facets };
}

/** query_by: a comma list of `symbol` and `name`, each at most once. */
function parseQueryBy(value: string): TextField[] {
  const names = value.split(',').map((n) => n.trim());
  const bad = names.find((n) => !(TEXT_FIELDS as readonly string[]).includes(n));
  if (bad !== undefined || new Set(names).size !== names.length) {
    throw new AppError(
      'BAD_REQUEST',
      `parameter query_by must be a comma list of ${TEXT_FIELDS.join(', ')}, each once; got ${JSON.stringify(value)}`,
    );
  }
  return names as TextField[];
}

async function search(ctx: Context, url: URL): Promise<Response> {
  const started = performance.now();
  const p = parseQuery(SECURITY_SEARCH_PARAMS, url.searchParams);
  const q = p.search;
  if (q.trim() === '')
    throw new AppError('BAD_REQUEST', `parameter search must not be blank; got ${JSON.stringify(q)}`);
  await holdRows(ctx, 'Security', p.per_page);
  const { hits, found, outOf, facets } = await searchHits(ctx, q, p);
  return json({
    data: {
      facet_counts: facets,
      found,
      hits,
      out_of: outOf,
      page: p.page,
      request_params: { collection_name: 'securities', per_page: p.per_page, q },
      search_cutoff: false,
      search_time_ms: Math.round(performance.now() - started),
    },
    message: `${found} of ${outOf} securities match`,
    error: null,
  });
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/search/api/v1/securities',
    access: 'securities',
    async handle(ctx, url) {
      try {
        return await search(ctx, url);
      } catch (e) {
        if (e instanceof AppError) return searchError(ctx, e);
        throw e;
      }
    },
    doc: {
      summary: 'Security master search',
      description:
        "Securities whose search_type field starts with the query, ordered by that field then id, in numbered pages (Typesense style); `q=*` lists every security, by symbol then id. Errors of this route's own parameters carry `data: null` and `error` (the message) besides the usual error fields; authentication errors (401/403) have the common error body.",
      query: SECURITY_SEARCH_PARAMS,
      response: SECURITY_SEARCH_RESPONSE,
      badRequestBody: SEARCH_ERROR_BODY,
      errors: {
        '503':
          'The database is unavailable; a search by text, filter, sort or facets over a master larger than the search engine holds (docs/operations.md#search-engine); or the search ran out of its time (TIMEOUT, docs/operations.md#deadlines), with Retry-After.',
      },
    },
  },
];
