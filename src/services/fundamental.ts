import type { Db } from '../db/client.js';
import { FISCAL_YEARS, isFiscalYear } from '../domain/fiscal.js';
import { AppError } from '../errors.js';
import { Prisma, type FiscalPeriod, type Fundamental, type FundamentalMetrics } from '../../generated/prisma/client.js';
import type { LitigationInsight, MdnaInsight, RiskFactorsInsight } from '../domain/insights.js';
import {
  countRows,
  keysetPages,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';

export type { FiscalPeriod, Fundamental, FundamentalMetrics };

/** An enhanced fundamentals record: the lite row and its metrics. */
export type FundamentalWithMetrics = Fundamental & { metrics: FundamentalMetrics | null };

export const METRICS_INCLUDE = { metrics: true } as const satisfies Prisma.FundamentalInclude;

export interface FundamentalFilter {
  fiscalYear?: number | undefined;
  fiscalPeriod?: FiscalPeriod | undefined;
}

/** The records of one symbol that a page-numbered list reads. */
export interface SymbolFundamentalFilter extends FundamentalFilter {
  symbol: string;
}

/**
 * Newest first: by period end, then id (a fiscal year's FY record follows its Q4, so it comes
 * first). Enhanced lists hold only records with metrics: their cursors are their own.
 */
function orderingOf(enhanced: boolean): Ordering<Fundamental> {
  return {
    tag: enhanced ? 'fundamental.enhanced' : 'fundamental',
    columns: [
      { column: 'endPeriod', type: 'string', of: (f) => f.endPeriod },
      { column: 'id', type: 'int', of: (f) => f.id },
    ],
  };
}

const HAS_METRICS = Prisma.sql`EXISTS (SELECT 1 FROM "FundamentalMetrics" m WHERE m."fundamentalId" = "Fundamental"."id")`;

function conditions(filter: FundamentalFilter, enhanced: boolean): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (filter.fiscalYear !== undefined) out.push(Prisma.sql`"year" = ${filter.fiscalYear}`);
  if (filter.fiscalPeriod !== undefined) out.push(Prisma.sql`"quarter" = ${filter.fiscalPeriod}`);
  if (enhanced) out.push(HAS_METRICS);
  return out;
}

/**
 * Every list of this service reads its filter through here: a fiscal year outside the years every
 * fiscal filter takes (domain/fiscal.ts; REST refuses it as a parameter) is a BAD_REQUEST.
 */
function checkFilter(filter: FundamentalFilter): void {
  if (filter.fiscalYear !== undefined && !isFiscalYear(filter.fiscalYear)) {
    throw new AppError(
      'BAD_REQUEST',
      `argument "fiscalYear" must be an integer from ${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}; got ${filter.fiscalYear}`,
    );
  }
}

function keyedList(filter: FundamentalFilter, enhanced: boolean): KeyedList<Fundamental> {
  checkFilter(filter);
  return {
    table: 'Fundamental',
    keyColumn: 'symbol',
    ordering: orderingOf(enhanced),
    direction: 'desc',
    filters: conditions(filter, enhanced),
  };
}

/** Each symbol's lite records that meet `filter`, newest first: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function fundamentalsBySymbol(filter: FundamentalFilter): KeyedList<Fundamental> {
  return keyedList(filter, false);
}

/**
 * One page of enhanced records (only those with metrics, with their metrics) for each of many
 * symbols, newest first, in two statements: the rows, then the metrics of all of them.
 */
export async function enhancedFundamentalPages(
  db: Db,
  symbols: readonly string[],
  filter: FundamentalFilter,
  args: KeysetArgs,
): Promise<Map<string, Page<FundamentalWithMetrics>>> {
  const pages = await keysetPages(db, keyedList(filter, true), symbols, args);
  const withMetrics = await metricsOf(
    db,
    [...pages.values()].flatMap((page) => page.nodes),
  );
  let next = 0;
  // the page keeps its cursors: metrics hold no column of the ordering
  return new Map(
    [...pages].map(([symbol, page]) => [symbol, { ...page, nodes: page.nodes.map(() => withMetrics[next++]!) }]),
  );
}

