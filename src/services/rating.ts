import type { Db } from '../db/client.js';
import { Prisma, type Rating } from '../../generated/prisma/client.js';
import { afterWhere, decodeCursor, orderByOf, toPage, type Ordering, type Page } from '../db/keyset.js';
import type { KeysetArgs } from '../db/keyset.js';
import { topPerKey } from '../db/sql.js';
import { changedFields, insertRows, sameFields, writeBatch } from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

export type { Rating };

/** Conditions that apply to one security's ratings as much as to the whole list. */
export interface RatingConditions {
  /** Exact matches. */
  exchange?: string | undefined;
  company?: string | undefined;
  firm?: string | undefined;
  /** Inclusive bounds on createdAt. */
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface RatingFilter extends RatingConditions {
  id?: number | undefined;
  /** Ratings of any of these tickers (upper case, as stored). */
  symbols?: readonly string[] | undefined;
}

/** Newest first: (createdAt, id) descending. */
const ORDERING: Ordering<Rating> = {
  tag: 'rating',
  columns: [
    { column: 'createdAt', type: 'date', of: (r) => r.createdAt },
    { column: 'id', type: 'int', of: (r) => r.id },
  ],
};

function whereOf(filter: RatingFilter): Prisma.RatingWhereInput {
  const where: Prisma.RatingWhereInput = {};
  if (filter.id !== undefined) where.id = filter.id;
  if (filter.exchange !== undefined) where.exchange = filter.exchange;
  if (filter.company !== undefined) where.company = filter.company;
  if (filter.firm !== undefined) where.firm = filter.firm;
  if (filter.symbols) where.ticker = { in: [...filter.symbols] };
  if (filter.from || filter.to) where.createdAt = { gte: filter.from, lte: filter.to };
  return where;
}

/** One keyset page of the ratings matching `filter`, newest first, with a lazy total count. */
export async function listRatings(db: Db, filter: RatingFilter, args: KeysetArgs): Promise<Page<Rating>> {
  const where = whereOf(filter);
  const after = args.after ? afterWhere(ORDERING.columns, decodeCursor(ORDERING, 'desc', args.after), 'desc') : undefined;
  const rows = await db.prisma.rating.findMany({
    where: after ? { AND: [where, after] } : where,
    orderBy: orderByOf(ORDERING.columns, 'desc'),
    take: args.first + 1,
  });
  return toPage(rows, args.first, ORDERING, 'desc', () => db.prisma.rating.count({ where }));
}

/** Page `page` (1-based) of `pageSize` ratings in the same order as the keyset pages, and the total. */
export async function ratingsAtOffset(db: Db, filter: RatingFilter, page: number, pageSize: number): Promise<{ rows: Rating[]; total: number }> {
  const where = whereOf(filter);
  const [rows, total] = await Promise.all([
    db.prisma.rating.findMany({ where, orderBy: orderByOf(ORDERING.columns, 'desc'), skip: (page - 1) * pageSize, take: pageSize }),
    db.prisma.rating.count({ where }),
  ]);
  return { rows, total };
}

function conditionsSql(c: RatingConditions): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (c.exchange !== undefined) out.push(Prisma.sql`"exchange" = ${c.exchange}`);
  if (c.company !== undefined) out.push(Prisma.sql`"company" = ${c.company}`);
  if (c.firm !== undefined) out.push(Prisma.sql`"firm" = ${c.firm}`);
  if (c.from) out.push(Prisma.sql`"createdAt" >= ${c.from}`);
  if (c.to) out.push(Prisma.sql`"createdAt" <= ${c.to}`);
  return out;
}

/** One page per ticker, all in one statement (the same conditions and arguments for every ticker). */
export async function ratingPages(db: Db, tickers: readonly string[], conditions: RatingConditions, args: KeysetArgs): Promise<Map<string, Page<Rating>>> {
  const rows = await topPerKey<Rating & Record<string, unknown>>(db, {
    table: 'Rating',
    keyColumn: 'ticker',
    keys: tickers,
    filters: conditionsSql(conditions),
    orderColumns: ORDERING.columns.map((c) => c.column),
    direction: 'desc',
    after: args.after ? decodeCursor(ORDERING, 'desc', args.after) : undefined,
    limit: args.first + 1,
  });
  return new Map([...rows].map(([ticker, list]) => [ticker as string, toPage(list, args.first, ORDERING, 'desc')]));
}

/** For loaders: ratings by id; ids that do not exist are missing from the map. */
export async function ratingsByIds(db: Db, ids: readonly number[]): Promise<Map<number, Rating>> {
  if (ids.length === 0) return new Map();
  const rows = await db.prisma.rating.findMany({ where: { id: { in: [...ids] } } });
  return new Map(rows.map((r) => [r.id, r]));
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type RatingInput = Rating;

const RATING_FIELDS = Object.values(Prisma.RatingScalarFieldEnum);

/** Upserts ratings by id in one transaction. */
export function writeRatings(db: Db, rows: readonly RatingInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => String(r.id),
    load: (tx, batch) => tx.rating.findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => String(s.id),
    same: (r, s) => sameFields(r, s, RATING_FIELDS),
    async insert(tx, batch) {
      await insertRows(tx, db, 'Rating', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) await tx.rating.updateMany({ where: { id: row.id }, data: changedFields(row, stored, RATING_FIELDS) });
    },
  });
}
