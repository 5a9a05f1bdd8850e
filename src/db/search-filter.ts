import { Prisma } from '../../generated/prisma/client.js';
import { TEXT_MATCH, type Filter, type FilterValue, type NumberRange, type SortTerm } from '../domain/search-syntax.js';

/**
 * The SQL of a parsed filter_by / sort_by (domain/search-syntax.ts). Columns come from the
 * caller's `columnOf` (identifiers it owns); every value is a bound parameter.
 * test/db/search-filter.test.ts holds it to `matchesFilter`.
 */

/**
 * A number as a typed parameter. PostgreSQL types an untyped parameter as the column it meets, so
 * `"marketCap" > $1` fails for 1.5 (not a bigint) and `"totalEmployees" > $1` for 3e9 (not an
 * integer): integers go as BIGINT, which every integer column compares with (and its index serves),
 * others as NUMERIC, compared exactly.
 */
function bound(value: FilterValue): Prisma.Sql {
  if (typeof value !== 'number') return Prisma.sql`${value}`;
  return Number.isInteger(value) ? Prisma.sql`CAST(${value} AS BIGINT)` : Prisma.sql`CAST(${value} AS NUMERIC)`;
}

function oneOf(column: Prisma.Sql, values: readonly FilterValue[], ranges: readonly NumberRange[]): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (values.length === 1) parts.push(Prisma.sql`${column} = ${bound(values[0]!)}`);
  else if (values.length > 1) parts.push(Prisma.sql`${column} IN (${Prisma.join(values.map(bound))})`);
  for (const r of ranges) parts.push(Prisma.sql`(${column} >= ${bound(r.from)} AND ${column} <= ${bound(r.to)})`);
  return parts.length === 1 ? parts[0]! : Prisma.sql`(${Prisma.join(parts, ' OR ')})`;
}

/**
 * A boolean SQL expression true exactly where `matchesFilter` is. A null column makes every
 * comparison unknown, `NOT (col = v)` included, and AND/OR never turn unknown into true where
 * false would not be, so a WHERE drops the row as matchesFilter does.
 */
export function filterSql(filter: Filter, columnOf: (field: string) => Prisma.Sql): Prisma.Sql {
  switch (filter.op) {
    case 'and':
    case 'or':
      return Prisma.sql`(${Prisma.join(
        filter.of.map((f) => filterSql(f, columnOf)),
        filter.op === 'and' ? ' AND ' : ' OR ',
      )})`;
    case '=':
      return oneOf(columnOf(filter.field), filter.values, filter.ranges);
    case '!=':
      return Prisma.sql`NOT ${oneOf(columnOf(filter.field), filter.values, filter.ranges)}`;
    default:
      return Prisma.sql`${columnOf(filter.field)} ${Prisma.raw(filter.op)} ${bound(filter.value)}`;
  }
}

/**
 * The terms of an ORDER BY for `sort` (without the keyword; the caller appends its own tie-breaker,
 * the primary key, for stable pages), or `Prisma.empty` when there are none. Nulls sort last in
 * either direction on both databases (their defaults differ). `_text_match` orders by `textScore`,
 * best first for `desc`; without one every row scores alike and the term is left out.
 */
export function orderSql(
  sort: readonly SortTerm[],
  columnOf: (field: string) => Prisma.Sql,
  textScore?: Prisma.Sql,
): Prisma.Sql {
  const terms = sort.flatMap(({ field, order }) => {
    const direction = Prisma.raw(order === 'asc' ? 'ASC' : 'DESC');
    if (field === TEXT_MATCH) return textScore ? [Prisma.sql`${textScore} ${direction}`] : [];
    return [Prisma.sql`${columnOf(field)} ${direction} NULLS LAST`];
  });
  return terms.length ? Prisma.join(terms, ', ') : Prisma.empty;
}
