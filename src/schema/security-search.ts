// The search and screener arguments of `securities` (schema/security.ts): free text with typos, a
// typed filter over the master and the latest metrics, an order, facets and highlights. Each input
// becomes the filter syntax's own tree (search/syntax.ts), so GraphQL and REST's filter_by
// are checked by one set of rules and run as one SQL (services/security-query.ts).
import { builder } from '../builder.js';
import { noteStaleSearch, type Context } from '../context.js';
import type { KeysetArgs, Page } from '../services/paging.js';
import { checkFilterBounds, TEXT_MATCH, type Filter, type SortTerm } from '../search/syntax.js';
import { AppError } from '../errors.js';
import { PageConnection } from '../graphql/connection.js';
import { WILDCARD, type SearchType, type Security as SecurityRow } from '../services/security.js';
import { MAX_FACET_VALUES, type FacetCount } from '../search/facets.js';
import { securityQueryCursorPage, type SecurityQuery } from '../services/security-query.js';
import { MAX_NAME_TERMS, type TextField } from '../search/text.js';
import { listOf, type PagingInput } from './common.js';
import { textHighlights, type TextMatch } from '../search/rank.js';

export const TextFieldEnum = builder.enumType('SecurityTextField', {
  description: 'A field free-text search (`query`) matches words of.',
  values: {
    SYMBOL: { value: 'symbol', description: 'The ticker symbol, as one word.' },
    NAME: { value: 'name', description: 'The security name, word by word.' },
  } as const,
});

/** GraphQL's names of the facet fields, and the filter syntax's. */
const FACETS = {
  MIC_CODE: 'exchange_info.mic_code',
  EXCHANGE_COUNTRY: 'exchange_info.exchange_country',
  SECTOR: 'classification.gics',
  SECURITY_TYPE: 'classification.security_type',
  MARKET_SECTOR: 'classification.market_sector',
  ACTIVE: 'ticker_meta.active',
  MARKET_CAP: 'financials.market_cap',
} as const;

/** How many fields can be faceted: the most `facets` answers. */
export const FACET_FIELDS = Object.keys(FACETS).length;

export const FacetFieldEnum = builder.enumType('SecurityFacetField', {
  description: 'A field the matches can be counted by (REST `facet_by`).',
  values: Object.fromEntries(
    Object.entries(FACETS).map(([k, v]) => [
      k,
      { value: v, description: `\`${v}\`${v === FACETS.MARKET_CAP ? ': with min, max, sum and average' : ''}.` },
    ]),
  ) as unknown as Record<keyof typeof FACETS, { value: string }>,
});

/** GraphQL's names of the sortable fields (the latest metrics among them), and the syntax's. */
const ORDERS = {
  RELEVANCE: TEXT_MATCH,
  SYMBOL: 'symbol',
  NAME: 'name',
  MARKET_CAP: 'financials.market_cap',
  TOTAL_EMPLOYEES: 'company_info.total_employees',
  PE_RATIO: 'metrics.pe_ratio',
  PRICE_TO_BOOK: 'metrics.price_to_book',
  DEBT_TO_EQUITY: 'metrics.debt_to_equity',
  RETURN_ON_EQUITY: 'metrics.return_on_equity',
  RETURN_ON_ASSETS: 'metrics.return_on_assets',
  ROIC: 'metrics.roic',
  FCF_YIELD: 'metrics.fcf_yield',
} as const;

const OrderFieldEnum = builder.enumType('SecurityOrderField', {
  description: 'What `orderBy` sorts by; RELEVANCE is the rank of `query` (exact symbol, symbol prefix, fewer typos).',
  values: Object.fromEntries(
    Object.entries(ORDERS).map(([k, v]) => [k, { value: v, description: `\`${v}\`.` }]),
  ) as unknown as Record<keyof typeof ORDERS, { value: string }>,
});

const OrderDirection = builder.enumType('OrderDirection', {
  description: 'Direction of an order; missing values sort last either way.',
  values: {
    ASC: { value: 'asc', description: 'Smallest first.' },
    DESC: { value: 'desc', description: 'Largest first.' },
  } as const,
});

