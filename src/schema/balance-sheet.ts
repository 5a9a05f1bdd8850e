import { exposeRecordFields } from './record-fields.js';
import { BALANCE_SHEET_FIELDS } from '../domain/records/balance-sheet.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import type { Context } from '../context.js';
import { FISCAL_YEARS } from '../domain/fiscal.js';
import { childrenOf, fromMap, pageByKey } from '../graphql/loaders.js';
import { one } from '../graphql/plan/declare.js';
import {
  balanceSheetPage,
  balanceSheetPages,
  balanceSheetSymbols,
  DEFAULT_SORT,
  latestBalanceSheetLevel,
  parseBalanceSheetFilter,
  SYMBOLS_INCLUDE,
  type BalanceSheetFilter,
  type BalanceSheetPageArgs,
  type BalanceSheetSortField,
  type BalanceSheetWithSymbols,
  type BalanceSheetSymbol,
  type Timeframe,
} from '../services/balance-sheet.js';
import type { Direction, Page } from '../services/paging.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  connection,
  connectionType,
  intNodeId,
  keysetArgs,
  pagingArgs,
  type PageSize,
  type PagingInput,
  SortOrder,
} from './common.js';
import { Security } from './security.js';

export const BALANCE_SHEET_PAGE: PageSize = PAGE_SIZES.balanceSheets;

export const TimeframeEnum = builder.enumType('Timeframe', {
  description: 'The period a balance sheet reports on (REST field `timeframe`).',
  values: {
    QUARTERLY: { value: 'quarterly', description: 'One fiscal quarter.' },
    ANNUAL: { value: 'annual', description: 'One fiscal year.' },
    TRAILING_TWELVE_MONTHS: {
      value: 'trailing_twelve_months',
      description: 'The twelve months up to the reporting period end.',
    },
  } as const,
});

function symbolsOf(ctx: Context, b: BalanceSheetWithSymbols): BalanceSheetSymbol[] | Promise<BalanceSheetSymbol[]> {
  return childrenOf(b, 'symbols', () =>
    ctx.loaders
      .get(
        'balanceSheetSymbols',
        fromMap((ids: readonly number[]) => balanceSheetSymbols(ctx.db, ids), [] as BalanceSheetSymbol[]),
      )
      .load(b.id),
  );
}

export const BalanceSheet = builder.prismaNode('BalanceSheet', {
  description:
    'A standardized balance sheet of one company for one reporting period. Amounts are numbers in the reporting currency.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'BalanceSheet') }),
  // rows from the services come with their symbols; node lookups load them the same way
  include: SYMBOLS_INCLUDE,
  fields: (t) => ({
    ...exposeRecordFields(t, BALANCE_SHEET_FIELDS),
    symbols: t.field({
      type: ['String'],
      description: 'Ticker symbols of the company, main listing first.',
      resolve: async (b, _args, ctx) => (await symbolsOf(ctx, b)).map((s) => s.symbol),
    }),
    timeframe: t.expose('timeframe', { type: TimeframeEnum, description: 'The period the balance sheet covers.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the record was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the record last changed.' }),
  }),
});

export const BalanceSheetConnection = connectionType(BalanceSheet, 'BalanceSheetConnection');

const BalanceSheetOrderField = builder.enumType('BalanceSheetOrderField', {
  description: 'What a balance-sheet list is ordered by; ties are broken by record id.',
  values: {
    PERIOD_END: { value: 'period_end', description: 'Reporting period end.' },
    FISCAL_YEAR: { value: 'fiscal_year', description: 'Fiscal year, then fiscal quarter.' },
    FISCAL_QUARTER: { value: 'fiscal_quarter', description: 'Fiscal quarter.' },
  } as const,
});

