import { exposeRecordFields } from './record-fields.js';
import { SECURITY_FIELDS } from '../domain/records/security.js';
import { CIK_SEARCH_RULE } from '../domain/cik.js';
import { builder } from '../builder.js';
import { PAGE_SIZES, SEARCH_PASS_UNITS } from '../domain/limits.js';
import type { WorkExtension } from '../graphql/cost.js';
import { fromMap } from '../graphql/loaders.js';
import { root, rootOne, sameRow } from '../graphql/plan/declare.js';
import type { Context } from '../context.js';
import { checkEntitled } from '../domain/entitlements.js';
import {
  findSecurity,
  firstListingLevel,
  listingsBySymbol,
  securityReference,
  securityLookup,
  securitySearchLevel,
  securitySearchPage,
  securitiesByFigi,
  securitiesBySymbol,
  SEARCH_TYPES,
  type SearchType,
  type Security as SecurityRow,
} from '../services/security.js';
import { keysetArgs, listOf, pagingArgs, SYMBOL_DESCRIPTION, type PageSize } from './common.js';
import { MAX_SYMBOLS, parseSymbolList } from '../domain/symbols.js';
import { securityQueryFacets } from '../services/security-query.js';
import {
  FACET_FIELDS,
  FacetFieldEnum,
  isRanked,
  RANKING_ARGS,
  queryOf,
  rankedConnection,
  SearchHighlight,
  searchOf,
  SecurityFacet,
  SecurityFilter,
  SecurityOrder,
  SecuritySearchConnection,
  TextFieldEnum,
  type SearchArgs,
} from './security-search.js';

export const SECURITY_PAGE: PageSize = PAGE_SIZES.securities;

/** Loaders other resource modules use to link to securities. */
export function securityBySymbol(ctx: Context, symbol: string): Promise<SecurityRow | null> {
  return ctx.loaders
    .get(
      'securityBySymbol',
      fromMap((keys: readonly string[]) => securitiesBySymbol(ctx.db, keys), null as SecurityRow | null),
    )
    .load(symbol);
}

export function securityByFigi(ctx: Context, figi: string): Promise<SecurityRow | null> {
  return ctx.loaders
    .get(
      'securityByFigi',
      fromMap((keys: readonly string[]) => securitiesByFigi(ctx.db, keys), null as SecurityRow | null),
    )
    .load(figi);
}

const Classification = builder.objectRef<SecurityRow>('SecurityClassification').implement({
  description: 'Industry and instrument classification (REST keys `classification.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'classification' }),
  }),
});

const Address = builder.objectRef<SecurityRow>('Address').implement({
  description: 'A postal address (REST keys `company_info.address.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'company_info.address' }),
  }),
});

const CompanyInfo = builder.objectRef<SecurityRow>('CompanyInfo').implement({
  description: 'About the issuing company (REST keys `company_info.*`).',
  fields: (t) => ({
    address: t.field({ type: Address, description: 'Head-office address.', ...sameRow<SecurityRow>() }),
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'company_info' }),
  }),
});

const ExchangeInfo = builder.objectRef<SecurityRow>('ExchangeInfo').implement({
  description: 'Where the security is listed (REST keys `exchange_info.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'exchange_info' }),
  }),
});

const Financials = builder.objectRef<SecurityRow>('SecurityFinancials').implement({
  description: 'Size figures of the security (REST keys `financials.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'financials' }),
  }),
});

const Identifiers = builder.objectRef<SecurityRow>('SecurityIdentifiers').implement({
  description: 'Identifiers of the security (REST keys `identifiers.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'identifiers' }),
  }),
});

const TickerMeta = builder.objectRef<SecurityRow>('TickerMeta').implement({
  description: 'Ticker reference data (REST keys `ticker_meta.*`).',
  fields: (t) => ({
    ...exposeRecordFields(t, SECURITY_FIELDS, { under: 'ticker_meta' }),
  }),
});

