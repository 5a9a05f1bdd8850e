import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from './client.js';
import { readMigrations } from './migrate.js';
import { DATABASE_DOES_NOT_EXIST } from './pg-create.js';

/**
 * What the database is to this version of the code: `ready` (it answers, with every table of the
 * schema and the latest migration this version knows applied), `unmigrated` (it answers without
 * this version's schema: gone and to be created again, re-created empty, restored from an older
 * backup), or `unavailable` (it does not answer, refuses us, or fails the check). `detail` says
 * which, for the log.
 */
export type SchemaState = { state: 'ready' } | { state: 'unavailable' | 'unmigrated'; detail: string };

/** Every table of the schema (a model is its table: prisma/schema.prisma maps none), and the migrations' own. */
const TABLES = ['_prisma_migrations', ...Object.values(Prisma.ModelName)];

/** The tables of TABLES missing from schema $1: catalog lookups only, whatever the tables hold. */
const MISSING_TABLES = `SELECT t AS "table" FROM unnest(ARRAY[${TABLES.map((t) => `'${t}'`).join(', ')}]::text[]) AS t WHERE to_regclass(format('%I.%I', $1::text, t)) IS NULL`;

/** Whether migration $1 finished and was not rolled back. */
const MIGRATED = `SELECT EXISTS (SELECT 1 FROM "_prisma_migrations" WHERE "migration_name" = $1 AND "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL) AS "done"`;

let latest: string | undefined;
/**
 * The latest migration this version knows. A later one, of a newer version migrating before the
 * old instances stop (a rolling deploy), leaves them ready; a table it drops does not (TABLES).
 */
const latestMigration = () => (latest ??= readMigrations().at(-1)?.name ?? '');

/**
 * The database's state for /readyz: two statements on Prisma's pool (the catalog, then the
 * migrations table), answered `unavailable` when they take more than `timeoutMs`.
 */
export async function schemaState(db: Db, timeoutMs = 2_000): Promise<SchemaState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<SchemaState>((resolve) => {
    timer = setTimeout(
      () => resolve({ state: 'unavailable', detail: `the database did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([check(db), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(db: Db): Promise<SchemaState> {
  try {
    const missing = await db.prisma.$queryRawUnsafe<{ table: string }[]>(MISSING_TABLES, db.database.schema);
    if (missing.length)
      return {
        state: 'unmigrated',
        detail: `${missing.length} of its ${TABLES.length} tables are missing: ${missing
          .slice(0, 3)
          .map((m) => m.table)
          .join(', ')}${missing.length > 3 ? ', …' : ''}`,
      };
    const [migrated] = await db.prisma.$queryRawUnsafe<{ done: boolean }[]>(MIGRATED, latestMigration());
    return migrated?.done
      ? { state: 'ready' }
      : { state: 'unmigrated', detail: `migration ${latestMigration()} is not applied` };
  } catch (e) {
    // a database that is gone is made again by the migrations (db/pg-create.ts) where a start would
    if (sqlstateOf(e) === DATABASE_DOES_NOT_EXIST)
      return { state: 'unmigrated', detail: 'the database does not exist' };
    return { state: 'unavailable', detail: firstLine(e) };
  }
}

function sqlstateOf(e: unknown): string | undefined {
  const err = e as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  const code = err.meta?.driverAdapterError?.cause?.originalCode ?? err.code;
  return typeof code === 'string' ? code : undefined;
}

/** The gist of a driver's error: Prisma's messages open with the invocation, its reason last. */
function firstLine(e: unknown): string {
  const lines = String((e as Error)?.message ?? e)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'unknown error';
}
