import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { BALANCE_SHEET, CASH_FLOW, columnOf, INCOME_STATEMENT, NULLABLE_LINES, type StatementLine } from '../domain/fundamentals.js';
import { AppError } from '../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { fromMap, loaderName } from '../loaders.js';
import {
  countFundamentals,
  fundamentalPages,
  METRICS_INCLUDE,
  type FiscalPeriod,
  type Fundamental as FundamentalRow,
  type FundamentalFilter,
  type FundamentalMetrics as MetricsRow,
  type FundamentalWithMetrics,
} from '../services/fundamental.js';
import type { Page } from '../services/paging.js';
import { AFTER_DESCRIPTION, checkFirst, connection, firstArgDescription, FiscalPeriodEnum, intNodeId, type PageSize } from './common.js';
import { Security } from './security.js';

/** The REST `page_size` rule of spec 4.3/4.4 (default 10), with a cap. */
export const FUNDAMENTAL_PAGE: PageSize = { default: 10, max: 100 };

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

// ------------------------------------------------------------------ statements (spec 2.3)

/** "CostOfRevenue" -> "Cost of revenue"; acronyms such as EBITDA stay as they are. */
const humanize = (line: StatementLine) =>
  line.split(/(?<=[a-z])(?=[A-Z])/).map((w, i) => (i === 0 || w === w.toUpperCase() ? w : w.toLowerCase())).join(' ');

function statementType(name: string, description: string, lines: readonly StatementLine[]) {
  return builder.objectRef<FundamentalRow>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        lines.map((line) => {
          const column = columnOf(line);
          const description = `${humanize(line)} (spec \`${line}\`).`;
          const field = NULLABLE_LINES.has(line)
            ? t.float({ nullable: true, description: `${description.slice(0, -1)}; null when not reported.`, resolve: (f) => f[column] })
            : t.float({ description, resolve: (f) => f[column]! });
          return [column, field];
        }),
      ),
  });
}

const IncomeStatement = statementType('FundamentalIncomeStatement', 'Income statement of the period (spec 2.3).', INCOME_STATEMENT);
const StatementBalanceSheet = statementType('FundamentalBalanceSheet', 'Balance sheet at the end of the period (spec 2.3).', BALANCE_SHEET);
const CashFlow = statementType('FundamentalCashFlow', 'Cash-flow statement of the period (spec 2.3).', CASH_FLOW);

/** The fields of the lite record, which the enhanced record carries too. */
// Typed as a plain object-field builder: the Prisma field builder of the two variants carries
// their own shapes, which TypeScript cannot unify (it gives up: "excessively deep").
type RecordFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, FundamentalRow>;

function recordFields(t: RecordFieldBuilder) {
  return {
    symbol: t.string({ description: 'Ticker symbol (spec `ticker` in lite records, `symbol` in enhanced ones).', resolve: (f) => f.symbol }),
    endPeriod: t.field({ type: 'Date', description: 'Last day of the period (spec `EndPeriod`).', resolve: (f) => f.endPeriod }),
    quarter: t.field({ type: FiscalPeriodEnum, description: 'Fiscal quarter, or FY for the full fiscal year (spec `Quarter`).', resolve: (f) => f.quarter }),
    year: t.int({ description: 'Fiscal year (spec `Year`).', resolve: (f) => f.year }),
    incomeStatement: t.field({ type: IncomeStatement, description: 'Income statement lines.', resolve: (f) => f }),
    balanceSheet: t.field({ type: StatementBalanceSheet, description: 'Balance sheet lines.', resolve: (f) => f }),
    cashFlow: t.field({ type: CashFlow, description: 'Cash-flow lines.', resolve: (f) => f }),
  };
}

export const Fundamental = builder.prismaNode('Fundamental', {
  description: 'A lite fundamentals record (spec 2.3): the income statement, balance sheet and cash flow of one company for one fiscal period.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'Fundamental') }),
  fields: (t) => recordFields(t as unknown as RecordFieldBuilder),
});

// ------------------------------------------------------------------ enhanced (spec 2.4)

const strings = (json: Prisma.JsonValue): string[] => (Array.isArray(json) ? json.filter((v): v is string => typeof v === 'string') : []);

