import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';
import type { FallbackReason } from '../observability/fallbacks.js';
import { combinedStatement, decodeCombined, type Shape } from './pg-combine.js';

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

type Row = Record<string, unknown>;

/** What the driver answers: rows, and the name and type of each column. */
export interface PgResult {
  rows: unknown[];
  fields: readonly { name: string; dataTypeID: number }[];
}

/** One Db.read call waiting in a request's queue (see readQueue in db/client.ts). */
export interface QueuedRead {
  sql: string;
  params: readonly unknown[];
  resolve(rows: Row[]): void;
  reject(error: unknown): void;
}

export interface PgReader {
  /** `timeoutMs`: the statement_timeout it runs under (db/pg-pool.ts); default: the connection's own. */
  read(sql: string, params: readonly unknown[], timeoutMs?: number): Promise<Row[]>;
  /**
   * Settles every read of `batch` (the reads one request made in one turn of the event loop):
   * those whose columns a standalone run taught are sent as one statement (pg-combine.ts), the
   * others alone; `sent` is told of each statement that goes out, `fellBack` of each read of a batch
   * of several sent alone (`unlearned`) and of each combined statement that failed (`error`: its
   * reads fail with it, so the error reaches their callers, and are taught again alone). Every
   * statement runs under a statement_timeout of `timeoutMs`, if given.
   */
  readTogether(
    batch: readonly QueuedRead[],
    sent: (sql: string) => void,
    fellBack?: (reason: FallbackReason<'combined'>) => void,
    timeoutMs?: number,
  ): void;
  /** The columns `sql` answers with and their parsers, from a standalone run of it (kept like the others; `sent` is told if it runs). */
  shapeOf(sql: string, sent: (sql: string) => void): Promise<Shape>;
}

/**
 * Db.read on PostgreSQL: each statement sent as a named one (prepared once per connection; up to
 * `cacheSize` names kept, then they start over), its rows parsed to what Prisma returns. Each
 * standalone run also records its columns (as many texts as names), which readTogether needs.
 */
export function pgReader(
  query: (config: QueryConfig, timeoutMs?: number) => Promise<PgResult>,
  types: typeof import('pg').types,
  cacheSize: number,
): PgReader {
  const INT8 = 20;
  const TIMESTAMP = 1114;
  const parserOf = (oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return parseInt8;
    if (oid === TIMESTAMP) return parseTimestamp;
    return types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  };
  const parsers = { getTypeParser: parserOf };
  const names = new Map<string, string>();
  const shapes = new Map<string, Shape>();
  // Combined texts are combinations of the code's statements, so clients' queries could make any
  // number of them, and a connection keeps every statement it prepared: the first `cacheSize` are
  // prepared and kept, any further one is planned anew each time (an unnamed statement).
  const combinedNames = new Set<string>();

  async function run(sql: string, params: readonly unknown[], named: boolean, timeoutMs?: number): Promise<PgResult> {
    let name = named ? names.get(sql) : undefined;
    if (named && !name) {
      if (names.size >= cacheSize) names.clear();
      // the same text always gets the same name, so a connection that prepared it reuses it
      name = `r_${createHash('sha1').update(sql).digest('base64url').slice(0, 20)}`;
      names.set(sql, name);
    }
    return query({ ...(name && { name }), text: sql, values: params.map(pgParam), types: parsers as never }, timeoutMs);
  }

  async function read(sql: string, params: readonly unknown[], timeoutMs?: number): Promise<Row[]> {
    const result = await run(sql, params, true, timeoutMs);
    if (!shapes.has(sql) && result.fields.length > 0) {
      if (shapes.size >= cacheSize) shapes.clear();
      shapes.set(sql, {
        names: result.fields.map((f) => f.name),
        parsers: result.fields.map((f) => parserOf(f.dataTypeID)),
      });
    }
    return result.rows as Row[];
  }

  function alone(r: QueuedRead, sent: (sql: string) => void, timeoutMs?: number): void {
    sent(r.sql);
    read(r.sql, r.params, timeoutMs).then(r.resolve, r.reject);
  }

  return {
    read,
    async shapeOf(sql, sent) {
      const known = shapes.get(sql);
      if (known) return known;
      sent(sql);
      await read(sql, []);
      const shape = shapes.get(sql);
      if (!shape) throw new Error(`no columns in the answer to ${sql}`);
      return shape;
    },
    readTogether(batch, sent, fellBack, timeoutMs) {
      const unlearned = (r: QueuedRead) => {
        if (batch.length > 1) fellBack?.('unlearned');
        alone(r, sent, timeoutMs);
      };
      const known = batch.filter((r) => shapes.has(r.sql));
      if (known.length < 2) return batch.forEach(unlearned);
      for (const r of batch) if (!shapes.has(r.sql)) unlearned(r);
      const parts = known.map((r) => ({ sql: r.sql, params: r.params, shape: shapes.get(r.sql)! }));
      const combined = combinedStatement(parts);
      sent(combined.text);
      if (combinedNames.size < cacheSize) combinedNames.add(combined.text);
      run(combined.text, combined.params, combinedNames.has(combined.text), timeoutMs)
        .then((result) => decodeCombined(result.rows[0] as Row, parts))
        .then(
          (rows) => known.forEach((r, i) => r.resolve(rows[i]!)),
          (error: unknown) => {
            fellBack?.('error');
            // taught again by a standalone run: a column list that no longer holds fails once, not forever
            for (const r of known) shapes.delete(r.sql);
            for (const r of known) r.reject(error);
          },
        );
    },
  };
}
