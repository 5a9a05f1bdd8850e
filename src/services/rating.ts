import type { Db } from '../db/client.js';
import { Prisma, type Rating } from '../../generated/prisma/client.js';
import {
  keysetPage,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';
import { anyOf, readSql } from '../db/sql.js';
import { changedFields, insertRows, sameFields, writeBatch } from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

export type { Rating };

/** Conditions that apply to one security's ratings as much as to the whole list. */
export interface RatingConditions {
  /** Exact matches in any case, as symbols are (docs/rest.md#what-the-routes-accept). */
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

/** The conditions on the Rating table, for every list of ratings. */
function conditionsSql(c: RatingConditions): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  // lower() on both sides: `Morgan Stanley`, `morgan stanley` and `MORGAN STANLEY` name one firm
  if (c.exchange !== undefined) out.push(Prisma.sql`lower("exchange") = lower(${c.exchange})`);
  if (c.company !== undefined) out.push(Prisma.sql`lower("company") = lower(${c.company})`);
  if (c.firm !== undefined) out.push(Prisma.sql`lower("firm") = lower(${c.firm})`);
  if (c.from) out.push(Prisma.sql`"createdAt" >= ${c.from}`);
  if (c.to) out.push(Prisma.sql`"createdAt" <= ${c.to}`);
  return out;
}

function ratingList(filter: RatingFilter): SortedList<Rating> {
  const filters = conditionsSql(filter);
  if (filter.id !== undefined) filters.push(Prisma.sql`"id" = ${filter.id}`);
  if (filter.symbols) filters.push(anyOf('"ticker"', filter.symbols));
  return { table: 'Rating', ordering: ORDERING, direction: 'desc', filters };
}

/** One keyset page of the ratings matching `filter`, newest first, with a lazy total count. */
export function ratingPage(db: Db, filter: RatingFilter, args: KeysetArgs): Promise<Page<Rating>> {
  return keysetPage(db, ratingList(filter), args);
}

/** Page `page` of the ratings matching `filter`, in the order of `ratingPage`, and their number. */
export function ratingAtPage(db: Db, filter: RatingFilter, args: PageNumberArgs): Promise<NumberedPage<Rating>> {
  return numberedPage(db, ratingList(filter), args);
}

/** Each ticker's ratings that meet `conditions`, newest first: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function ratingsByTicker(conditions: RatingConditions): KeyedList<Rating> {
  return {
    table: 'Rating',
    keyColumn: 'ticker',
    ordering: ORDERING,
    direction: 'desc',
    filters: conditionsSql(conditions),
  };
}

/** For loaders: ratings by id; ids that do not exist are missing from the map. */
export async function ratingsByIds(db: Db, ids: readonly number[]): Promise<Map<number, Rating>> {
  if (ids.length === 0) return new Map();
  const rows = await readSql<Rating>(db, Prisma.sql`SELECT * FROM "Rating" WHERE ${anyOf('"id"', ids)}`);
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
      await insertRows(tx, 'Rating', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes)
        await tx.rating.updateMany({ where: { id: row.id }, data: changedFields(row, stored, RATING_FIELDS) });
    },
  });
}
