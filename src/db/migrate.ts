import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, type DatabaseConfig } from '../config.js';
import { createMissingDatabase, DATABASE_DOES_NOT_EXIST } from './pg-create.js';

/**
 * Applies the committed migrations (prisma/migrations) and records them in Prisma's own `_prisma_migrations` table, so the Prisma CLI sees
 * the same history wherever it can run. The CLI itself cannot run offline (it downloads a native
 * schema engine); applying plain SQL files needs nothing but the database driver.
 *
 * Each migration runs in one transaction together with its history row, under a lock (an
 * advisory lock), so instances starting together apply it once and
 * a crash leaves either all of a migration or none of it.
 */
export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export const MIGRATIONS_DIR = path.join(ROOT, 'prisma/migrations');

export function readMigrations(): Migration[] {
  const dir = MIGRATIONS_DIR;
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** SQLSTATE query_canceled: what statement_timeout ends a statement with. */
const QUERY_CANCELED = '57014';
/** The SQLSTATE of a failed statement, or of the one a MigrationError wraps. */
function sqlstateOf(e: unknown): unknown {
  const err = e as { code?: unknown; cause?: { code?: unknown } };
  return err.code ?? err.cause?.code;
}

const HISTORY_PG = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

function checkHistory(applied: Map<string, string>, migrations: Migration[]): void {
  const known = new Set(migrations.map((m) => m.name));
  for (const name of applied.keys()) {
    if (!known.has(name)) {
      throw new MigrationError(
        `the database has migration ${name}, which this version of the code does not know; run a newer version or restore the database`,
      );
    }
  }
}

/**
 * `applied`: the migrations it applied. `created`: the line to log when it created the database
 * because the server had none of that name (db/pg-create.ts). With `timeoutMs` (a running
 * instance's, db/readiness.ts; a start waits as long as its migrations take) the run is stopped
 * after that long, its transaction rolled back, and each statement bounded as long on the server.
 */
export async function migrate(
  database: DatabaseConfig,
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<{ applied: string[]; created?: string }> {
  const migrations = readMigrations();
  const { default: pg } = await import('pg');
  const connect = async () => {
    const c = new pg.Client({
      connectionString: database.url,
      connectionTimeoutMillis: 5_000,
      ...(timeoutMs ? { statement_timeout: timeoutMs } : {}),
    });
    await c.connect();
    return c;
  };
  let created: string | undefined;
  const client = await connect().catch(async (e: unknown) => {
    if ((e as { code?: string }).code !== DATABASE_DOES_NOT_EXIST) throw e;
    created = await createMissingDatabase(pg, database);
    return connect();
  });
  const applied: string[] = [];
  let timedOut = false;
  const timer = timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        void client.end().catch(() => {}); // the statement in flight fails; the server rolls back
      }, timeoutMs)
    : undefined;
  try {
    const schema = `"${database.schema}"`;
    await client.query('BEGIN');
    try {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('market-data-gateway:migrate:' || $1))`, [
        database.schema,
      ]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`SET LOCAL search_path TO ${schema}`);
      await client.query(HISTORY_PG);
      const rows = await client.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL',
      );
      const done = new Map(rows.rows.map((r) => [r.migration_name, r.checksum]));
      checkHistory(done, migrations);
      for (const m of migrations) {
        if (done.has(m.name)) continue;
        try {
          await client.query(m.sql);
        } catch (e) {
          throw new MigrationError(`migration ${m.name} failed: ${(e as Error).message}`, { cause: e });
        }
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)',
          [randomUUID(), m.checksum, m.name],
        );
        applied.push(m.name);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      if (timedOut || sqlstateOf(e) === QUERY_CANCELED)
        throw new MigrationError(`migrating took longer than ${timeoutMs} ms: stopped, and none of it kept`);
      throw e;
    }
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
  return { applied, ...(created && { created }) };
}