const BalanceSheetOrder = builder.inputType('BalanceSheetOrder', {
  description: 'Order of a balance-sheet list (REST parameter `sort`).',
  fields: (t) => ({
    field: t.field({
      type: BalanceSheetOrderField,
      defaultValue: 'period_end',
      description: 'The sort field; default PERIOD_END.',
    }),
    direction: t.field({ type: SortOrder, defaultValue: 'asc', description: 'Default ASC.' }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const periodFilterFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  periodEnd: t.field({ type: 'Date', description: 'Only this reporting period end.' }),
  fiscalYear: t.int({ description: `Only this fiscal year (${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}).` }),
  fiscalQuarter: t.int({ description: 'Only this fiscal quarter (1 to 4).' }),
  timeframe: t.field({ type: TimeframeEnum, description: 'Only this kind of period.' }),
});

const BalanceSheetFilterInput = builder.inputType('BalanceSheetFilter', {
  description: 'Filters of the balance-sheet list; all are ANDed.',
  fields: (t) => ({
    cik: t.string({ description: 'SEC Central Index Key, 1 to 10 digits, with or without leading zeros.' }),
    symbols: t.stringList({
      description:
        'Balance sheets listing any of these symbols (upper case; at most 200 characters joined with commas).',
    }),
    ...periodFilterFields(t),
  }),
});

const BalanceSheetPeriodFilterInput = builder.inputType('BalanceSheetPeriodFilter', {
  description: "Filters of a security's balance sheets; all are ANDed.",
  fields: (t) => periodFilterFields(t),
});

type Nullable<T> = { [K in keyof T]?: T[K] | null };

/** The `filter` argument as a checked service filter. */
function filterOf(input: Nullable<BalanceSheetFilter> | null | undefined): BalanceSheetFilter {
  const filter: BalanceSheetFilter = {
    cik: input?.cik ?? undefined,
    symbols: input?.symbols ?? undefined,
    periodEnd: input?.periodEnd ?? undefined,
    fiscalYear: input?.fiscalYear ?? undefined,
    fiscalQuarter: input?.fiscalQuarter ?? undefined,
    timeframe: input?.timeframe ?? undefined,
  };
  return parseBalanceSheetFilter(filter, (key) => `filter.${key}`);
}

interface ListArgs extends PagingInput {
  orderBy?: { field?: BalanceSheetSortField | null; direction?: Direction | null } | null;
}

function pageArgs(args: ListArgs): BalanceSheetPageArgs {
  return {
    sort: {
      field: args.orderBy?.field ?? DEFAULT_SORT.field,
      direction: args.orderBy?.direction ?? DEFAULT_SORT.direction,
    },
    ...keysetArgs(args, BALANCE_SHEET_PAGE),
  };
}

const listArgs = {
  ...builder.args((t) => ({
    orderBy: t.field({
      type: BalanceSheetOrder,
      defaultValue: { field: 'period_end', direction: 'asc' },
      description: 'Default: by period end, ascending.',
    }),
  })),
  ...pagingArgs(BALANCE_SHEET_PAGE),
};

builder.queryField('balanceSheets', (t) =>
  t.field({
    authScopes: { entitled: 'balanceSheets' },
    nullable: true,
    type: BalanceSheetConnection,
    description: 'Standardized balance sheets, filtered and ordered, in pages.',
    args: {
      filter: t.arg({ type: BalanceSheetFilterInput, description: 'What to return; default everything.' }),
      ...listArgs,
    },
    resolve: async (_root, args, ctx) =>
      connection(await balanceSheetPage(ctx.db, filterOf(args.filter), pageArgs(args))),
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  balanceSheets: t.field({
    authScopes: { entitled: 'balanceSheets' },
    nullable: true,
    type: BalanceSheetConnection,
    description: "Balance sheets listing this security's symbol, by period end ascending unless ordered otherwise.",
    args: {
      filter: t.arg({ type: BalanceSheetPeriodFilterInput, description: 'What to return; default every period.' }),
      ...listArgs,
    },
    resolve: async (security, args, ctx) => {
      const { periodEnd, fiscalYear, fiscalQuarter, timeframe } = filterOf(args.filter);
      const [filter, page] = [{ periodEnd, fiscalYear, fiscalQuarter, timeframe }, pageArgs(args)];
      // without their symbols rows (see `childrenOf`): `symbolsOf` loads them
      const sheets = await pageByKey(ctx, 'balanceSheetsBySymbol', { filter, ...page }, security.symbol, (symbols) =>
        balanceSheetPages(ctx.db, symbols, filter, page),
      );
      return connection(sheets as Page<unknown> as Page<BalanceSheetWithSymbols>);
    },
  }),
  latestBalanceSheet: t.field({
    authScopes: { entitled: 'balanceSheets' },
    type: BalanceSheet,
    nullable: true,
    description:
      'The balance sheet with the latest reporting period end (of one timeframe if given); null when there is none.',
    args: { timeframe: t.arg({ type: TimeframeEnum, description: 'Only this kind of period.' }) },
    // without its symbols rows (see `childrenOf`): `symbolsOf` loads them
    ...one<SecurityRow, { timeframe?: Timeframe | null }, BalanceSheetWithSymbols>(
      { symbol: 'text' },
      (args, columns, children) => latestBalanceSheetLevel(args.timeframe ?? undefined, columns, children),
    ),
  }),
}));
