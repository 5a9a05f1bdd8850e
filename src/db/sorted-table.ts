// A table listed as Massive's reference lists are (GET /v3/reference/splits, /dividends): filtered
// by bounds on its columns, sorted by one of a whitelist of fields in either direction, and paged
// by keyset (db/keyset.ts), ties broken by the table's id so a cursor names one row. A service
// declares its columns, sort fields and filter; the reading is here, once.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from './client.js';
import {
  countRows,
  seekOf,
  toPage,
  type Direction,
  type KeyedList,
  type KeysetArgs,
  type KeyType,
  type Ordering,
  type Page,
  type SortedList,
} from './keyset.js';
import { readSql } from './sql.js';

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

/**
 * The conditions of a filter whose keys are the table's `columns`: bounds on a column where the
 * filter holds bounds, equality where it holds a value; a key left undefined puts none.
 */
export function columnConditions<F extends object>(filter: F, columns: readonly (keyof F & string)[]): Prisma.Sql[] {
  return columns.flatMap((column) => {
    const v = filter[column] as unknown;
    if (v === undefined) return [];
    if (typeof v === 'object' && v !== null) return boundConditions(column, v as Bounds<unknown>);
    return [Prisma.sql`${Prisma.raw(`"${column}"`)} = ${v}`];
  });
}

/**
 * A sort column. An optional one (a date some rows lack) is read as '' where a row has none, so
 * the keyset comparison (which NULL would make unknown) keeps those rows: first ascending, last
 * descending.
 */
export interface SortColumn<Row> {
  column: keyof Row & string;
  type: KeyType;
  optional?: true;
}

export interface Sort<F extends string> {
  field: F;
  direction: Direction;
}

export interface SortedTableSpec<Row, F extends string> {
  table: string;
  /** Names the orderings inside cursors: `${tag}.${field}`. */
  tag: string;
  /** Each sort field's columns; every ordering ends in the table's `id`. */
  sorts: Record<F, readonly SortColumn<Row>[]>;
  /** Without `sort`, and the order of `byKey`'s lists. */
  defaultSort: Sort<F>;
}

export interface SortedTable<Row, F extends string> {
  /** One keyset page of the rows meeting `filters`, in `sort` (the default without one), with a lazy total. */
  page(db: Db, filters: Prisma.Sql[], args: KeysetArgs & { sort?: Sort<F> | undefined }): Promise<Page<Row>>;
  /** Each value of `keyColumn`'s rows in the default sort: a keyed list (services/paging.ts), and a row tree's level (graphql/plan/). */
  byKey(keyColumn: keyof Row & string): KeyedList<Row>;
}

/** A sort's ordering (for cursors) and the SQL of its columns (for the read). */
function sorting<Row>(tag: string, sortColumns: readonly SortColumn<Row>[]) {
  const columns = [...sortColumns, { column: 'id', type: 'string' } as SortColumn<Row>];
  const ordering: Ordering<Row> = {
    tag,
    columns: columns.map((c) => ({
      column: c.column,
      type: c.type,
      of: (row: Row) => (c.optional ? (row[c.column] ?? '') : row[c.column]),
    })),
  };
  const sql = columns.map((c) => (c.optional ? `COALESCE("${c.column}", '')` : `"${c.column}"`));
  return { ordering, sql, optional: sortColumns.some((c) => c.optional) };
}

export function sortedTable<Row, F extends string>(spec: SortedTableSpec<Row, F>): SortedTable<Row, F> {
  const sorts = Object.fromEntries(
    (Object.entries(spec.sorts) as [F, readonly SortColumn<Row>[]][]).map(([field, columns]) => [
      field,
      sorting(`${spec.tag}.${field}`, columns),
    ]),
  ) as Record<F, ReturnType<typeof sorting<Row>>>;
  const byDefault = sorts[spec.defaultSort.field];
  // a keyed list's reads (db/sql.ts, db/tree.ts) order by plain columns
  if (byDefault.optional) throw new Error(`${spec.table}: the default sort reads an optional column`);
  return {
    async page(db, filters, args) {
      const { field, direction } = args.sort ?? spec.defaultSort;
      const { ordering, sql } = sorts[field];
      const seek = seekOf(ordering, direction, args);
      const tuple = Prisma.raw(`(${sql.join(', ')})`);
      const [past, short] = seek.direction === 'asc' ? ['>', '<'] : ['<', '>'];
      const conditions = [...filters];
      if (seek.after) conditions.push(Prisma.sql`${tuple} ${Prisma.raw(past)} (${Prisma.join(seek.after)})`);
      if (seek.before) conditions.push(Prisma.sql`${tuple} ${Prisma.raw(short)} (${Prisma.join(seek.before)})`);
      const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
      const by = Prisma.raw(sql.map((s) => `${s} ${seek.direction.toUpperCase()}`).join(', '));
      const rows = await readSql<Row>(
        db,
        Prisma.sql`SELECT * FROM ${Prisma.raw(`"${spec.table}"`)} ${where} ORDER BY ${by} LIMIT ${seek.limit}`,
      );
      const list: SortedList<Row> = { table: spec.table, ordering, direction, filters };
      return toPage(rows, args, ordering, direction, () => countRows(db, list));
    },
    byKey: (keyColumn) => ({
      table: spec.table,
      keyColumn,
      ordering: byDefault.ordering,
      direction: spec.defaultSort.direction,
      filters: [],
    }),
  };
}
