import { builder } from '../builder.js';
import {
  FUNDAMENTAL_ENHANCED_FIELDS,
  FUNDAMENTAL_LITE_FIELDS,
  LITIGATION_FIELDS,
  MDNA_FIELDS,
  METRIC_FIELDS,
  MOST_NEGATIVE_RISK_FIELDS,
  RISK_FACTORS_FIELDS,
  WORKING_CAPITAL_DAYS_FIELDS,
} from '../domain/records/fundamental.js';
import { PAGE_SIZES } from '../domain/limits.js';
import type { Context } from '../context.js';
import { FISCAL_YEARS } from '../domain/fiscal.js';
import {
  BALANCE_SHEET,
  CASH_FLOW,
  columnOf,
  INCOME_STATEMENT,
  NULLABLE_LINES,
  type StatementLine,
} from '../domain/fundamentals.js';
import { keyedPage, pageByKey } from '../graphql/loaders.js';
import { children } from '../graphql/plan/declare.js';
import {
  countFundamentals,
  enhancedFundamentalPages,
  fundamentalsBySymbol,
  litigationOf,
  mdnaOf,
  METRICS_INCLUDE,
  riskFactorsOf,
  type FiscalPeriod,
  type Fundamental as FundamentalRow,
  type FundamentalFilter,
  type FundamentalMetrics as MetricsRow,
  type FundamentalWithMetrics,
} from '../services/fundamental.js';
import type { LitigationInsight, MdnaInsight, RiskFactorsInsight } from '../domain/insights.js';
import type { KeysetArgs, Page } from '../services/paging.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  connection,
  connectionType,
  FiscalPeriodEnum,
  intNodeId,
  keysetArgs,
  pagingArgs,
  SYMBOL_DESCRIPTION,
  type PageSize,
  type PagingInput,
} from './common.js';
import { exposeRecordFields } from './record-fields.js';
import { Security } from './security.js';
import { parseSymbol } from '../domain/symbols.js';

/** The REST `page_size` rule of the fundamentals routes (default 10), with a cap. */
export const FUNDAMENTAL_PAGE: PageSize = PAGE_SIZES.records;

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

// ------------------------------------------------------------------ statements

/** "CostOfRevenue" -> "Cost of revenue"; acronyms such as EBITDA stay as they are. */
const humanize = (line: StatementLine) =>
  line
    .split(/(?<=[a-z])(?=[A-Z])/)
    .map((w, i) => (i === 0 || w === w.toUpperCase() ? w : w.toLowerCase()))
    .join(' ');

function statementType(name: string, description: string, lines: readonly StatementLine[]) {
  return builder.objectRef<FundamentalRow>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        lines.map((line) => {
          const column = columnOf(line);
          const description = `${humanize(line)} (REST field \`${line}\`).`;
          const field = NULLABLE_LINES.has(line)
            ? t.float({
                nullable: true,
                description: `${description.slice(0, -1)}; null when not reported.`,
                resolve: (f) => f[column],
              })
            : t.float({ description, resolve: (f) => f[column]! });
          return [column, field];
        }),
      ),
  });
}

const IncomeStatement = statementType(
  'FundamentalIncomeStatement',
  'Income statement of the period.',
  INCOME_STATEMENT,
);
const StatementBalanceSheet = statementType(
  'FundamentalBalanceSheet',
  'Balance sheet at the end of the period.',
  BALANCE_SHEET,
);
const CashFlow = statementType('FundamentalCashFlow', 'Cash-flow statement of the period.', CASH_FLOW);

/** The fields of the lite record beside its plain ones, which the enhanced record carries too. */
// Typed as a plain object-field builder: the Prisma field builder of the two variants carries
// their own shapes, which TypeScript cannot unify (it gives up: "excessively deep").
type RecordFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, FundamentalRow>;

function recordFields(t: RecordFieldBuilder) {
  return {
    quarter: t.field({
      type: FiscalPeriodEnum,
      description: 'Fiscal quarter, or FY for the full fiscal year (REST field `Quarter`).',
      resolve: (f) => f.quarter,
    }),
    incomeStatement: t.field({ type: IncomeStatement, description: 'Income statement lines.', resolve: (f) => f }),
    balanceSheet: t.field({ type: StatementBalanceSheet, description: 'Balance sheet lines.', resolve: (f) => f }),
    cashFlow: t.field({ type: CashFlow, description: 'Cash-flow lines.', resolve: (f) => f }),
  };
}

