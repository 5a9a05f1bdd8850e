import { performance } from 'node:perf_hooks';
import { holdRows, type Context } from '../context.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { AppError } from '../errors.js';
import { parseFacetBy, parseFilterBy, parseSortBy, SEARCH_SYNTAX_LIMITS } from '../domain/search-syntax.js';
import {
  isWildcard,
  normalizeQuery,
  securitySearchAtPage,
  SEARCH_TYPES,
  type SearchType,
  type Security,
} from '../services/security.js';
import { SECURITY_SEARCH_FIELDS } from '../services/security-fields.js';
import { securityQueryPage, type SecurityQuery } from '../services/security-query.js';
import { MAX_QUERY_CHARACTERS, type TextField } from '../domain/search-text.js';
import { textHighlights } from '../services/security-text.js';
import { arr, bool, date, int, nullable, num, object, str, timestamp, type JsonSchema } from './json-schema.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { json, type Route } from './route.js';

/** `name`: free text over symbols and names with typos (services/security-text.ts); the others match one identifier by prefix. */
const SEARCH_TYPE_NAMES = [...(Object.keys(SEARCH_TYPES) as SearchType[]), 'name'] as const;
const TEXT_FIELDS: readonly TextField[] = ['symbol', 'name'];

/** `search` (alias `q`), `search_type`, `page`, `per_page`: docs/rest.md#parameters-per-route. */
export const SECURITY_SEARCH_PARAMS = {
  search: {
    type: 'string',
    maxLength: MAX_QUERY_CHARACTERS,
    description: `The query: an identifier, or its beginning (prefix match, case-insensitive; a CIK matches with or without leading zeros); \`*\` matches every security (ordered by symbol). Required (or its alias q); at most ${MAX_QUERY_CHARACTERS} characters.`,
  },
  q: { type: 'string', maxLength: MAX_QUERY_CHARACTERS, description: 'Alias of search (give one of the two).' },
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

// ------------------------------------------------------------------ the document

type Kind = 'string' | 'date' | 'timestamp' | 'integer' | 'bigint' | 'boolean';

/** Every key of the legacy security document with its column; `required` ones are never null in the store. */
const DOCUMENT_FIELDS: readonly {
  key: string;
  column: keyof Security;
  kind: Kind;
  description: string;
  required?: true;
}[] = [
  { key: 'classification.gics', column: 'gics', kind: 'string', description: 'GICS sector name.' },
  { key: 'classification.gics_code', column: 'gicsCode', kind: 'string', description: 'GICS code.' },
  {
    key: 'classification.market_sector',
    column: 'marketSector',
    kind: 'string',
    description: 'Market sector, e.g. Equity.',
  },
  {
    key: 'classification.security_description',
    column: 'securityDescription',
    kind: 'string',
    description: 'Short description of the instrument.',
  },
  {
    key: 'classification.security_type',
    column: 'securityType',
    kind: 'string',
    description: 'Security type, e.g. Common Stock.',
  },
  {
    key: 'classification.security_type2',
    column: 'securityType2',
    kind: 'string',
    description: 'Secondary security type.',
  },
  {
    key: 'classification.sic_code',
    column: 'sicCode',
    kind: 'string',
    description: 'Standard Industrial Classification code.',
  },
  {
    key: 'classification.sic_description',
    column: 'sicDescription',
    kind: 'string',
    description: 'Description of the SIC code.',
  },
  { key: 'company_info.address.address1', column: 'address1', kind: 'string', description: 'Street address.' },
  { key: 'company_info.address.city', column: 'city', kind: 'string', description: 'City.' },
  { key: 'company_info.address.postal_code', column: 'postalCode', kind: 'string', description: 'Postal code.' },
  { key: 'company_info.address.state', column: 'state', kind: 'string', description: 'State or region.' },
  { key: 'company_info.description', column: 'description', kind: 'string', description: 'What the company does.' },
  { key: 'company_info.homepage_url', column: 'homepageUrl', kind: 'string', description: 'Company web site.' },
  { key: 'company_info.list_date', column: 'listDate', kind: 'date', description: 'Date of first listing.' },
  { key: 'company_info.phone_number', column: 'phoneNumber', kind: 'string', description: 'Main telephone number.' },
  {
    key: 'company_info.total_employees',
    column: 'totalEmployees',
    kind: 'integer',
    description: 'Number of employees.',
  },
  {
    key: 'exchange_info.exchange_country',
    column: 'exchangeCountry',
    kind: 'string',
    description: 'Country of the exchange.',
  },
  { key: 'exchange_info.exchange_name', column: 'exchangeName', kind: 'string', description: 'Exchange name.' },
  {
    key: 'exchange_info.mic_code',
    column: 'micCode',
    kind: 'string',
    required: true,
    description: 'ISO 10383 market identifier code (may be empty).',
  },
  {
    key: 'exchange_info.vendory_exchange_code',
    column: 'vendoryExchangeCode',
    kind: 'string',
    description: "The exchange's code at data vendor Y.",
  },
  {
    key: 'exchange_info.vendory_ticker',
    column: 'vendoryTicker',
    kind: 'string',
    description: 'The ticker at data vendor Y.',
  },
  {
    key: 'exchange_info.vendorx_exchange_code',
    column: 'vendorxExchangeCode',
    kind: 'string',
    description: "The exchange's code at data vendor X.",
  },
  {
    key: 'exchange_info.vendorx_exchange_name',
    column: 'vendorxExchangeName',
    kind: 'string',
    description: "The exchange's name at data vendor X.",
  },
  { key: 'financials.market_cap', column: 'marketCap', kind: 'bigint', description: 'Market capitalization.' },
  { key: 'financials.round_lot', column: 'roundLot', kind: 'integer', description: 'Round-lot size in shares.' },
  {
    key: 'financials.share_class_shares_outstanding',
    column: 'shareClassSharesOutstanding',
    kind: 'bigint',
    description: 'Shares outstanding of this share class.',
  },
  {
    key: 'financials.weighted_shares_outstanding',
    column: 'weightedSharesOutstanding',
    kind: 'bigint',
    description: 'Weighted shares outstanding.',
  },
  {
    key: 'identifiers.cik',
    column: 'cik',
    kind: 'string',
    description: 'SEC Central Index Key, zero-padded to 10 digits.',
  },
  { key: 'identifiers.cusip', column: 'cusip', kind: 'string', description: 'CUSIP.' },
  { key: 'identifiers.figi', column: 'figi', kind: 'string', required: true, description: 'FIGI of this listing.' },
  { key: 'identifiers.figi_composite', column: 'figiComposite', kind: 'string', description: 'Composite FIGI.' },
  { key: 'identifiers.figi_share_class', column: 'figiShareClass', kind: 'string', description: 'Share-class FIGI.' },
  { key: 'identifiers.isin', column: 'isin', kind: 'string', description: 'ISIN.' },
  { key: 'identifiers.opol', column: 'opol', kind: 'string', description: 'Operating MIC (OPOL).' },
  { key: 'identifiers.permid', column: 'permid', kind: 'string', description: 'PermID.' },
  { key: 'identifiers.ric', column: 'ric', kind: 'string', description: 'Reuters Instrument Code.' },
  {
    key: 'ticker_meta.active',
    column: 'active',
    kind: 'boolean',
    required: true,
    description: 'Whether the ticker is actively traded.',
  },
  { key: 'ticker_meta.currency_name', column: 'currencyName', kind: 'string', description: 'Trading currency.' },
  {
    key: 'ticker_meta.last_updated_utc',
    column: 'lastUpdatedUtc',
    kind: 'timestamp',
    description: 'When the ticker data last changed.',
  },
  { key: 'ticker_meta.locale', column: 'locale', kind: 'string', description: 'Locale, e.g. us.' },
  { key: 'ticker_meta.market', column: 'market', kind: 'string', description: 'Market, e.g. stocks.' },
  {
    key: 'ticker_meta.primary_exchange',
    column: 'primaryExchange',
    kind: 'string',
    description: 'Primary exchange MIC.',
  },
  { key: 'ticker_meta.ticker', column: 'ticker', kind: 'string', description: 'Ticker.' },
  { key: 'ticker_meta.ticker_root', column: 'tickerRoot', kind: 'string', description: 'Ticker root.' },
  { key: 'ticker_meta.type', column: 'type', kind: 'string', description: 'Ticker type code, e.g. CS.' },
  { key: 'id', column: 'id', kind: 'string', required: true, description: 'The record id, `<figi>_<mic>`.' },
  { key: 'name', column: 'name', kind: 'string', required: true, description: 'Security name.' },
  { key: 'status', column: 'status', kind: 'string', required: true, description: 'Record status, e.g. ACTIVE.' },
  { key: 'symbol', column: 'symbol', kind: 'string', required: true, description: 'Ticker symbol.' },
  {
    key: 'created_at',
    column: 'createdAt',
    kind: 'timestamp',
    required: true,
    description: 'When the record was created.',
  },
  {
    key: 'updated_at',
    column: 'updatedAt',
    kind: 'timestamp',
    required: true,
    description: 'When the record last changed.',
  },
];

function fieldSchema(kind: Kind, description: string): JsonSchema {
  switch (kind) {
    case 'string':
      return str(description);
    case 'date':
      return date(description);
    case 'timestamp':
      return timestamp(description);
    case 'integer':
    case 'bigint':
      return int(description);
    case 'boolean':
      return bool(description);
  }
}

/** The legacy security document: flat dotted keys; a value the store lacks is left out, except isin_history (nullable: null). */
export const SECURITY_DOCUMENT_SCHEMA = object(
  {
    ...Object.fromEntries(DOCUMENT_FIELDS.map((f) => [f.key, fieldSchema(f.kind, f.description)])),
    isin_history: {
      ...nullable(arr(str())),
      description: 'Earlier ISINs of the security; null when there are none on record.',
    },
  },
  [...DOCUMENT_FIELDS.filter((f) => f.required).map((f) => f.key), 'isin_history'],
);

export function securityDocument(s: Security): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const f of DOCUMENT_FIELDS) {
    const v = s[f.column];
    if (v === null || v === undefined) continue;
    doc[f.key] = v instanceof Date ? v.toISOString() : v;
  }
  doc.isin_history = s.isinHistory ?? null;
  return doc;
}

