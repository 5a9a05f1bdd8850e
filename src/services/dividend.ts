import type { Db } from '../db/client.js';
import type { Dividend } from '../../generated/prisma/client.js';
import type { DividendType } from '../domain/records/dividend.js';
import type { KeyedList, KeysetArgs, Page } from '../db/keyset.js';
import { columnConditions, sortedTable, type Bounds, type Sort } from '../db/sorted-table.js';
import { writeById, type WriteCounts } from '../db/upsert.js';

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

const FILTER_COLUMNS = [
  'ticker',
  'exDividendDate',
  'recordDate',
  'declarationDate',
  'payDate',
  'cashAmount',
  'frequency',
  'dividendType',
] as const satisfies readonly (keyof DividendFilter)[];

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
export type DividendSort = Sort<DividendSortField>;

const exDividendDate = { column: 'exDividendDate', type: 'string' } as const;

/** Newest first, as Massive answers without `order` and as every list of a security's records is. */
const DIVIDENDS = sortedTable<Dividend, DividendSortField>({
  table: 'Dividend',
  tag: 'dividend',
  sorts: {
    ex_dividend_date: [exDividendDate],
    pay_date: [{ column: 'payDate', type: 'string', optional: true }],
    declaration_date: [{ column: 'declarationDate', type: 'string', optional: true }],
    record_date: [{ column: 'recordDate', type: 'string', optional: true }],
    cash_amount: [{ column: 'cashAmount', type: 'float' }],
    ticker: [{ column: 'ticker', type: 'string' }, exDividendDate],
  },
  defaultSort: { field: 'ex_dividend_date', direction: 'desc' },
});

/** One keyset page of the dividends matching `filter`, in `sort` (newest first by default), with a lazy total. */
export function dividendPage(
  db: Db,
  filter: DividendFilter,
  args: KeysetArgs & { sort?: DividendSort | undefined },
): Promise<Page<Dividend>> {
  return DIVIDENDS.page(db, columnConditions(filter, FILTER_COLUMNS), args);
}

/** Each ticker's dividends, newest first by ex-dividend date: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function dividendsByTicker(): KeyedList<Dividend> {
  return DIVIDENDS.byKey('ticker');
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type DividendInput = Dividend;

/** Upserts dividends by Massive's id in one transaction. */
export function writeDividends(db: Db, rows: readonly DividendInput[]): Promise<WriteCounts> {
  return writeById(db, rows, 'Dividend', (tx) => tx.dividend);
}
