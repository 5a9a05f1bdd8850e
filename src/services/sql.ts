import type { Db } from '../db.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Direction } from './paging.js';

/**
 * The first `limit` rows for each of many keys, in one statement: a UNION ALL of one small
 * `ORDER BY ... LIMIT` query per key, each an index range scan that stops after `limit` rows.
 * (A window function would rank every row of every key first: fatal for millions of trades;
 * Prisma's relation loading on SQLite fetches all children and slices in memory.)
 * Identifiers are code constants; every value is a bound parameter.
 */
export interface TopPerKeyQuery {
  table: string;
  keyColumn: string;
  keys: readonly (string | number)[];
  /** Further conditions, ANDed; the same for every key. */
  filters?: Prisma.Sql[];
  orderColumns: readonly string[];
  direction: Direction;
  /** A key tuple over orderColumns: only rows strictly after it. */
  after?: readonly unknown[] | undefined;
  limit: number;
}

/** Keys per statement: SQLite allows 500 terms in one compound SELECT. */
export const MAX_KEYS_PER_STATEMENT = 200;

const q = (name: string) => Prisma.raw(`"${name}"`);

export async function topPerKey<Row extends Record<string, unknown>>(db: Db, query: TopPerKeyQuery): Promise<Map<string | number, Row[]>> {
  const result = new Map<string | number, Row[]>(query.keys.map((k) => [k, []]));
  if (query.keys.length === 0 || query.limit <= 0) return result;
  const order = Prisma.raw(query.orderColumns.map((c) => `"${c}" ${query.direction.toUpperCase()}`).join(', '));
  const conditions: Prisma.Sql[] = [...(query.filters ?? [])];
  if (query.after) {
    const tuple = Prisma.raw(`(${query.orderColumns.map((c) => `"${c}"`).join(', ')})`);
    conditions.push(Prisma.sql`${tuple} ${Prisma.raw(query.direction === 'asc' ? '>' : '<')} (${Prisma.join(query.after as unknown[])})`);
  }
  const extra = conditions.length ? Prisma.sql` AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  for (let start = 0; start < query.keys.length; start += MAX_KEYS_PER_STATEMENT) {
    const keys = query.keys.slice(start, start + MAX_KEYS_PER_STATEMENT);
    const parts = keys.map(
      (key, i) =>
        Prisma.sql`SELECT * FROM (SELECT * FROM ${q(query.table)} WHERE ${q(query.keyColumn)} = ${key}${extra} ORDER BY ${order} LIMIT ${query.limit}) ${Prisma.raw(`k${i}`)}`,
    );
    const rows = await db.prisma.$queryRaw<Row[]>(Prisma.join(parts, ' UNION ALL '));
    for (const row of rows) result.get(row[query.keyColumn] as string | number)?.push(row);
  }
  return result;
}