const DerivedMetrics = builder.objectRef<MetricsRow>('DerivedMetrics').implement({
  description: 'Ratios derived from the statements and the share price (spec 2.4).',
  fields: (t) => ({
    peRatio: t.exposeFloat('peRatio', { description: 'Price to annualized diluted earnings per share (spec `pe_ratio`).' }),
    priceToBook: t.exposeFloat('priceToBook', { description: 'Market capitalization to equity attributable to the parent (spec `price_to_book`).' }),
    debtToEquity: t.exposeFloat('debtToEquity', { description: 'Current and long-term debt to total equity (spec `debt_to_equity`).' }),
    returnOnAssets: t.exposeFloat('returnOnAssets', { description: 'Annualized net income to total assets (spec `return_on_assets`).' }),
    returnOnEquity: t.exposeFloat('returnOnEquity', { description: 'Annualized net income to total equity (spec `return_on_equity`).' }),
    revenuePerEmployee: t.exposeFloat('revenuePerEmployee', { description: 'Annualized revenue per employee (spec `revenue_per_employee`).' }),
    roic: t.exposeFloat('roic', { description: 'Return on invested capital (spec `roic`).' }),
    fcfYield: t.exposeFloat('fcfYield', { description: 'Annualized free cash flow to market capitalization (spec `fcf_yield`).' }),
  }),
});

const WorkingCapitalDays = builder.objectRef<MetricsRow>('WorkingCapitalDays').implement({
  description: 'Working-capital cycle in days (spec `working_capital_days`).',
  fields: (t) => ({
    dso: t.exposeFloat('dso', { description: 'Days sales outstanding.' }),
    dio: t.exposeFloat('dio', { description: 'Days inventory outstanding.' }),
    dpo: t.exposeFloat('dpo', { description: 'Days payables outstanding.' }),
  }),
});

const MostNegativeRisk = builder.objectRef<MetricsRow>('MostNegativeRisk').implement({
  description: 'The risk factor with the most negative sentiment (spec `risk_factors.most_negative_risk`).',
  fields: (t) => ({
    heading: t.exposeString('riskMostNegativeHeading', { description: 'Heading of the risk factor.' }),
    sentiment: t.exposeFloat('riskMostNegativeSentiment', { description: 'Its sentiment score, -1 to 1.' }),
  }),
});

const RiskFactors = builder.objectRef<MetricsRow>('RiskFactors').implement({
  description: 'What the risk-factor section of the filing says (spec `risk_factors`).',
  fields: (t) => ({
    count: t.exposeInt('riskFactorCount', { description: 'Number of risk factors.' }),
    topThemes: t.stringList({ description: 'The most frequent risk themes.', resolve: (m) => strings(m.riskTopThemes) }),
    averageSentimentScore: t.exposeFloat('riskAverageSentimentScore', { description: 'Average sentiment of the risk factors, -1 to 1.' }),
    mostNegativeRisk: t.field({ type: MostNegativeRisk, description: 'The most negative risk factor.', resolve: (m) => m }),
  }),
});

const Mdna = builder.objectRef<MetricsRow>('Mdna').implement({
  description: "What management's discussion and analysis says (spec `mdna`).",
  fields: (t) => ({
    forwardLookingTermCount: t.exposeInt('mdnaForwardLookingTermCount', { description: 'Number of forward-looking terms.' }),
    forwardToHistoricalRatio: t.exposeFloat('mdnaForwardToHistoricalRatio', { description: 'Forward-looking to historical statements.' }),
    toneScore: t.exposeFloat('mdnaToneScore', { description: 'Tone of the section, -1 (negative) to 1 (positive).' }),
    keyTopics: t.stringList({ description: 'Key topics discussed.', resolve: (m) => strings(m.mdnaKeyTopics) }),
  }),
});

const LitigationMentions = builder.objectRef<MetricsRow>('LitigationMentions').implement({
  description: 'Mentions of litigation in the filing (spec `litigation_mentions`).',
  fields: (t) => ({
    count: t.exposeInt('litigationCount', { description: 'Number of litigation mentions.' }),
    recentHeadings: t.stringList({ description: 'Headings of the most recent ones.', resolve: (m) => strings(m.litigationRecentHeadings) }),
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
  description: 'An enhanced fundamentals record (spec 2.4): the lite record plus derived metrics and insights drawn from the filing text.',
  // node(id) of an unknown record, or of one without metrics, is null
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'EnhancedFundamental'), metrics: { isNot: null } }),
  include: METRICS_INCLUDE,
  fields: (t) => ({
    ...recordFields(t as unknown as RecordFieldBuilder),
    cik: t.exposeString('cik', { description: 'SEC Central Index Key, zero-padded to 10 digits.' }),
    metrics: t.field({ type: DerivedMetrics, description: 'Derived ratios.', resolve: metricsOf }),
    workingCapitalDays: t.field({ type: WorkingCapitalDays, description: 'Working-capital cycle in days.', resolve: metricsOf }),
    riskFactors: t.field({ type: RiskFactors, description: 'Insights from the risk-factor section.', resolve: metricsOf }),
    mdna: t.field({ type: Mdna, description: "Insights from management's discussion and analysis.", resolve: metricsOf }),
    litigationMentions: t.field({ type: LitigationMentions, description: 'Litigation mentioned in the filing.', resolve: metricsOf }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the record was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the record last changed.' }),
  }),
});