export const Fundamental = builder.prismaNode('Fundamental', {
  description:
    'A lite fundamentals record: the income statement, balance sheet and cash flow of one company for one fiscal period.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'Fundamental') }),
  fields: (t) => ({
    ...exposeRecordFields(t, FUNDAMENTAL_LITE_FIELDS),
    ...recordFields(t as unknown as RecordFieldBuilder),
  }),
});

// ------------------------------------------------------------------ enhanced

const DerivedMetrics = builder.objectRef<MetricsRow>('DerivedMetrics').implement({
  description:
    'Ratios derived from the statements, the latest trade price and the security master; each is null when it cannot be computed (a zero denominator, no trade price, no share or employee count).',
  fields: (t) => exposeRecordFields(t, METRIC_FIELDS, { row: 'metrics' }),
});

const WorkingCapitalDays = builder.objectRef<MetricsRow>('WorkingCapitalDays').implement({
  description:
    'Working-capital cycle in days (REST field `working_capital_days`); each is null when it cannot be computed.',
  fields: (t) => exposeRecordFields(t, WORKING_CAPITAL_DAYS_FIELDS, { row: 'metrics' }),
});

const MostNegativeRisk = builder
  .objectRef<NonNullable<RiskFactorsInsight['mostNegativeRisk']>>('MostNegativeRisk')
  .implement({
    description: 'The risk factor with the most negative sentiment (REST field `risk_factors.most_negative_risk`).',
    fields: (t) => ({
      ...exposeRecordFields(t, MOST_NEGATIVE_RISK_FIELDS),
    }),
  });

const RiskFactors = builder.objectRef<RiskFactorsInsight>('RiskFactors').implement({
  description: 'What the risk-factor section of the filing says (REST field `risk_factors`).',
  fields: (t) => ({
    ...exposeRecordFields(t, RISK_FACTORS_FIELDS),
    topThemes: t.exposeStringList('topThemes', { description: 'The risk themes most risk factors mention.' }),
    mostNegativeRisk: t.field({
      type: MostNegativeRisk,
      nullable: true,
      description: 'The most negative risk factor; null when there are none.',
      resolve: (r) => r.mostNegativeRisk,
    }),
  }),
});

const Mdna = builder.objectRef<MdnaInsight>('Mdna').implement({
  description: "What management's discussion and analysis says (REST field `mdna`).",
  fields: (t) => ({
    ...exposeRecordFields(t, MDNA_FIELDS),
    keyTopics: t.exposeStringList('keyTopics', { description: 'Key topics discussed.' }),
  }),
});

const LitigationMentions = builder.objectRef<LitigationInsight>('LitigationMentions').implement({
  description: 'Mentions of litigation in the filing (REST field `litigation_mentions`).',
  fields: (t) => ({
    ...exposeRecordFields(t, LITIGATION_FIELDS),
    recentHeadings: t.exposeStringList('recentHeadings', { description: 'Headings of the most recent ones.' }),
  }),
});

function metricsOf(f: FundamentalWithMetrics): MetricsRow {
  if (!f.metrics) throw new Error(`enhanced fundamentals record ${f.id} has no metrics`);
  return f.metrics;
}

/**
 * The enhanced record is the lite row seen together with its FundamentalMetrics row, so it is a
 * Prisma variant of the Fundamental model rather than a type over a model of its own: it has its
 * own typename and global id (`EnhancedFundamental:<id>`), always loads the metrics (type-level
 * include, so node lookups get them too), and its node lookup only finds rows that have metrics.
 */
export const EnhancedFundamental = builder.prismaNode('Fundamental', {
  variant: 'EnhancedFundamental',
  // also reached through node(id): the type checks the entitlement itself
  authScopes: { entitled: 'enhancedFundamentals' },
  description:
    'An enhanced fundamentals record: the lite record plus derived metrics and insights drawn from the filing text.',
  // node(id) of an unknown record, or of one without metrics, is null
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'EnhancedFundamental'), metrics: { isNot: null } }),
  include: METRICS_INCLUDE,
  fields: (t) => ({
    ...exposeRecordFields(t, FUNDAMENTAL_ENHANCED_FIELDS),
    ...recordFields(t as unknown as RecordFieldBuilder),
    metrics: t.field({ type: DerivedMetrics, description: 'Derived ratios.', resolve: metricsOf }),
    workingCapitalDays: t.field({
      type: WorkingCapitalDays,
      description: 'Working-capital cycle in days.',
      resolve: metricsOf,
    }),
    riskFactors: t.field({
      type: RiskFactors,
      nullable: true,
      description: 'Insights from the risk-factor section; null when no filing text or imported value exists.',
      resolve: (f) => riskFactorsOf(metricsOf(f)),
    }),
    mdna: t.field({
      type: Mdna,
      nullable: true,
      description:
        "Insights from management's discussion and analysis; null when no filing text or imported value exists.",
      resolve: (f) => mdnaOf(metricsOf(f)),
    }),
    litigationMentions: t.field({
      type: LitigationMentions,
      nullable: true,
      description: 'Litigation mentioned in the filing; null when no filing text or imported value exists.',
      resolve: (f) => litigationOf(metricsOf(f)),
    }),
  }),
});

