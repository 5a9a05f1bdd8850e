import type { Db } from '../db/client.js';
import { Prisma, type Split } from '../../generated/prisma/client.js';
import type { KeyedList, KeysetArgs, Page } from '../db/keyset.js';
import { columnConditions, sortedTable, type Bounds, type Sort } from '../db/sorted-table.js';
import { writeById, type WriteCounts } from '../db/upsert.js';

export type { Split };

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
export type SplitSort = Sort<SplitSortField>;

const executionDate = { column: 'executionDate', type: 'string' } as const;

/** Newest first, as Massive answers without `order` and as every list of a security's records is. */
const SPLITS = sortedTable<Split, SplitSortField>({
  table: 'Split',
  tag: 'split',
  sorts: { execution_date: [executionDate], ticker: [{ column: 'ticker', type: 'string' }, executionDate] },
  defaultSort: { field: 'execution_date', direction: 'desc' },
});

function filterConditions(filter: SplitFilter): Prisma.Sql[] {
  const out = columnConditions(filter, ['ticker', 'executionDate']);
  if (filter.reverseSplit === true) out.push(Prisma.sql`"splitFrom" > "splitTo"`);
  if (filter.reverseSplit === false) out.push(Prisma.sql`"splitFrom" <= "splitTo"`);
  return out;
}

/** One keyset page of the splits matching `filter`, in `sort` (newest first by default), with a lazy total. */
export function splitPage(
  db: Db,
  filter: SplitFilter,
  args: KeysetArgs & { sort?: SplitSort | undefined },
): Promise<Page<Split>> {
  return SPLITS.page(db, filterConditions(filter), args);
}

/** Each ticker's splits, newest first: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function splitsByTicker(): KeyedList<Split> {
  return SPLITS.byKey('ticker');
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type SplitInput = Split;

/** Upserts splits by Massive's id in one transaction. */
export function writeSplits(db: Db, rows: readonly SplitInput[]): Promise<WriteCounts> {
  return writeById(db, rows, 'Split', (tx) => tx.split);
}
