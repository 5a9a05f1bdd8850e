import type { Db } from '../db/client.js';
import { Prisma, type CallSummary } from '../../generated/prisma/client.js';
import {
  keysetPage,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';
import { advanceSerial, changedFields, claimIds, insertRows, sameFields, writeBatch } from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

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

/** Newest call first; the id breaks ties between calls at the same moment. */
const ORDERING: Ordering<CallSummary> = {
  tag: 'callSummary',
  columns: [
    { column: 'callDate', type: 'date', of: (c) => c.callDate },
    { column: 'id', type: 'int', of: (c) => c.id },
  ],
};

function callSummaryList(filter: CallSummaryFilter): SortedList<CallSummary> {
  const symbol = filter.symbol !== undefined ? [Prisma.sql`"symbol" = ${filter.symbol}`] : [];
  return { table: 'CallSummary', ordering: ORDERING, direction: 'desc', filters: [...symbol, ...rangeFilters(filter)] };
}

/** Summaries newest first, in keyset pages; the count runs only when asked for. */
export function callSummaryPage(db: Db, filter: CallSummaryFilter, args: KeysetArgs): Promise<Page<CallSummary>> {
  return keysetPage(db, callSummaryList(filter), args);
}

/** Page `page` of the summaries matching `filter`, in the order of `callSummaryPage`, and their number. */
export function callSummaryAtPage(
  db: Db,
  filter: CallSummaryFilter,
  args: PageNumberArgs,
): Promise<NumberedPage<CallSummary>> {
  return numberedPage(db, callSummaryList(filter), args);
}

function rangeFilters(range: CallDateRange): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (range.from) out.push(Prisma.sql`"callDate" >= ${range.from}`);
  if (range.to) out.push(Prisma.sql`"callDate" <= ${range.to}`);
  return out;
}

/** Each symbol's summaries in `range`, newest first: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
export function callSummariesBySymbol(range: CallDateRange): KeyedList<CallSummary> {
  return {
    table: 'CallSummary',
    keyColumn: 'symbol',
    ordering: ORDERING,
    direction: 'desc',
    filters: rangeFilters(range),
  };
}

// ------------------------------------------------------------------ import (idempotent batch write)

/** One summary as an import writes it. `id` is the record's own, used when it is new and the id is free. */
export type CallSummaryInput = Omit<CallSummary, 'id' | 'keyPoints' | 'participants' | 'createdAt' | 'updatedAt'> & {
  id?: number | undefined;
  keyPoints: string[];
  participants: CallParticipant[];
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
};

// the id is not compared: a stored summary keeps its id (see writeCallSummaries)
const SUMMARY_FIELDS = Object.values(Prisma.CallSummaryScalarFieldEnum).filter((c) => c !== 'id');

export const callSummaryKey = (c: Pick<CallSummary, 'symbol' | 'callDate'>) =>
  `${c.symbol}|${c.callDate.toISOString()}`;

const summaryRow = ({ id: _, ...row }: CallSummaryInput) => row;

// a participant is a plain JSON object; the interface just lacks JSON's index signature
const summaryUpdate = ({ participants, ...fields }: Partial<CallSummaryInput>) => ({
  ...fields,
  participants: participants as unknown as Prisma.InputJsonArray | undefined,
});

/**
 * Upserts summaries by symbol + call date in one transaction. A new summary takes the record's
 * `id` when no other summary holds it, else the next free one; a stored summary keeps its id.
 */
export function writeCallSummaries(db: Db, rows: readonly CallSummaryInput[]): Promise<WriteCounts> {
  return writeBatch<CallSummaryInput, CallSummary>(db, rows, {
    key: callSummaryKey,
    load: (tx, batch) =>
      tx.callSummary.findMany({
        where: {
          symbol: { in: [...new Set(batch.map((r) => r.symbol))] },
          callDate: { in: batch.map((r) => r.callDate) },
        },
      }),
    storedKey: callSummaryKey,
    same: (r, s) => sameFields(r, s, SUMMARY_FIELDS),
    async insert(tx, batch) {
      const { withId, without } = await claimIds(
        batch,
        (r) => r.id,
        async (ids) =>
          (await tx.callSummary.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id),
      );
      if (withId.length) {
        await insertRows(
          tx,
          'CallSummary',
          withId.map(({ row, id }) => ({ ...summaryRow(row), id })),
        );
        await advanceSerial(tx, 'CallSummary');
      }
      await insertRows(tx, 'CallSummary', without.map(summaryRow));
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        await tx.callSummary.updateMany({
          where: { id: stored.id },
          data: summaryUpdate(changedFields(summaryRow(row), stored, SUMMARY_FIELDS)),
        });
      }
    },
  });
}