export const Security = builder.prismaNode('Security', {
  description:
    'A security master record: one listing of a security (figi + MIC), with everything linked to its symbol.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  fields: (t) => ({
    securityId: t.exposeString('id', { description: 'The record id, `<figi>_<mic>` (REST field `id`).' }),
    ...exposeRecordFields(t, SECURITY_FIELDS),
    classification: t.field({
      type: Classification,
      description: 'Industry and instrument classification.',
      ...sameRow<SecurityRow>(),
    }),
    companyInfo: t.field({ type: CompanyInfo, description: 'About the issuing company.', ...sameRow<SecurityRow>() }),
    exchangeInfo: t.field({ type: ExchangeInfo, description: 'Where it is listed.', ...sameRow<SecurityRow>() }),
    financials: t.field({
      type: Financials,
      description: 'Market capitalization and share counts.',
      ...sameRow<SecurityRow>(),
    }),
    identifiers: t.field({
      type: Identifiers,
      description: 'FIGI, ISIN, CUSIP, CIK and other identifiers.',
      ...sameRow<SecurityRow>(),
    }),
    tickerMeta: t.field({ type: TickerMeta, description: 'Ticker reference data.', ...sameRow<SecurityRow>() }),
  }),
});

/** The listing of `symbol` on the exchange `micCode`, through one loader of every listing of each symbol asked for. */
async function securityByListing(ctx: Context, symbol: string, micCode: string): Promise<SecurityRow | null> {
  const listings = await ctx.loaders
    .get(
      'listingsBySymbol',
      fromMap((keys: readonly string[]) => listingsBySymbol(ctx.db, keys), [] as SecurityRow[]),
    )
    .load(symbol);
  return listings.find((s) => s.micCode === micCode) ?? null;
}

// A federation entity (Apollo Federation 2; served with GRAPHQL_SUBGRAPH=true, docs/federation.md):
// other subgraphs name a security by its FIGI, or by its listing, a symbol on an exchange. Each
// reference is a lookup as `security(...)` is: checked, entitled, and batched by the loaders.
builder.asEntity(Security, {
  key: [
    builder.selection<{ identifiers: { figi: string } }>('identifiers { figi }'),
    builder.selection<{ symbol: string; exchangeInfo: { micCode: string } }>('symbol exchangeInfo { micCode }'),
  ],
  resolveReference: (representation, ctx) => {
    checkEntitled(ctx.caller, 'securities');
    const by = securityReference(representation);
    return 'figi' in by ? securityByFigi(ctx, by.figi) : securityByListing(ctx, by.symbol, by.micCode);
  },
});

/**
 * A ranked search passes over the whole master (a sort, a filter, text): the cost analysis charges
 * it SEARCH_PASS_UNITS when one of the arguments that rank it is given (graphql/cost.ts WorkExtension).
 */
function rankedWork<F extends { extensions: object }>(field: F): F {
  const work: WorkExtension = { units: SEARCH_PASS_UNITS, whenArgs: RANKING_ARGS };
  return { ...field, extensions: { ...field.extensions, work } };
}

export const SecurityConnection = builder.connectionObject(
  {
    type: Security,
    name: 'SecurityConnection',
    fields: (t) => ({
      nodes: t.field({ type: [Security], resolve: (con) => (con as unknown as SecuritySearchConnection).nodes }),
      facets: t.field({
        type: [SecurityFacet],
        description: 'Counts of the given fields over every match, not just this page (REST `facet_by`).',
        // each facet is one pass over the match set, charged as a ranked search's (domain/limits.ts)
        extensions: { ...listOf(FACET_FIELDS, 'fields'), work: { units: SEARCH_PASS_UNITS } satisfies WorkExtension },
        args: { fields: t.arg({ type: [FacetFieldEnum], required: true, description: 'The fields to count by.' }) },
        resolve: (con, { fields }) => (con as unknown as SecuritySearchConnection).facetsOf([...new Set(fields)]),
      }),
    }),
  },
  {
    name: 'SecurityEdge',
    fields: (t) => ({
      highlights: t.field({
        type: [SearchHighlight],
        description:
          'Where `query` matched this hit: its symbol and name with <mark> around the matched words; empty without `query`.',
        extensions: listOf(2),
        resolve: (edge) => (edge as unknown as { highlights?: [] }).highlights ?? [],
      }),
    }),
  },
);

const SearchTypeEnum = builder.enumType('SecuritySearchType', {
  description: 'Which identifier a security search matches (REST parameter `search_type`).',
  values: Object.fromEntries(
    (Object.keys(SEARCH_TYPES) as SearchType[]).map((k) => [
      k.split('.').pop()!.toUpperCase(),
      { value: k, description: k === 'identifiers.cik' ? `Matches \`${k}\`. ${CIK_SEARCH_RULE}` : `Matches \`${k}\`.` },
    ]),
  ) as Record<string, { value: SearchType; description: string }>,
});

const pageOf = (args: SearchArgs) => keysetArgs(args, SECURITY_PAGE);

