import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

/**
 * A parameter as PostgreSQL should see it: Prisma's DateTime columns are `timestamp(3)` holding
 * UTC, so a date goes as UTC text without a zone (pg would send local time); bigints as text.
 */
function pgParam(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().slice(0, -1);
  if (typeof v === 'bigint') return v.toString();
  return v;
}

const parseInt8 = (v: string) => BigInt(v);
/** Prisma's DateTime columns are `timestamp(3)` holding UTC. */
const parseTimestamp = (v: string) => new Date(`${v.replace(' ', 'T')}Z`);

/**
 * Db.read on PostgreSQL: each statement sent as a named one (prepared once per connection; up to
 * `cacheSize` names kept, then they start over), its rows parsed to what Prisma returns.
 */
export function pgReader(query: (config: QueryConfig) => Promise<{ rows: unknown[] }>, types: typeof import('pg').types, cacheSize: number) {
  const INT8 = 20;
  const TIMESTAMP = 1114;
  const parsers = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8) return parseInt8;
      if (oid === TIMESTAMP) return parseTimestamp;
      return types.getTypeParser(oid, format as 'text');
    },
  };
  const names = new Map<string, string>();
  return async (sql: string, params: readonly unknown[]) => {
    let name = names.get(sql);
    if (!name) {
      if (names.size >= cacheSize) names.clear();
      // the same text always gets the same name, so a connection that prepared it reuses it
      name = `r_${createHash('sha1').update(sql).digest('base64url').slice(0, 20)}`;
      names.set(sql, name);
    }
    const result = await query({ name, text: sql, values: params.map(pgParam), types: parsers as never });
    return result.rows as Record<string, unknown>[];
  };
}
