import type { Db } from '../db.js';
import { Prisma, type NewsSecurity, type NewsType } from '../../generated/prisma/client.js';
import { afterWhere, decodeCursor, orderByOf, toPage, type Ordering, type Page } from './paging.js';
import type { KeysetArgs } from './paging.js';
import { topPerKey } from './sql.js';

/** Every read of a news item loads its securities with it, in feed order. */
export const NEWS_INCLUDE = {
  securities: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.NewsItemInclude;

export type NewsItem = Prisma.NewsItemGetPayload<{ include: typeof NEWS_INCLUDE }>;
export type { NewsSecurity, NewsType };

export interface NewsFilter {
  /** The ticker the news is about (upper case, as stored). */
  symbol: string;
  type?: NewsType | undefined;
  shareClassFigi?: string | undefined;
  id?: number | undefined;
}

/** Newest first: (createdAt, id) descending. */
const ORDERING: Ordering<Pick<NewsItem, 'createdAt' | 'id'>> = {
  tag: 'news',
  columns: [
    { column: 'createdAt', type: 'date', of: (r) => r.createdAt },
    { column: 'id', type: 'int', of: (r) => r.id },
  ],
};

function whereOf(filter: NewsFilter): Prisma.NewsItemWhereInput {
  const where: Prisma.NewsItemWhereInput = { ticker: filter.symbol };
  if (filter.type !== undefined) where.type = filter.type;
  if (filter.shareClassFigi !== undefined) where.shareClassFigi = filter.shareClassFigi;
  if (filter.id !== undefined) where.id = filter.id;
  return where;
}

/** One keyset page of one symbol's news matching `filter`, newest first, with a lazy total count. */
export async function listNews(db: Db, filter: NewsFilter, args: KeysetArgs): Promise<Page<NewsItem>> {
  const where = whereOf(filter);
  const after = args.after ? afterWhere(ORDERING.columns, decodeCursor(ORDERING, 'desc', args.after), 'desc') : undefined;
  const rows = await db.prisma.newsItem.findMany({
    where: after ? { AND: [where, after] } : where,
    orderBy: orderByOf(ORDERING.columns, 'desc'),
    take: args.first + 1,
    include: NEWS_INCLUDE,
  });
  return toPage(rows, args.first, ORDERING, 'desc', () => db.prisma.newsItem.count({ where }));
}

/** Page `page` (1-based) of `pageSize` items in the same order as the keyset pages, and the total. */
export async function newsAtOffset(db: Db, filter: NewsFilter, page: number, pageSize: number): Promise<{ rows: NewsItem[]; total: number }> {
  const where = whereOf(filter);
  const [rows, total] = await Promise.all([
    db.prisma.newsItem.findMany({ where, orderBy: orderByOf(ORDERING.columns, 'desc'), skip: (page - 1) * pageSize, take: pageSize, include: NEWS_INCLUDE }),
    db.prisma.newsItem.count({ where }),
  ]);
  return { rows, total };
}

export interface TickerNewsArgs extends KeysetArgs {
  type?: NewsType | undefined;
}

type NewsItemRow = Omit<NewsItem, 'securities'> & Record<string, unknown>;

/** One page per ticker in two statements: the items (one UNION ALL), then their securities. */
export async function newsPages(db: Db, tickers: readonly string[], args: TickerNewsArgs): Promise<Map<string, Page<NewsItem>>> {
  const rows = await topPerKey<NewsItemRow>(db, {
    table: 'NewsItem',
    keyColumn: 'ticker',
    keys: tickers,
    // compared as text: PostgreSQL stores the type as an enum, and the parameter arrives as text
    filters: args.type ? [Prisma.sql`CAST("type" AS TEXT) = ${args.type}`] : [],
    orderColumns: ORDERING.columns.map((c) => c.column),
    direction: 'desc',
    after: args.after ? decodeCursor(ORDERING, 'desc', args.after) : undefined,
    limit: args.first + 1,
  });
  const securities = await securitiesOf(db, [...rows.values()].flat().map((r) => r.id));
  return new Map(
    [...rows].map(([ticker, list]) => {
      const items: NewsItem[] = list.map((r) => ({ ...r, securities: securities.get(r.id) ?? [] }));
      return [ticker as string, toPage(items, args.first, ORDERING, 'desc')];
    }),
  );
}

async function securitiesOf(db: Db, newsItemIds: readonly number[]): Promise<Map<number, NewsSecurity[]>> {
  const out = new Map<number, NewsSecurity[]>();
  if (newsItemIds.length === 0) return out;
  const rows = await db.prisma.newsSecurity.findMany({ where: { newsItemId: { in: [...newsItemIds] } }, orderBy: [{ newsItemId: 'asc' }, { position: 'asc' }] });
  for (const row of rows) {
    const list = out.get(row.newsItemId);
    if (list) list.push(row);
    else out.set(row.newsItemId, [row]);
  }
  return out;
}

/** The integer ids in an association column (a JSON array); anything else in it is skipped. */
export function associatedIds(value: Prisma.JsonValue): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v)) : [];
}