// ------------------------------------------------------------------ highlights (Typesense style)

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The matched field of a hit: its value starts with the (normalized) query, so the mark covers
 * that prefix. The snippet is HTML-escaped outside the `<mark>` tags; matched_tokens are raw.
 */
function highlightOf(s: Security, type: SearchType, matched: string) {
  const value = String(s[SEARCH_TYPES[type]] ?? '');
  const token = value.slice(0, matched.length);
  const snippet = `<mark>${escapeHtml(token)}</mark>${escapeHtml(value.slice(matched.length))}`;
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
      matched,
    } = await securitySearchAtPage(ctx.db, { query: q, type }, { page: p.page, pageSize: p.per_page });
    // a wildcard matches no text, so its hits highlight nothing (as Typesense's)
    const hits = nodes.map((s) => ({
      document: securityDocument(s),
      ...(isWildcard(q) ? { highlight: {}, highlights: [] } : highlightOf(s, type, matched)),
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
  const r = await securityQueryPage(
    ctx.db,
    query,
    { offset: (p.page - 1) * p.per_page, limit: p.per_page },
    { fallbacks: ctx.fallbacks },
  );
  const hits = r.nodes.map((s) => {
    if (!r.text)
      return {
        document: securityDocument(s),
        ...(isWildcard(q) || text
          ? { highlight: {}, highlights: [] }
          : highlightOf(s, p.search_type as SearchType, normalizeQuery(p.search_type as SearchType, q))),
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
  const query = new URLSearchParams(url.searchParams);
  query.delete('apikey');
  const p = parseQuery(SECURITY_SEARCH_PARAMS, query);
  if (p.search !== undefined && p.q !== undefined)
    throw new AppError('BAD_REQUEST', 'parameter search and its alias q are both given; give one');
  const q = p.search ?? p.q;
  if (q === undefined) throw new AppError('BAD_REQUEST', 'parameter search (or its alias q) is required');
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

export const securityRoutes: Route[] = [
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
    },
  },
];