export const SecurityOrder = builder.inputType('SecurityOrder', {
  description: 'One key of `orderBy`.',
  fields: (t) => ({
    field: t.field({ type: OrderFieldEnum, required: true, description: 'What to sort by.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'ASC by default.' }),
  }),
});

const StringMatch = builder.inputType('StringMatch', {
  description: 'A text field equal to one value, to one of a list, or to none of a list (exact, case and all).',
  fields: (t) => ({
    eq: t.string({ description: 'Equal to this.' }),
    in: t.stringList({ description: 'One of these (at most 100).' }),
    notIn: t.stringList({ description: 'None of these (at most 100); a missing value matches neither.' }),
  }),
});

const FloatRange = builder.inputType('FloatRange', {
  description: 'Bounds on a number; a missing value matches no bound.',
  fields: (t) => ({
    gt: t.float({ description: 'Greater than.' }),
    gte: t.float({ description: 'At least.' }),
    lt: t.float({ description: 'Less than.' }),
    lte: t.float({ description: 'At most.' }),
  }),
});

const STRING_FILTERS = {
  micCode: 'exchange_info.mic_code',
  exchangeCountry: 'exchange_info.exchange_country',
  sector: 'classification.gics',
  securityType: 'classification.security_type',
  marketSector: 'classification.market_sector',
  state: 'company_info.state',
} as const;
const NUMBER_FILTERS = {
  marketCap: 'financials.market_cap',
  totalEmployees: 'company_info.total_employees',
  peRatio: 'metrics.pe_ratio',
  priceToBook: 'metrics.price_to_book',
  debtToEquity: 'metrics.debt_to_equity',
  returnOnEquity: 'metrics.return_on_equity',
  returnOnAssets: 'metrics.return_on_assets',
  roic: 'metrics.roic',
  fcfYield: 'metrics.fcf_yield',
} as const;

type StringMatchInput = { eq?: string | null; in?: string[] | null; notIn?: string[] | null };
type RangeInput = { gt?: number | null; gte?: number | null; lt?: number | null; lte?: number | null };
export type SecurityFilterInput = { [K in keyof typeof STRING_FILTERS]?: StringMatchInput | null } & {
  [K in keyof typeof NUMBER_FILTERS]?: RangeInput | null;
} & {
  active?: boolean | null;
  or?: SecurityFilterInput[] | null;
};

export const SecurityFilter = builder.inputRef<SecurityFilterInput>('SecurityFilter').implement({
  description:
    'Conditions every match must meet (all of them; `or` adds alternatives). Metrics are those of the latest enhanced fundamentals of the symbol (by period end; the annual record on a tie): a security without them matches no metric condition. REST `filter_by` says the same in Typesense syntax.',
  fields: (t) => ({
    ...(Object.fromEntries(
      Object.entries(STRING_FILTERS).map(([k, v]) => [k, t.field({ type: StringMatch, description: `\`${v}\`.` })]),
    ) as Record<keyof typeof STRING_FILTERS, never>),
    ...(Object.fromEntries(
      Object.entries(NUMBER_FILTERS).map(([k, v]) => [k, t.field({ type: FloatRange, description: `\`${v}\`.` })]),
    ) as Record<keyof typeof NUMBER_FILTERS, never>),
    active: t.boolean({ description: 'Whether the ticker is actively traded.' }),
    or: t.field({
      type: [SecurityFilter],
      description: 'At least one of these holds (besides the conditions beside it).',
    }),
  }),
});

const RANGE_OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The input as the filter syntax's tree, checked by its rules (search/syntax.ts); undefined for no condition. */
export function filterOf(input: SecurityFilterInput | null | undefined): Filter | undefined {
  const tree = treeOf(input);
  if (tree) checkFilterBounds(tree, 'argument "filter"');
  return tree;
}

function treeOf(input: SecurityFilterInput | null | undefined): Filter | undefined {
  if (!input) return undefined;
  const parts: Filter[] = [];
  for (const [key, field] of Object.entries(STRING_FILTERS)) {
    const m = input[key as keyof typeof STRING_FILTERS];
    if (!m) continue;
    if (m.eq !== null && m.eq !== undefined) parts.push({ op: '=', field, values: [m.eq], ranges: [] });
    if (m.in) parts.push({ op: '=', field, values: m.in, ranges: [] });
    if (m.notIn) parts.push({ op: '!=', field, values: m.notIn, ranges: [] });
  }
  for (const [key, field] of Object.entries(NUMBER_FILTERS)) {
    const r = input[key as keyof typeof NUMBER_FILTERS];
    for (const [bound, op] of Object.entries(RANGE_OPS)) {
      const value = r?.[bound as keyof RangeInput];
      if (value !== null && value !== undefined) parts.push({ op, field, value });
    }
  }
  if (input.active !== null && input.active !== undefined)
    parts.push({ op: '=', field: 'ticker_meta.active', values: [input.active], ranges: [] });
  // an alternative without a condition holds for every security, and so does the `or`
  const alternatives = (input.or ?? []).map(treeOf);
  if (alternatives.length && alternatives.every((alt) => alt !== undefined))
    parts.push({ op: 'or', of: alternatives as Filter[] });
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { op: 'and', of: parts };
}

export function sortOf(
  orderBy: readonly { field: string; direction?: 'asc' | 'desc' | null }[] | null | undefined,
): SortTerm[] | undefined {
  if (!orderBy?.length) return undefined;
  if (orderBy.length > 3)
    throw new AppError('BAD_REQUEST', `argument "orderBy" takes at most 3 keys; got ${orderBy.length}`);
  return orderBy.map((o) => ({ field: o.field, order: o.direction ?? 'asc' }));
}

/** The arguments of `securities` (schema/security.ts), and the query they ask for. */
export interface SearchArgs extends PagingInput {
  search?: string | null;
  searchType?: SearchType | null;
  query?: string | null;
  queryBy?: TextField[] | null;
  filter?: SecurityFilterInput | null;
  orderBy?: { field: string; direction?: 'asc' | 'desc' | null }[] | null;
}

/** Whether a search goes beyond one identifier prefix: then it is ranked or sorted, and paged by offset. */
/** The arguments that make a search ranked (isRanked), for the cost analysis (schema/security.ts). */
export const RANKING_ARGS = ['query', 'filter', 'orderBy'] as const satisfies readonly (keyof SearchArgs)[];
export const isRanked = (args: SearchArgs) => (args.query ?? null) !== null || !!args.filter || !!args.orderBy?.length;
export const queryOf = (args: SearchArgs): SecurityQuery => ({
  ...(args.search !== null && args.search !== undefined ? { search: searchOf(args) } : {}),
  ...(args.query !== null && args.query !== undefined
    ? { text: { q: args.query, fields: [...new Set<TextField>(args.queryBy ?? ['symbol', 'name'])] } }
    : {}),
  filter: filterOf(args.filter),
  sort: sortOf(args.orderBy),
});
// no search lists the whole master, as Typesense's `*` does
export const searchOf = (args: SearchArgs) => ({ query: args.search ?? WILDCARD, type: args.searchType ?? 'symbol' });

const FacetValue = builder.objectRef<FacetCount['counts'][number]>('FacetValueCount').implement({
  description: 'One value of a facet and how many matches have it.',
  fields: (t) => ({
    value: t.exposeString('value', { description: 'The value (a number or boolean as text).' }),
    count: t.exposeInt('count', { description: 'Matches with this value.' }),
  }),
});

const FacetStats = builder.objectRef<FacetCount['stats']>('FacetStats').implement({
  description: "A facet's statistics over the match set; min to avg only for numbers.",
  fields: (t) => ({
    totalValues: t.exposeInt('total_values', { description: 'Distinct values among the matches.' }),
    min: t.exposeFloat('min', { nullable: true, description: 'Smallest value.' }),
    max: t.exposeFloat('max', { nullable: true, description: 'Largest value.' }),
    sum: t.exposeFloat('sum', { nullable: true, description: 'Sum of the values.' }),
    avg: t.exposeFloat('avg', { nullable: true, description: 'Average value.' }),
  }),
});

export const SecurityFacet = builder.objectRef<FacetCount>('SecurityFacet').implement({
  description: 'Counts of one field over every match, not just the page (REST `facet_counts`).',
  fields: (t) => ({
    field: t.field({ type: FacetFieldEnum, description: 'The field counted.', resolve: (f) => f.field_name }),
    counts: t.field({
      type: [FacetValue],
      description: 'Its 10 most frequent values among the matches, most frequent first.',
      extensions: listOf(MAX_FACET_VALUES),
      resolve: (f) => f.counts,
    }),
    stats: t.field({
      type: FacetStats,
      description: 'How many distinct values; for numbers, min, max, sum and average.',
      resolve: (f) => f.stats,
    }),
  }),
});

export const SearchHighlight = builder
  .objectRef<{ field: TextField; snippet: string; matched_tokens: string[] }>('SearchHighlight')
  .implement({
    description: 'Where free text matched a hit (REST `highlights`).',
    fields: (t) => ({
      field: t.field({ type: TextFieldEnum, description: 'The field matched.', resolve: (h) => h.field }),
      snippet: t.exposeString('snippet', {
        description: 'The value, HTML-escaped, with <mark> around the matched words.',
      }),
      matchedTokens: t.exposeStringList('matched_tokens', {
        description: 'The matched words as they appear in the value.',
        extensions: listOf(MAX_NAME_TERMS),
      }),
    }),
  });

/** A search page of `securities` as the connection resolves it, with facets and highlights on demand. */
export class SecuritySearchConnection extends PageConnection<SecurityRow> {
  constructor(
    page: Page<SecurityRow>,
    readonly facetsOf: (fields: readonly string[]) => Promise<FacetCount[]>,
    readonly text: { match: TextMatch; fields: readonly TextField[] } | undefined,
  ) {
    super(page);
  }

  override get edges() {
    const text = this.text;
    return super.edges.map((edge) =>
      Object.assign(edge, { highlights: text ? textHighlights(edge.node, text.match, text.fields) : [] }),
    );
  }
}

export interface RankedArgs {
  query: SecurityQuery;
  page: KeysetArgs;
}

/** A page of a query with text, a filter, an order or facets (services/security-query.ts), by offset cursors. */
export async function rankedConnection(
  ctx: Context,
  { query, page: args }: RankedArgs,
): Promise<SecuritySearchConnection> {
  const { page, result: r } = await securityQueryCursorPage(ctx.db, query, args);
  noteStaleSearch(ctx, r.staleMs);
  return new SecuritySearchConnection(
    page,
    r.facetsOf,
    r.text && query.text ? { match: r.text, fields: query.text.fields } : undefined,
  );
}
