import type { Db } from '../db/client.js';
import { Prisma, type NewsSecurity, type NewsType } from '../../generated/prisma/client.js';
import {
  keysetPage,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';
import { childRows } from '../db/sql.js';
import {
  changedFields,
  claimIds,
  insertRows,
  sameChildren,
  sameFields,
  LOAD_CHUNK,
  writeBatchWithInserted,
} from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

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

/** The conditions on the NewsItem table, for every list of news (the ticker aside). */
function conditionsSql(filter: Omit<NewsFilter, 'symbol'>): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  // compared as text: PostgreSQL stores the type as an enum, and the parameter arrives as text
  if (filter.type !== undefined) out.push(Prisma.sql`CAST("type" AS TEXT) = ${filter.type}`);
  // FIGIs are stored upper-case; a filter takes any case (REST and GraphQL alike)
  if (filter.shareClassFigi !== undefined)
    out.push(Prisma.sql`"shareClassFigi" = ${filter.shareClassFigi.toUpperCase()}`);
  if (filter.id !== undefined) out.push(Prisma.sql`"id" = ${filter.id}`);
  return out;
}

function newsList(db: Db, filter: NewsFilter): SortedList<NewsItem> {
  return {
    table: 'NewsItem',
    ordering: ORDERING,
    direction: 'desc',
    filters: [Prisma.sql`"ticker" = ${filter.symbol}`, ...conditionsSql(filter)],
    complete: async (rows) => {
      const securities = await newsSecurities(
        db,
        rows.map((r) => r.id as number),
      );
      return rows.map((r) => ({
        ...(r as Omit<NewsItem, 'securities'>),
        securities: securities.get(r.id as number) ?? [],
      }));
    },
  };
}

/** One keyset page of one symbol's news matching `filter`, newest first, with a lazy total count. */
export function newsPage(db: Db, filter: NewsFilter, args: KeysetArgs): Promise<Page<NewsItem>> {
  return keysetPage(db, newsList(db, filter), args);
}

/** Page `page` of the news matching `filter`, in the order of `newsPage`, and their number. */
export function newsAtPage(db: Db, filter: NewsFilter, args: PageNumberArgs): Promise<NumberedPage<NewsItem>> {
  return numberedPage(db, newsList(db, filter), args);
}

export type TickerNewsFilter = Pick<NewsFilter, 'type'>;

/** A news item without its securities. */
export type NewsItemRow = Omit<NewsItem, 'securities'> & Record<string, unknown>;

/**
 * Each ticker's news items that meet `filter`, newest first, without their securities
 * (`newsSecurities` loads them for the queries that read them): a keyed list (services/paging.ts),
 * and a row tree's level (graphql/plan/).
 */
export function newsByTicker(filter: TickerNewsFilter): KeyedList<NewsItemRow> {
  return {
    table: 'NewsItem',
    keyColumn: 'ticker',
    ordering: ORDERING as Ordering<NewsItemRow>,
    direction: 'desc',
    filters: conditionsSql(filter),
  };
}

/** For loaders: the securities of each news item, in feed order (one statement). */
export function newsSecurities(db: Db, newsItemIds: readonly number[]): Promise<Map<number, NewsSecurity[]>> {
  return childRows<NewsSecurity>(db, 'NewsSecurity', 'newsItemId', newsItemIds);
}

/** The integer ids in an association column (a JSON array); anything else in it is skipped. */
export function associatedIds(value: Prisma.JsonValue): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v)) : [];
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type NewsSecurityInput = Omit<Prisma.NewsSecurityCreateManyInput, 'newsItemId' | 'position'>;

/**
 * One news item as an import writes it. `securities` undefined (the record left the key out, as
 * `securities=false` does) keeps the stored ones; a list replaces them when anything changed.
 */
export type NewsInput = Omit<
  NewsItem,
  'securities' | 'associatedPressReleases' | 'associatedRatings' | 'associatedTranscripts'
