import type { Db } from '../db/client.js';
import { Prisma, type Split } from '../../generated/prisma/client.js';
import {
  keysetPage,
  type Direction,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { changedFields, insertRows, sameFields, writeBatch, type WriteCounts } from '../db/upsert.js';

export type { Split };

/**
 * Bounds on one column, as Massive's `x`, `x.gte`, `x.gt`, `x.lte` and `x.lt` give them; every
 * bound given applies. Dates are text yyyy-mm-dd, so text order is date order.
 */
export interface Bounds<T> {
  eq?: T | undefined;
  gte?: T | undefined;
  gt?: T | undefined;
  lte?: T | undefined;
  lt?: T | undefined;
}

const OPERATORS = { eq: '=', gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;

/** The conditions `bounds` puts on `column` (a column of the table read). */
export function boundConditions<T>(column: string, bounds: Bounds<T> | undefined): Prisma.Sql[] {
  if (!bounds) return [];
  return (Object.keys(OPERATORS) as (keyof typeof OPERATORS)[]).flatMap((k) =>
    bounds[k] === undefined ? [] : [Prisma.sql`${Prisma.raw(`"${column}" ${OPERATORS[k]}`)} ${bounds[k]}`],
  );
}

/** The most splits one page holds (REST `limit`, as Massive's); GraphQL pages hold PAGE_SIZES.records. */
export const SPLIT_PAGE = { default: 10, max: 1000 } as const;

export interface SplitFilter {
  /** Upper case, as stored. */
  ticker?: Bounds<string> | undefined;
  executionDate?: Bounds<string> | undefined;
  /** true: only reverse splits (more shares before than after); false: only the others. */
  reverseSplit?: boolean | undefined;
}

/** Massive's sort fields of GET /v3/reference/splits. */
export const SPLIT_SORTS = ['execution_date', 'ticker'] as const;
export type SplitSortField = (typeof SPLIT_SORTS)[number];

export interface SplitSort {
  field: SplitSortField;
  direction: Direction;
}

/** Newest first, as Massive answers without `order` and as every list of a security's records is. */
export const DEFAULT_SPLIT_SORT: SplitSort = { field: 'execution_date', direction: 'desc' };

const executionDate = { column: 'executionDate', type: 'string', of: (s: Split) => s.executionDate } as const;
const id = { column: 'id', type: 'string', of: (s: Split) => s.id } as const;

/** One ordering per sort field, each ending in Massive's id, so a cursor names one row. */
const ORDERINGS: Record<SplitSortField, Ordering<Split>> = {
  execution_date: { tag: 'split.execution_date', columns: [executionDate, id] },
  ticker: {
    tag: 'split.ticker',
    columns: [{ column: 'ticker', type: 'string', of: (s) => s.ticker }, executionDate, id],
  },
};

function filterConditions(filter: SplitFilter): Prisma.Sql[] {
  const out = [...boundConditions('ticker', filter.ticker), ...boundConditions('executionDate', filter.executionDate)];
  if (filter.reverseSplit === true) out.push(Prisma.sql`"splitFrom" > "splitTo"`);
  if (filter.reverseSplit === false) out.push(Prisma.sql`"splitFrom" <= "splitTo"`);
  return out;
}

function splitList(filter: SplitFilter, sort: SplitSort): SortedList<Split> {
  return {
    table: 'Split',
    ordering: ORDERINGS[sort.field],
    direction: sort.direction,
    filters: filterConditions(filter),
  };
}

/** One keyset page of the splits matching `filter`, in `sort` (newest first by default), with a lazy total. */
export function splitPage(
  db: Db,
  filter: SplitFilter,
  args: KeysetArgs & { sort?: SplitSort | undefined },
): Promise<Page<Split>> {
  return keysetPage(db, splitList(filter, args.sort ?? DEFAULT_SPLIT_SORT), args);
}

/** Each ticker's splits, newest first: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function splitsByTicker(): KeyedList<Split> {
  return { table: 'Split', keyColumn: 'ticker', ordering: ORDERINGS.execution_date, direction: 'desc', filters: [] };
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type SplitInput = Split;

const SPLIT_FIELDS = Object.values(Prisma.SplitScalarFieldEnum);

/** Upserts splits by Massive's id in one transaction. */
export function writeSplits(db: Db, rows: readonly SplitInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => r.id,
    load: (tx, batch) => tx.split.findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => s.id,
    same: (r, s) => sameFields(r, s, SPLIT_FIELDS),
    async insert(tx, batch) {
      await insertRows(tx, 'Split', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        // the table keeps no updatedAt
        const { updatedAt: _, ...data } = changedFields(row, stored, SPLIT_FIELDS);
        await tx.split.updateMany({ where: { id: row.id }, data });
      }
    },
  });
}
