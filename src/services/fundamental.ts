import type { Db } from '../db.js';
import { Prisma, type FiscalPeriod, type Fundamental, type FundamentalMetrics } from '../../generated/prisma/client.js';
import { decodeCursor, toPage, type Ordering, type Page } from './paging.js';
import { topPerKey } from './sql.js';

export type { FiscalPeriod, Fundamental, FundamentalMetrics };

/** An enhanced fundamentals record (spec 2.4): the lite row and its metrics. */
export type FundamentalWithMetrics = Fundamental & { metrics: FundamentalMetrics | null };

export const METRICS_INCLUDE = { metrics: true } as const satisfies Prisma.FundamentalInclude;

export interface FundamentalFilter {
  fiscalYear?: number | undefined;
  fiscalPeriod?: FiscalPeriod | undefined;
}

export interface FundamentalPageArgs extends FundamentalFilter {
  first: number;
  after?: string | undefined;
  /** Only records that have metrics, with their metrics (spec 2.4) instead of the lite record. */
  enhanced: boolean;
}

/** Newest first: by period end, then id (a fiscal year's FY record follows its Q4, so it comes first). */
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
 * One page of fundamentals records for each of many symbols, newest first: one statement for lite
 * records, two for enhanced ones (the rows, then the metrics of all of them).
 */
export async function fundamentalPages(db: Db, symbols: readonly string[], args: FundamentalPageArgs & { enhanced: true }): Promise<Map<string, Page<FundamentalWithMetrics>>>;
export async function fundamentalPages(db: Db, symbols: readonly string[], args: FundamentalPageArgs): Promise<Map<string, Page<Fundamental>>>;
export async function fundamentalPages(db: Db, symbols: readonly string[], args: FundamentalPageArgs): Promise<Map<string, Page<Fundamental>>> {
  const ordering = orderingOf(args.enhanced);
  const rows = await topPerKey<Fundamental & Record<string, unknown>>(db, {
    table: 'Fundamental',
    keyColumn: 'symbol',
    keys: symbols,
    filters: conditions(args, args.enhanced),
    orderColumns: ordering.columns.map((c) => c.column),
    direction: 'desc',
    after: args.after ? decodeCursor(ordering, 'desc', args.after) : undefined,
    limit: args.first + 1,
  });
  const lists = args.enhanced ? await attachMetrics(db, rows as Map<string, Fundamental[]>) : (rows as Map<string, Fundamental[]>);
  return new Map([...lists].map(([symbol, list]) => [symbol, toPage(list, args.first, ordering, 'desc')]));
}

async function attachMetrics(db: Db, lists: Map<string, Fundamental[]>): Promise<Map<string, FundamentalWithMetrics[]>> {
  const ids = [...lists.values()].flat().map((f) => f.id);
  const metrics = ids.length ? await db.prisma.fundamentalMetrics.findMany({ where: { fundamentalId: { in: ids } } }) : [];
  const byId = new Map(metrics.map((m) => [m.fundamentalId, m]));
  return new Map([...lists].map(([symbol, list]) => [symbol, list.map((f) => ({ ...f, metrics: byId.get(f.id) ?? null }))]));
}

/** How many records of a symbol match the filters (enhanced: only those with metrics). */
export function countFundamentals(db: Db, symbol: string, filter: FundamentalFilter, enhanced: boolean): Promise<number> {
  return db.prisma.fundamental.count({ where: whereOf(symbol, filter, enhanced) });
}

function whereOf(symbol: string, filter: FundamentalFilter, enhanced: boolean): Prisma.FundamentalWhereInput {
  return {
    symbol,
    ...(filter.fiscalYear !== undefined && { year: filter.fiscalYear }),
    ...(filter.fiscalPeriod !== undefined && { quarter: filter.fiscalPeriod }),
    ...(enhanced && { metrics: { isNot: null } }),
  };
}

/**
 * Page `page` (1-based) of `pageSize` records of one symbol, in the order of `fundamentalPages`
 * (newest period first, then id), with the total: for the page-numbered REST endpoints (spec
 * 4.3/4.4). Enhanced: only records with metrics, with their metrics.
 */
export async function fundamentalPageNumber(db: Db, symbol: string, filter: FundamentalFilter, args: { page: number; pageSize: number; enhanced: true }): Promise<{ nodes: FundamentalWithMetrics[]; totalCount: number }>;
export async function fundamentalPageNumber(db: Db, symbol: string, filter: FundamentalFilter, args: { page: number; pageSize: number; enhanced: boolean }): Promise<{ nodes: Fundamental[]; totalCount: number }>;
export async function fundamentalPageNumber(db: Db, symbol: string, filter: FundamentalFilter, args: { page: number; pageSize: number; enhanced: boolean }): Promise<{ nodes: Fundamental[]; totalCount: number }> {
  const where = whereOf(symbol, filter, args.enhanced);
  const [nodes, totalCount] = await Promise.all([
    db.prisma.fundamental.findMany({
      where,
      orderBy: [{ endPeriod: 'desc' }, { id: 'desc' }],
      skip: (args.page - 1) * args.pageSize,
      take: args.pageSize,
      ...(args.enhanced && { include: METRICS_INCLUDE }),
    }),
    db.prisma.fundamental.count({ where }),
  ]);
  return { nodes, totalCount };
}