> & {
  associatedPressReleases: number[];
  associatedRatings: Prisma.InputJsonValue[];
  associatedTranscripts: Prisma.InputJsonValue[];
  securities?: NewsSecurityInput[] | undefined;
};

// the id is not compared: a stored item keeps its id (see writeNews)
const NEWS_FIELDS = Object.values(Prisma.NewsItemScalarFieldEnum).filter((c) => c !== 'id');
const NEWS_SECURITY_FIELDS = [
  'figi',
  'name',
  'mic',
  'exchcode',
  'ticker',
  'compositefigi',
  'securitytype',
  'marketsector',
  'shareclassfigi',
] as const;

const newsData = ({ id: _, securities: _s, ...row }: NewsInput) => row;
const securityRows = (newsItemId: number, row: NewsInput) =>
  (row.securities ?? []).map((s, position) => ({ ...s, newsItemId, position }));

/** As stored, with their securities: what a new item's event carries. */
export async function newsByNewsIds(db: Db, newsIds: readonly string[]): Promise<NewsItem[]> {
  const rows: NewsItem[] = [];
  // chunked: Prisma does not split the IN list that loads the included child rows
  for (let start = 0; start < newsIds.length; start += LOAD_CHUNK) {
    const chunk = newsIds.slice(start, start + LOAD_CHUNK);
    rows.push(
      ...(await db.prisma.newsItem.findMany({
        where: { newsId: { in: chunk } },
        orderBy: { id: 'asc' },
        include: NEWS_INCLUDE,
      })),
    );
  }
  return rows;
}

/**
 * Upserts news items by news_id in one transaction, and names the ones it inserted. A new item
 * takes the record's `id` when no other item holds it, else the next free one; a stored item keeps
 * its id. The press releases, ratings and transcripts an item names are plain ids (no foreign
 * key): an item naming one this database does not hold still imports.
 */
export function writeNews(db: Db, rows: readonly NewsInput[]): Promise<WriteCounts & { insertedRows: NewsInput[] }> {
  return writeBatchWithInserted<NewsInput, NewsItem>(db, rows, {
    key: (r) => r.newsId,
    load: (tx, batch) =>
      tx.newsItem.findMany({ where: { newsId: { in: batch.map((r) => r.newsId) } }, include: NEWS_INCLUDE }),
    storedKey: (s) => s.newsId,
    same: (r, s) =>
      sameFields(r, s, NEWS_FIELDS) &&
      (r.securities === undefined || sameChildren(r.securities, s.securities, NEWS_SECURITY_FIELDS)),
    async insert(tx, batch) {
      const { withId, without } = await claimIds(
        batch,
        (r) => r.id,
        async (ids) =>
          (await tx.newsItem.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id),
      );
      if (without.length) {
        const top = (await tx.newsItem.aggregate({ _max: { id: true } }))._max.id ?? 0;
        let next = Math.max(top, ...withId.map((w) => w.id)) + 1;
        for (const row of without) withId.push({ row, id: next++ });
      }
      await insertRows(
        tx,
        'NewsItem',
        withId.map(({ row, id }) => ({ ...newsData(row), id })),
      );
      await insertRows(
        tx,
        'NewsSecurity',
        withId.flatMap(({ row, id }) => securityRows(id, row)),
      );
    },
    async update(tx, changes) {
      for (const { row, stored } of changes)
        await tx.newsItem.updateMany({
          where: { id: stored.id },
          data: changedFields(newsData(row), stored, NEWS_FIELDS),
        });
      const replaced = changes.filter((c) => c.row.securities !== undefined);
      if (replaced.length === 0) return;
      await tx.newsSecurity.deleteMany({ where: { newsItemId: { in: replaced.map((c) => c.stored.id) } } });
      await insertRows(
        tx,
        'NewsSecurity',
        replaced.flatMap((c) => securityRows(c.stored.id, c.row)),
      );
    },
  });
}