/** The records with their metrics, in one statement. */
async function metricsOf(db: Db, records: readonly Fundamental[]): Promise<FundamentalWithMetrics[]> {
  const ids = records.map((f) => f.id);
  const metrics = ids.length
    ? await db.prisma.fundamentalMetrics.findMany({ where: { fundamentalId: { in: ids } } })
    : [];
  const byId = new Map(metrics.map((m) => [m.fundamentalId, m]));
  return records.map((f) => ({ ...f, metrics: byId.get(f.id) ?? null }));
}

/** How many records of a symbol match the filters (enhanced: only those with metrics). */
export function countFundamentals(
  db: Db,
  symbol: string,
  filter: FundamentalFilter,
  enhanced: boolean,
): Promise<number> {
  return countRows(db, symbolList(db, { symbol, ...filter }, enhanced));
}

/** One symbol's records that meet the filters, in the order of its keyed list: for page numbers and counts. */
function symbolList<Row extends Fundamental>(
  db: Db,
  filter: SymbolFundamentalFilter,
  enhanced: boolean,
): SortedList<Row> {
  const { table, ordering, direction, filters = [] } = keyedList(filter, enhanced);
  return {
    table,
    ordering,
    direction,
    filters: [Prisma.sql`"symbol" = ${filter.symbol}`, ...filters],
    ...(enhanced && {
      complete: (rows: Record<string, unknown>[]) => metricsOf(db, rows as Fundamental[]) as Promise<never>,
    }),
  };
}

/** Page `page` of one symbol's lite records, in the order of `fundamentalsBySymbol`, and their number. */
export function fundamentalAtPage(
  db: Db,
  filter: SymbolFundamentalFilter,
  args: PageNumberArgs,
): Promise<NumberedPage<Fundamental>> {
  return numberedPage(db, symbolList<Fundamental>(db, filter, false), args);
}

/** Page `page` of one symbol's enhanced records (only those with metrics, with them), in the order of `enhancedFundamentalPages`. */
export function enhancedFundamentalAtPage(
  db: Db,
  filter: SymbolFundamentalFilter,
  args: PageNumberArgs,
): Promise<NumberedPage<FundamentalWithMetrics>> {
  return numberedPage(db, symbolList<FundamentalWithMetrics>(db, filter, true), args);
}

// ------------------------------------------------------------------ columns -> insights (services/fundamental-write.ts writes them)

/** The insight columns of FundamentalMetrics. A group is null as a whole: its count column says so. */
export type InsightColumns = Pick<
  FundamentalMetrics,
  | 'riskFactorCount'
  | 'riskTopThemes'
  | 'riskAverageSentimentScore'
  | 'riskMostNegativeHeading'
  | 'riskMostNegativeSentiment'
  | 'mdnaForwardLookingTermCount'
  | 'mdnaForwardToHistoricalRatio'
  | 'mdnaToneScore'
  | 'mdnaKeyTopics'
  | 'litigationCount'
  | 'litigationRecentHeadings'
>;

const strings = (json: Prisma.JsonValue): string[] =>
  Array.isArray(json) ? json.filter((v): v is string => typeof v === 'string') : [];

export function riskFactorsOf(m: InsightColumns): RiskFactorsInsight | null {
  if (m.riskFactorCount === null) return null;
  return {
    count: m.riskFactorCount,
    topThemes: strings(m.riskTopThemes),
    averageSentimentScore: m.riskAverageSentimentScore,
    mostNegativeRisk:
      m.riskMostNegativeHeading === null || m.riskMostNegativeSentiment === null
        ? null
        : { heading: m.riskMostNegativeHeading, sentiment: m.riskMostNegativeSentiment },
  };
}

export function mdnaOf(m: InsightColumns): MdnaInsight | null {
  if (m.mdnaForwardLookingTermCount === null) return null;
  return {
    forwardLookingTermCount: m.mdnaForwardLookingTermCount,
    forwardToHistoricalRatio: m.mdnaForwardToHistoricalRatio,
    // a stored group always has its tone; 0 (neutral) only guards a hand-edited row
    toneScore: m.mdnaToneScore ?? 0,
    keyTopics: strings(m.mdnaKeyTopics),
  };
}

export function litigationOf(m: InsightColumns): LitigationInsight | null {
  if (m.litigationCount === null) return null;
  return { count: m.litigationCount, recentHeadings: strings(m.litigationRecentHeadings) };
}
