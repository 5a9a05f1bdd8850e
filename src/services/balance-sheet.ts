import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { CIK_PATTERN, padCik } from '../domain/cik.js';
import { FISCAL_YEARS, isCalendarDate, isFiscalYear } from '../domain/fiscal.js';
import { normalizeSymbol } from '../domain/symbols.js';
import { Prisma, type BalanceSheet, type BalanceSheetSymbol, type Timeframe } from '../../generated/prisma/client.js';
import {
  keysetPage,
  seekOf,
  toPage,
  type Direction,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { anyOf, childRows, keyedConditions, orderOn, readSql } from '../db/sql.js';
import { selectColumns, type TreeLevel } from '../db/tree.js';
import { changedFields, insertRows, sameChildren, sameFields, writeBatch } from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

export type { BalanceSheetSymbol, Timeframe };

/** A balance sheet with its `symbols` rows, ordered by position: the shape every function here returns. */
export type BalanceSheetWithSymbols = BalanceSheet & { symbols: BalanceSheetSymbol[] };

export const SYMBOLS_INCLUDE = {
  symbols: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.BalanceSheetInclude;

/** The filters of a balance-sheet list; every one is optional. */
export interface BalanceSheetFilter {
  /** 1 to 10 digits; matches with or without leading zeros. */
  cik?: string | undefined;
  /** A balance sheet matches when it lists any of them. */
  symbols?: readonly string[] | undefined;
  /** `yyyy-mm-dd` */
  periodEnd?: string | undefined;
  fiscalYear?: number | undefined;
  fiscalQuarter?: number | undefined;
  timeframe?: Timeframe | undefined;
}

/** The filters that still make sense once the symbol is given (a security's own balance sheets). */
export type BalanceSheetPeriodFilter = Pick<
  BalanceSheetFilter,
  'periodEnd' | 'fiscalYear' | 'fiscalQuarter' | 'timeframe'
>;

export const SORT_FIELDS = ['period_end', 'fiscal_year', 'fiscal_quarter'] as const;
export type BalanceSheetSortField = (typeof SORT_FIELDS)[number];

export interface BalanceSheetSort {
  field: BalanceSheetSortField;
  direction: Direction;
}

export const DEFAULT_SORT: BalanceSheetSort = { field: 'period_end', direction: 'asc' };

export type BalanceSheetPageArgs = KeysetArgs & { sort: BalanceSheetSort };

const id = { column: 'id', type: 'int', of: (b: BalanceSheet) => b.id } as const;

/** One ordering per sort field, each ending in `id` and backed by an index of the same columns. */
const ORDERINGS: Record<BalanceSheetSortField, Ordering<BalanceSheet>> = {
  period_end: {
    tag: 'balance-sheet.period_end',
    columns: [{ column: 'reportingPeriodEnd', type: 'string', of: (b) => b.reportingPeriodEnd }, id],
  },
  fiscal_year: {
    tag: 'balance-sheet.fiscal_year',
    columns: [
      { column: 'fiscalYear', type: 'int', of: (b) => b.fiscalYear },
      { column: 'fiscalQuarter', type: 'int', of: (b) => b.fiscalQuarter },
      id,
    ],
  },
  fiscal_quarter: {
    tag: 'balance-sheet.fiscal_quarter',
    columns: [{ column: 'fiscalQuarter', type: 'int', of: (b) => b.fiscalQuarter }, id],
  },
};

// ------------------------------------------------------------------ validation

export const MAX_SYMBOLS_LENGTH = 200;

const bad = (argument: string, rule: string, value: unknown) =>
  new AppError('BAD_REQUEST', `argument "${argument}" must be ${rule}; got ${JSON.stringify(value)}`);

/**
 * A filter checked against the legacy API's constraints, its symbols as the symbol rule names them
 * (domain/symbols.ts: upper-cased), naming each argument as the caller spells it
 * (`filter.fiscalYear` in GraphQL, `fiscal_year` in REST).
 */
export function parseBalanceSheetFilter(
  filter: BalanceSheetFilter,
  argumentName: (key: keyof BalanceSheetFilter) => string = (k) => k,
): BalanceSheetFilter {
  const { cik, symbols, periodEnd, fiscalYear, fiscalQuarter } = filter;
  if (cik !== undefined && !CIK_PATTERN.test(cik)) throw bad(argumentName('cik'), '1 to 10 digits', cik);
  if (periodEnd !== undefined && !isCalendarDate(periodEnd))
    throw bad(argumentName('periodEnd'), 'a date yyyy-mm-dd', periodEnd);
  let named: string[] | undefined;
  if (symbols !== undefined) {
    named = symbols.map((s) => normalizeSymbol(s) ?? '');
    const invalid = symbols.find((_, i) => named![i] === '');
    if (invalid !== undefined)
      throw bad(argumentName('symbols'), 'a list of symbols of 1 to 20 characters A-Z, 0-9, "." or "-"', invalid);
    if (named.join(',').length > MAX_SYMBOLS_LENGTH) {
      throw bad(
        argumentName('symbols'),
        `a list of at most ${MAX_SYMBOLS_LENGTH} characters when joined with commas`,
        symbols.join(','),
      );
    }
  }
  if (fiscalYear !== undefined && !isFiscalYear(fiscalYear)) {
    throw bad(argumentName('fiscalYear'), `an integer from ${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}`, fiscalYear);
  }
  if (fiscalQuarter !== undefined && ![1, 2, 3, 4].includes(fiscalQuarter))
    throw bad(argumentName('fiscalQuarter'), '1, 2, 3 or 4', fiscalQuarter);
  return { ...filter, symbols: named };
}

// ------------------------------------------------------------------ the list

/** The period conditions on the BalanceSheet table (its columns no joined table shares), for every list of balance sheets. */
function periodConditions(filter: BalanceSheetPeriodFilter): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (filter.periodEnd !== undefined) out.push(Prisma.sql`"reportingPeriodEnd" = ${filter.periodEnd}`);
  if (filter.fiscalYear !== undefined) out.push(Prisma.sql`"fiscalYear" = ${filter.fiscalYear}`);
  if (filter.fiscalQuarter !== undefined) out.push(Prisma.sql`"fiscalQuarter" = ${filter.fiscalQuarter}`);
  if (filter.timeframe !== undefined) out.push(Prisma.sql`"timeframe" = ${filter.timeframe}`);
  return out;
}

function balanceSheetList(
  db: Db,
  filter: BalanceSheetFilter,
  sort: BalanceSheetSort,
): SortedList<BalanceSheetWithSymbols> {
  const filters = periodConditions(filter);
  if (filter.cik !== undefined) filters.push(Prisma.sql`"cik" = ${padCik(filter.cik)}`);
  if (filter.symbols?.length) {
    filters.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "BalanceSheetSymbol" s WHERE s."balanceSheetId" = "BalanceSheet"."id" AND ${anyOf('s."symbol"', filter.symbols)})`,
    );
  }
  return {
    table: 'BalanceSheet',
    ordering: ORDERINGS[sort.field],
    direction: sort.direction,
    filters,
    complete: async (rows) => {
      const symbols = await balanceSheetSymbols(
        db,
        rows.map((r) => r.id as number),
      );
      return rows.map((r) => ({ ...(r as BalanceSheet), symbols: symbols.get(r.id as number) ?? [] }));
    },
  };
}

/** Balance sheets matching the filters, in keyset pages in the requested order, with a lazy total. */
export function balanceSheetPage(
  db: Db,
  filter: BalanceSheetFilter,
  args: BalanceSheetPageArgs,
): Promise<Page<BalanceSheetWithSymbols>> {
  return keysetPage(db, balanceSheetList(db, filter, args.sort), args);
}

// ------------------------------------------------------------------ per symbol, batched

/**
 * One page of balance sheets for each of many symbols, in one statement however many symbols
 * (through Db.read, its text the same for any number of symbols): each symbol's own
 * `ORDER BY ... LIMIT` over the symbol index joined to the balance sheets (LATERAL, as
 * `topPerKey` does for one table). Without their
 * `symbols` rows: `balanceSheetSymbols` loads them for the queries that read them.
 */
export async function balanceSheetPages(
  db: Db,
  symbols: readonly string[],
  filter: BalanceSheetPeriodFilter,
  args: BalanceSheetPageArgs,
): Promise<Map<string, Page<BalanceSheet>>> {
  const { field, direction } = args.sort;
  const ordering = ORDERINGS[field];
  const order = ordering.columns.map((c) => c.column);
  const seek = seekOf(ordering, direction, args);
  const extra = keyedConditions(periodConditions(filter), order, seek, 'b.');
  const by = (alias: string) => orderOn(order, seek.direction, alias);

  const rowsBySymbol = new Map<string, BalanceSheet[]>(symbols.map((s) => [s, []]));
  if (symbols.length === 0) return new Map();
  const statement = Prisma.sql`SELECT t.* FROM unnest(${symbols}::text[]) WITH ORDINALITY AS k("symbol", "ord")
    CROSS JOIN LATERAL (
      SELECT b.*, s."symbol" AS "listedSymbol" FROM "BalanceSheet" b JOIN "BalanceSheetSymbol" s ON s."balanceSheetId" = b."id"
      WHERE s."symbol" = k."symbol"${extra} ORDER BY ${by('b.')} LIMIT ${seek.limit}) t
    ORDER BY k."ord", ${by('t.')}`;
  const rows = await readSql<BalanceSheet & { listedSymbol: string }>(db, statement);
  for (const { listedSymbol, ...row } of rows) rowsBySymbol.get(listedSymbol)?.push(row);
  return new Map([...rowsBySymbol].map(([symbol, rows]) => [symbol, toPage(rows, args, ordering, direction)]));
}

/**
 * The latest balance sheet (by period end; of `timeframe` if given) listing the symbol of a row
 * tree's parent (db/tree.ts; the parent's `symbol` column), as a level of its own: what
 * balanceSheetPages reads for one symbol and a page of one, correlated to the parent.
 */
export function latestBalanceSheetLevel(
  timeframe: Timeframe | undefined,
  columns: readonly string[],
  children: readonly TreeLevel[],
): TreeLevel {
  const ordering = ORDERINGS.period_end;
  const order = ordering.columns.map((c) => c.column);
  const carried = [...new Set([...columns, ...order])];
  const conditions = periodConditions({ timeframe });
  const extra = conditions.length ? Prisma.sql` AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  const by = Prisma.raw(order.map((c) => `b."${c}" DESC`).join(', '));
  return {
    table: 'BalanceSheet',
    columns: carried,
    select: (parent) =>
      Prisma.sql`${selectColumns('BalanceSheet', carried, 'b')} JOIN "BalanceSheetSymbol" s ON s."balanceSheetId" = b."id"
        WHERE s."symbol" = ${Prisma.raw(`${parent}."symbol"`)}${extra} ORDER BY ${by} LIMIT 2`,
    children,
  };
}

/** For loaders: the `symbols` rows of each balance sheet, main listing first (one statement). */
export function balanceSheetSymbols(db: Db, ids: readonly number[]): Promise<Map<number, BalanceSheetSymbol[]>> {
  return childRows<BalanceSheetSymbol>(db, 'BalanceSheetSymbol', 'balanceSheetId', ids);
}

// ------------------------------------------------------------------ import (idempotent batch write)

/** One balance sheet as an import writes it; `symbols` replace the stored ones when anything changed. */
export type BalanceSheetInput = Omit<Prisma.BalanceSheetCreateManyInput, 'id' | 'createdAt' | 'updatedAt'> & {
  symbols: string[];
};

const BALANCE_SHEET_FIELDS = Object.values(Prisma.BalanceSheetScalarFieldEnum).filter(
  (c) => c !== 'id' && c !== 'createdAt' && c !== 'updatedAt',
);

export const balanceSheetKey = (b: Pick<BalanceSheet, 'cik' | 'reportingPeriodEnd' | 'timeframe'>) =>
  `${b.cik}|${b.reportingPeriodEnd}|${b.timeframe}`;

const symbolRows = (balanceSheetId: number, row: BalanceSheetInput) =>
  row.symbols.map((symbol, position) => ({ balanceSheetId, position, symbol }));

/** Upserts balance sheets by CIK + reporting period end + timeframe in one transaction. */
export function writeBalanceSheets(db: Db, rows: readonly BalanceSheetInput[]): Promise<WriteCounts> {
  return writeBatch<BalanceSheetInput, BalanceSheetWithSymbols>(db, rows, {
    key: balanceSheetKey,
    // a superset (every period end of every CIK in the batch) matched by key afterwards: one query
    load: (tx, batch) =>
      tx.balanceSheet.findMany({
        where: {
          cik: { in: [...new Set(batch.map((r) => r.cik))] },
          reportingPeriodEnd: { in: [...new Set(batch.map((r) => r.reportingPeriodEnd))] },
        },
        include: SYMBOLS_INCLUDE,
      }),
    storedKey: balanceSheetKey,
    same: (r, s) =>
      sameFields(r, s, BALANCE_SHEET_FIELDS) &&
      sameChildren(
        r.symbols.map((symbol) => ({ symbol })),
        s.symbols,
        ['symbol'],
      ),
    async insert(tx, batch) {
      const created = await insertRows(
        tx,
        'BalanceSheet',
        batch.map(({ symbols: _, ...sheet }) => sheet),
        ['id', 'cik', 'reportingPeriodEnd', 'timeframe'],
      );
      const ids = new Map(
        created.map((c) => [
          balanceSheetKey(c as Pick<BalanceSheet, 'cik' | 'reportingPeriodEnd' | 'timeframe'>),
          c.id as number,
        ]),
      );
      await insertRows(
        tx,
        'BalanceSheetSymbol',
        batch.flatMap((r) => symbolRows(ids.get(balanceSheetKey(r))!, r)),
      );
    },
    async update(tx, changes) {
      for (const {
        row: { symbols: _, ...sheet },
        stored,
      } of changes) {
        await tx.balanceSheet.updateMany({
          where: { id: stored.id },
          data: changedFields(sheet, stored, BALANCE_SHEET_FIELDS),
        });
      }
      await tx.balanceSheetSymbol.deleteMany({ where: { balanceSheetId: { in: changes.map((c) => c.stored.id) } } });
      await insertRows(
        tx,
        'BalanceSheetSymbol',
        changes.flatMap((c) => symbolRows(c.stored.id, c.row)),
      );
    },
  });
}
