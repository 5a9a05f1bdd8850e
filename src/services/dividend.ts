import type { Db } from '../db/client.js';
import { Prisma, type Dividend } from '../../generated/prisma/client.js';
import type { DividendType } from '../domain/records/dividend.js';
import {
  countRows,
  seekOf,
  toPage,
  type Direction,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { readSql } from '../db/sql.js';
import { changedFields, insertRows, sameFields, writeBatch, type WriteCounts } from '../db/upsert.js';
import { boundConditions, type Bounds } from './split.js';

export type { Dividend, DividendType };

/** The most dividends one page holds (REST `limit`, as Massive's); GraphQL pages hold PAGE_SIZES.records. */
export const DIVIDEND_PAGE = { default: 10, max: 1000 } as const;

export interface DividendFilter {
  /** Upper case, as stored. */
  ticker?: Bounds<string> | undefined;
  exDividendDate?: Bounds<string> | undefined;
  recordDate?: Bounds<string> | undefined;
  declarationDate?: Bounds<string> | undefined;
  payDate?: Bounds<string> | undefined;
  cashAmount?: Bounds<number> | undefined;
  frequency?: number | undefined;
  dividendType?: DividendType | undefined;
}

/** Massive's sort fields of GET /v3/reference/dividends. */
export const DIVIDEND_SORTS = [
  'ex_dividend_date',
  'pay_date',
  'declaration_date',
  'record_date',
  'cash_amount',
  'ticker',
] as const;
export type DividendSortField = (typeof DIVIDEND_SORTS)[number];

export interface DividendSort {
  field: DividendSortField;
  direction: Direction;
}

/** Newest first, as Massive answers without `order` and as every list of a security's records is. */
export const DEFAULT_DIVIDEND_SORT: DividendSort = { field: 'ex_dividend_date', direction: 'desc' };

/**
 * A sort column: the optional dates are read as '' where a dividend has none, so the keyset
 * comparison (which NULL would make unknown) keeps those rows: first ascending, last descending.
 */
interface SortColumn {
  column: keyof Dividend & string;
  type: 'string' | 'float';
  optional?: true;
}

const SORT_COLUMNS: Record<DividendSortField, readonly SortColumn[]> = {
  ex_dividend_date: [{ column: 'exDividendDate', type: 'string' }],
  pay_date: [{ column: 'payDate', type: 'string', optional: true }],
  declaration_date: [{ column: 'declarationDate', type: 'string', optional: true }],
  record_date: [{ column: 'recordDate', type: 'string', optional: true }],
  cash_amount: [{ column: 'cashAmount', type: 'float' }],
  ticker: [
    { column: 'ticker', type: 'string' },
    { column: 'exDividendDate', type: 'string' },
  ],
};

/** The sort's columns, each ending in Massive's id so a cursor names one row, and their SQL. */
const SORTS = Object.fromEntries(
  Object.entries(SORT_COLUMNS).map(([field, sortColumns]) => {
    const columns = [...sortColumns, { column: 'id', type: 'string' } as SortColumn];
    const ordering: Ordering<Dividend> = {
      tag: `dividend.${field}`,
      columns: columns.map((c) => ({
        column: c.column,
        type: c.type,
        of: (d: Dividend) => (c.optional ? (d[c.column] ?? '') : d[c.column]),
      })),
    };
    const sql = columns.map((c) => (c.optional ? `COALESCE("${c.column}", '')` : `"${c.column}"`));
    return [field, { ordering, sql }];
  }),
) as unknown as Record<DividendSortField, { ordering: Ordering<Dividend>; sql: readonly string[] }>;

function filterConditions(filter: DividendFilter): Prisma.Sql[] {
  const out = [
    ...boundConditions('ticker', filter.ticker),
    ...boundConditions('exDividendDate', filter.exDividendDate),
    ...boundConditions('recordDate', filter.recordDate),
    ...boundConditions('declarationDate', filter.declarationDate),
    ...boundConditions('payDate', filter.payDate),
    ...boundConditions('cashAmount', filter.cashAmount),
  ];
  if (filter.frequency !== undefined) out.push(Prisma.sql`"frequency" = ${filter.frequency}`);
  if (filter.dividendType !== undefined) out.push(Prisma.sql`"dividendType" = ${filter.dividendType}`);
  return out;
}

/**
 * One keyset page of the dividends matching `filter`, in `sort` (newest first by default), with a
 * lazy total: db/keyset.ts's read, its order columns read through `SORTS`' expressions.
 */
export async function dividendPage(
  db: Db,
  filter: DividendFilter,
  args: KeysetArgs & { sort?: DividendSort | undefined },
): Promise<Page<Dividend>> {
  const { field, direction } = args.sort ?? DEFAULT_DIVIDEND_SORT;
  const { ordering, sql } = SORTS[field];
  const seek = seekOf(ordering, direction, args);
  const tuple = Prisma.raw(`(${sql.join(', ')})`);
  const [past, short] = seek.direction === 'asc' ? ['>', '<'] : ['<', '>'];
  const conditions = filterConditions(filter);
  if (seek.after) conditions.push(Prisma.sql`${tuple} ${Prisma.raw(past)} (${Prisma.join(seek.after)})`);
  if (seek.before) conditions.push(Prisma.sql`${tuple} ${Prisma.raw(short)} (${Prisma.join(seek.before)})`);
  const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  const by = Prisma.raw(sql.map((s) => `${s} ${seek.direction.toUpperCase()}`).join(', '));
  const rows = await readSql<Dividend>(
    db,
    Prisma.sql`SELECT * FROM "Dividend" ${where} ORDER BY ${by} LIMIT ${seek.limit}`,
  );
  const list: SortedList<Dividend> = { table: 'Dividend', ordering, direction, filters: filterConditions(filter) };
  return toPage(rows, args, ordering, direction, () => countRows(db, list));
}

/** Each ticker's dividends, newest first by ex-dividend date: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function dividendsByTicker(): KeyedList<Dividend> {
  return {
    table: 'Dividend',
    keyColumn: 'ticker',
    ordering: SORTS.ex_dividend_date.ordering,
    direction: 'desc',
    filters: [],
  };
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type DividendInput = Dividend;

const DIVIDEND_FIELDS = Object.values(Prisma.DividendScalarFieldEnum);

/** Upserts dividends by Massive's id in one transaction. */
export function writeDividends(db: Db, rows: readonly DividendInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => r.id,
    load: (tx, batch) => tx.dividend.findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => s.id,
    same: (r, s) => sameFields(r, s, DIVIDEND_FIELDS),
    async insert(tx, batch) {
      await insertRows(tx, 'Dividend', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        // the table keeps no updatedAt
        const { updatedAt: _, ...data } = changedFields(row, stored, DIVIDEND_FIELDS);
        await tx.dividend.updateMany({ where: { id: row.id }, data });
      }
    },
  });
}