export const FundamentalConnection = builder.connectionObject({ type: Fundamental, name: 'FundamentalConnection' });
export const EnhancedFundamentalConnection = builder.connectionObject({ type: EnhancedFundamental, name: 'EnhancedFundamentalConnection' });

// ------------------------------------------------------------------ lists

const listArgs = builder.args((t) => ({
  fiscalYear: t.int({ description: 'Only this fiscal year.' }),
  fiscalPeriod: t.field({ type: FiscalPeriodEnum, description: 'Only this fiscal period.' }),
  first: t.int({ description: firstArgDescription(FUNDAMENTAL_PAGE) }),
  after: t.string({ description: AFTER_DESCRIPTION }),
}));

interface ListArgs {
  fiscalYear?: number | null;
  fiscalPeriod?: FiscalPeriod | null;
  first?: number | null;
  after?: string | null;
}

interface PageArgs extends FundamentalFilter {
  first: number;
  after?: string | undefined;
}

function pageArgs(args: ListArgs): PageArgs {
  return {
    fiscalYear: args.fiscalYear ?? undefined,
    fiscalPeriod: args.fiscalPeriod ?? undefined,
    first: checkFirst(args.first, FUNDAMENTAL_PAGE),
    after: args.after ?? undefined,
  };
}

function symbolOf(symbol: string): string {
  const s = symbol.trim().toUpperCase();
  if (s === '') throw new AppError('BAD_REQUEST', `argument "symbol" must not be empty; got ${JSON.stringify(symbol)}`);
  return s;
}

function litePage(ctx: Context, symbol: string, args: PageArgs): Promise<Page<FundamentalRow>> {
  const empty: Page<FundamentalRow> = { nodes: [], hasNextPage: false, cursors: [] };
  return ctx.loaders
    .get(loaderName('fundamentalsBySymbol', args), fromMap((symbols: readonly string[]) => fundamentalPages(ctx.db, symbols, { ...args, enhanced: false }), empty))
    .load(symbol);
}

function enhancedPage(ctx: Context, symbol: string, args: PageArgs): Promise<Page<FundamentalWithMetrics>> {
  const empty: Page<FundamentalWithMetrics> = { nodes: [], hasNextPage: false, cursors: [] };
  return ctx.loaders
    .get(loaderName('enhancedFundamentalsBySymbol', args), fromMap((symbols: readonly string[]) => fundamentalPages(ctx.db, symbols, { ...args, enhanced: true }), empty))
    .load(symbol);
}

const symbolArg = builder.args((t) => ({ symbol: t.string({ required: true, description: 'Ticker symbol.' }) }));

builder.queryFields((t) => ({
  fundamentals: t.field({
    authScopes: { entitled: 'fundamentals' },
    // nullable: a caller without the entitlement gets an error here while the rest answers
    nullable: true,
    type: FundamentalConnection,
    description: 'Lite fundamentals records of one symbol (spec 4.4), newest period first.',
    args: { ...symbolArg, ...listArgs },
    resolve: async (_root, { symbol: given, ...args }, ctx) => {
      const [symbol, page] = [symbolOf(given), pageArgs(args)];
      return connection({ ...(await litePage(ctx, symbol, page)), totalCount: () => countFundamentals(ctx.db, symbol, page, false) });
    },
  }),
  enhancedFundamentals: t.field({
    authScopes: { entitled: 'enhancedFundamentals' },
    // nullable: a caller without the entitlement gets an error here while the rest answers
    nullable: true,
    type: EnhancedFundamentalConnection,
    description: 'Enhanced fundamentals records of one symbol (spec 4.3), newest period first.',
    args: { ...symbolArg, ...listArgs },
    resolve: async (_root, { symbol: given, ...args }, ctx) => {
      const [symbol, page] = [symbolOf(given), pageArgs(args)];
      return connection({ ...(await enhancedPage(ctx, symbol, page)), totalCount: () => countFundamentals(ctx.db, symbol, page, true) });
    },
  }),
}));

builder.prismaObjectFields(Security, (t) => ({
  fundamentals: t.field({
    authScopes: { entitled: 'fundamentals' },
    // nullable: a caller without the entitlement gets an error here while the rest answers
    nullable: true,
    type: FundamentalConnection,
    description: "This security's lite fundamentals records, newest period first.",
    args: listArgs,
    resolve: async (security, args, ctx) => connection(await litePage(ctx, security.symbol, pageArgs(args))),
  }),
  enhancedFundamentals: t.field({
    authScopes: { entitled: 'enhancedFundamentals' },
    // nullable: a caller without the entitlement gets an error here while the rest answers
    nullable: true,
    type: EnhancedFundamentalConnection,
    description: "This security's enhanced fundamentals records, newest period first.",
    args: listArgs,
    resolve: async (security, args, ctx) => connection(await enhancedPage(ctx, security.symbol, pageArgs(args))),
  }),
}));
