import type { Db } from '../db.js';
import { Prisma, type CallSummary } from '../../generated/prisma/client.js';
import { afterWhere, decodeCursor, orderByOf, toPage, type Ordering, type Page } from './paging.js';
import { topPerKey } from './sql.js';

export type { CallSummary };

/** One entry of a summary's `participants` Json column. */
export interface CallParticipant {
  name: string;
  role: string;
  organization: string;
}

/** Bounds on callDate, both inclusive; each optional. */
export interface CallDateRange {
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface CallSummaryFilter extends CallDateRange {
  /** Upper-case ticker; absent means every company. */
  symbol?: string | undefined;
}

export interface CallSummaryPageArgs {
  first: number;
  after?: string | undefined;
}

/** Newest call first; the id breaks ties between calls at the same moment. */
const ORDERING: Ordering<CallSummary> = {
  tag: 'callSummary',
  columns: [
    { column: 'callDate', type: 'date', of: (c) => c.callDate },
    { column: 'id', type: 'int', of: (c) => c.id },
  ],
};
const DIRECTION = 'desc';

function whereOf(filter: CallSummaryFilter): Prisma.CallSummaryWhereInput {
  return {
    ...(filter.symbol !== undefined ? { symbol: filter.symbol } : {}),
    ...(filter.from || filter.to ? { callDate: { gte: filter.from, lte: filter.to } } : {}),
  };
}

/** Summaries newest first, in keyset pages; the count runs only when asked for. */
export async function callSummaryPage(db: Db, filter: CallSummaryFilter, args: CallSummaryPageArgs): Promise<Page<CallSummary>> {
  const match = whereOf(filter);
  const where = args.after ? { AND: [match, afterWhere(ORDERING.columns, decodeCursor(ORDERING, DIRECTION, args.after), DIRECTION)] } : match;
  const rows = await db.prisma.callSummary.findMany({ where, orderBy: orderByOf(ORDERING.columns, DIRECTION), take: args.first + 1 });
  return toPage(rows, args.first, ORDERING, DIRECTION, () => db.prisma.callSummary.count({ where: match }));
}

/** Page `page` (1-based) of `pageSize` summaries in the same order as `callSummaryPage`, with the total: for offset-paged REST clients. */
export async function callSummaryPageNumber(db: Db, filter: CallSummaryFilter, args: { page: number; pageSize: number }): Promise<{ nodes: CallSummary[]; totalCount: number }> {
  const where = whereOf(filter);
  const [nodes, totalCount] = await Promise.all([
    db.prisma.callSummary.findMany({ where, orderBy: orderByOf(ORDERING.columns, DIRECTION), skip: (args.page - 1) * args.pageSize, take: args.pageSize }),
    db.prisma.callSummary.count({ where }),
  ]);
  return { nodes, totalCount };
}

function rangeFilters(range: CallDateRange): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (range.from) out.push(Prisma.sql`"callDate" >= ${range.from}`);
  if (range.to) out.push(Prisma.sql`"callDate" <= ${range.to}`);
  return out;
}

/** One page per symbol, newest first, all in one statement (the same arguments for every symbol). */
export async function callSummaryPages(db: Db, symbols: readonly string[], args: CallDateRange & CallSummaryPageArgs): Promise<Map<string, Page<CallSummary>>> {
  const after = args.after ? decodeCursor(ORDERING, DIRECTION, args.after) : undefined;
  const rows = await topPerKey<CallSummary & Record<string, unknown>>(db, {
    table: 'CallSummary',
    keyColumn: 'symbol',
    keys: symbols,
    filters: rangeFilters(args),
    orderColumns: ORDERING.columns.map((c) => c.column),
    direction: DIRECTION,
    after,
    limit: args.first + 1,
  });
  return new Map([...rows].map(([symbol, list]) => [symbol as string, toPage(list, args.first, ORDERING, DIRECTION)]));
}