export const FundamentalConnection = connectionType(Fundamental, 'FundamentalConnection');
export const EnhancedFundamentalConnection = connectionType(EnhancedFundamental, 'EnhancedFundamentalConnection');

// ------------------------------------------------------------------ lists

const listArgs = {
  ...builder.args((t) => ({
    fiscalYear: t.int({ description: `Only this fiscal year (${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}).` }),
    fiscalPeriod: t.field({ type: FiscalPeriodEnum, description: 'Only this fiscal period.' }),
  })),
  ...pagingArgs(FUNDAMENTAL_PAGE),
};

interface ListArgs extends PagingInput {
  fiscalYear?: number | null;
  fiscalPeriod?: FiscalPeriod | null;
}

interface FilterPage {
  filter: FundamentalFilter;
  page: KeysetArgs;
}

function filterPage(args: ListArgs): FilterPage {
  return {
    filter: { fiscalYear: args.fiscalYear ?? undefined, fiscalPeriod: args.fiscalPeriod ?? undefined },
    page: keysetArgs(args, FUNDAMENTAL_PAGE),
  };
}

const symbolOf = (symbol: string) => parseSymbol(symbol, 'symbol');

/** The lite records' list and page for the list arguments: of the root field and the Security edge alike. */
function liteList(args: ListArgs) {
  const { filter, page } = filterPage(args);
  return { list: fundamentalsBySymbol(filter), args: page };
}

/** A symbol's enhanced records, batched with the other symbols' of the request (root field and Security edge). */
function enhancedPage(
  ctx: Context,
  symbol: string,
  { filter, page }: FilterPage,
): Promise<Page<FundamentalWithMetrics>> {
  return pageByKey(ctx, 'enhancedFundamentalsBySymbol', { ...filter, ...page }, symbol, (symbols) =>
    enhancedFundamentalPages(ctx.db, symbols, filter, page),
  );
}

const symbolArg = builder.args((t) => ({ symbol: t.string({ required: true, description: SYMBOL_DESCRIPTION }) }));

builder.queryFields((t) => ({
  fundamentals: t.field({
    authScopes: { entitled: 'fundamentals' },
    nullable: true,
    type: FundamentalConnection,
    description: 'Lite fundamentals records of one symbol, newest period first.',
    args: { ...symbolArg, ...listArgs },
    resolve: async (_root, { symbol: given, ...args }, ctx) => {
      const [symbol, { filter }, lite] = [symbolOf(given), filterPage(args), liteList(args)];
      return connection({
        ...(await keyedPage(ctx, lite.list, lite.args, symbol)),
        totalCount: () => countFundamentals(ctx.db, symbol, filter, false),
      });
    },
  }),
  enhancedFundamentals: t.field({
    authScopes: { entitled: 'enhancedFundamentals' },
    nullable: true,
    type: EnhancedFundamentalConnection,
    description: 'Enhanced fundamentals records of one symbol, newest period first.',
    args: { ...symbolArg, ...listArgs },
    resolve: async (_root, { symbol: given, ...args }, ctx) => {
      const [symbol, list] = [symbolOf(given), filterPage(args)];
      return connection({
        ...(await enhancedPage(ctx, symbol, list)),
        totalCount: () => countFundamentals(ctx.db, symbol, list.filter, true),
      });
    },
  }),
}));

builder.prismaObjectFields(Security, (t) => ({
  fundamentals: t.field({
    authScopes: { entitled: 'fundamentals' },
    nullable: true,
    type: FundamentalConnection,
    description: "This security's lite fundamentals records, newest period first.",
    args: listArgs,
    ...children<SecurityRow, ListArgs>('symbol', liteList),
  }),
  enhancedFundamentals: t.field({
    authScopes: { entitled: 'enhancedFundamentals' },
    nullable: true,
    type: EnhancedFundamentalConnection,
    description: "This security's enhanced fundamentals records, newest period first.",
    args: listArgs,
    resolve: async (security, args, ctx) => connection(await enhancedPage(ctx, security.symbol, filterPage(args))),
  }),
}));