builder.queryField('securitiesBySymbols', (t) =>
  t.field({
    authScopes: { entitled: 'securities' },
    type: [Security],
    nullable: { list: true, items: true },
    description: `Securities by symbol, as a watchlist asks for them: one item per symbol given (at most ${MAX_SYMBOLS}), in the same order, each as \`security(symbol:)\` answers it (a symbol listed on several exchanges resolves to its first listing); null in the place of a symbol the master does not hold, with no error, so a client's default error policy keeps the list.`,
    // the cost analysis counts the list at the symbols sent
    extensions: listOf(MAX_SYMBOLS, 'symbols'),
    args: {
      symbols: t.arg.stringList({
        required: true,
        description: `Up to ${MAX_SYMBOLS} ticker symbols, each 1 to 20 characters of A-Z 0-9 . - (case-insensitive); a symbol given twice is answered twice.`,
      }),
    },
    // one statement for the whole list (the loader of securityBySymbol), whatever its length
    resolve: (_root, { symbols }, ctx) =>
      Promise.all(parseSymbolList(symbols, 'symbols').map((symbol) => securityBySymbol(ctx, symbol))),
  }),
);

builder.queryFields((t) => ({
  security: t.field({
    authScopes: { entitled: 'securities' },
    type: Security,
    nullable: true,
    description:
      'One security by exactly one identifier; null when none matches. A symbol listed on several exchanges resolves to its first listing.',
    args: {
      symbol: t.arg.string({ description: SYMBOL_DESCRIPTION }),
      figi: t.arg.string({ description: 'FIGI.' }),
      isin: t.arg.string({ description: 'ISIN.' }),
      cusip: t.arg.string({ description: 'CUSIP.' }),
      cik: t.arg.string({ description: 'SEC Central Index Key, with or without leading zeros.' }),
    },
    ...rootOne(
      (_db, args: Parameters<typeof securityLookup>[0], columns, children) => {
        const by = securityLookup(args);
        if ('symbol' in by) return firstListingLevel('symbol', by.symbol, columns, children);
        if ('figi' in by) return firstListingLevel('figi', by.figi, columns, children);
        return undefined;
      },
      // the fallback: by ISIN, CUSIP or CIK (the level tells only symbol and FIGI)
      (_root, args, ctx) => findSecurity(ctx.db, securityLookup(args)),
    ),
  }),
  securities: t.field({
    authScopes: { entitled: 'securities' },
    nullable: true,
    type: SecurityConnection,
    description:
      'Search the security master by one identifier type (prefix match; exact identifiers come first in their order); without `search` (or with `"*"`), every security, by symbol. For a list of symbols (a watchlist), `securitiesBySymbols`.',
    args: {
      search: t.arg.string({
        description:
          'The query: an identifier or its beginning; `"*"` or none lists every security, by symbol then id.',
      }),
      searchType: t.arg({
        type: SearchTypeEnum,
        defaultValue: 'symbol',
        description: 'Which identifier to match (default SYMBOL).',
      }),
      query: t.arg.string({
        description:
          'Free text: every word must match a word of the symbol or name, with typos by length (none under 4 characters or with a digit, 1 up to 6, 2 from 7); the last word also as a prefix. Ranked by relevance (exact symbol first), then market cap.',
      }),
      queryBy: t.arg({ type: [TextFieldEnum], description: 'The fields `query` matches (default SYMBOL and NAME).' }),
      filter: t.arg({
        type: SecurityFilter,
        description: 'Conditions on the master and the latest metrics (a screener).',
      }),
      orderBy: t.arg({
        type: [SecurityOrder],
        description: 'Up to 3 keys; default RELEVANCE with `query`, else the search field (or symbol), then id.',
      }),
      ...pagingArgs(SECURITY_PAGE),
    },
    ...rankedWork(
      root(
        async (db, args: SearchArgs, columns, children) => {
          if (isRanked(args)) return undefined; // graphql-js answers, through securityQueryPage
          const page = pageOf(args);
          const found = await securitySearchLevel(db, searchOf(args), page, columns, children);
          return found && { ...found, page };
        },
        async (_root, args, ctx) => {
          if (isRanked(args)) return rankedConnection(ctx, { query: queryOf(args), page: pageOf(args) });
          const page = await securitySearchPage(ctx.db, searchOf(args), pageOf(args));
          return new SecuritySearchConnection(
            page,
            (fields) => securityQueryFacets(ctx.db, { search: searchOf(args) }, fields),
            undefined,
          );
        },
      ),
    ),
  }),
}));
