import type { Config } from './config.js';
import { grouped, progressReporter, type ProgressOut, type ProgressReporter } from './ingest/progress.js';
import { createDb, type Db } from './db/client.js';
import { openCluster } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { DatabaseReadiness } from './db/readiness.js';
import type { Logger } from './observability/log.js';
import { forgetSearchEngine } from './services/security-index.js';
import { outboxEventBus, replayLimits } from './db/outbox.js';
import type { EventBus } from './runtime/events.js';
import { disableDemoAccounts, ensureDemoAccounts } from './services/account.js';
import { sampleDataState, seedSampleData, type SeedProgress } from './sample/seed.js';
import { DEFAULT_SAMPLE } from './sample/generate.js';

export type Log = (msg: string) => void;

/**
 * Opens the configured database ready for use: starts the embedded cluster when DATABASE_URL is
 * unset (db/embedded.ts; closing the Db releases it), applies pending migrations, then what
 * `prepareDatabase` does. Safe to call on every start: a seeded database is not seeded again, a
 * seed that was interrupted is started over, and demo accounts are disabled once.
 */
export async function openDatabase(config: Readonly<Config>, log: Log = () => {}): Promise<Db> {
  const db = await openMigrated(config, log, config.requestTimeoutMs);
  try {
    await prepareDatabase(config, db, log);
    return db;
  } catch (e) {
    await db.close();
    throw e;
  }
}

/**
 * A running instance's database found without this version's schema (re-created empty, restored
 * from an older backup): what a start does to it, on the Db already open. The migrations (which
 * create a database that is gone, when DATABASE_CREATE allows, as a start would) are stopped after
 * `timeoutMs`; db/readiness.ts runs one at a time.
 */
export async function migrateAgain(config: Readonly<Config>, db: Db, log: Log, timeoutMs: number): Promise<void> {
  const { applied, created } = await migrate(db.database, { timeoutMs });
  if (created) log(created);
  if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  await prepareDatabase(config, db, log);
}

/**
 * What a start does to a migrated database: outside production, fills an empty database with the
 * sample data (SAMPLE_DATA=auto) and makes sure the demo accounts exist; in production, disables
 * any demo account and key a development start left behind.
 */
async function prepareDatabase(config: Readonly<Config>, db: Db, log: Log): Promise<void> {
  if (config.nodeEnv !== 'production') {
    if (config.sampleData === 'auto') {
      const state = await sampleDataState(db);
      if (state.state === 'empty' || state.state === 'partial') {
        if (state.state === 'partial') log('an earlier sample-data seed did not finish; seeding again');
        const options = state.state === 'partial' ? state.options : DEFAULT_SAMPLE;
        const report = await seedSampleData(db, options, seedProgress(logLines(log)));
        log(
          `sample data: ${Object.entries(report.counts)
            .map(([k, v]) => `${v} ${k}`)
            .join(', ')} in ${report.ms} ms`,
        );
      }
    }
    await ensureDemoAccounts(db);
  } else {
    const { users, keys } = await disableDemoAccounts(db);
    if (users || keys)
      log(
        `production: disabled ${users} demo user(s) and revoked ${keys} demo API key(s) left by a development start (their published passwords and keys no longer work)`,
      );
  }
}

/**
 * The configured database, migrated, as `cli` commands use it (and openDatabase, before its seed);
 * `statementTimeoutMs`: its reads' statement_timeout (createDb; none for the CLI).
 */
export async function openMigrated(
  config: Readonly<Pick<Config, 'database'>>,
  log: Log,
  statementTimeoutMs = 0,
): Promise<Db> {
  const cluster = await openCluster(config.database, log);
  try {
    const { applied, created } = await migrate(cluster.database);
    if (created) log(created);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    return await createDb(cluster.database, () => cluster.release(), statementTimeoutMs);
  } catch (e) {
    await cluster.release();
    throw e;
  }
}

/**
 * Seeding progress on the reporter `import` uses (rows, rows/s, ETA), a phase at a time, and one
 * line as each phase ends. `out` is stderr for the CLI; a server start passes its log.
 */
export function seedProgress(out: ProgressOut, intervalMs?: number): (p: SeedProgress) => void {
  let phase: SeedProgress['phase'] | undefined;
  let started = 0;
  let reporter: ProgressReporter | undefined;
  return (p) => {
    if (p.phase !== phase) {
      phase = p.phase;
      started = performance.now();
      reporter = progressReporter(`seeding ${p.phase}`, out, intervalMs);
    }
    const ms = performance.now() - started;
    if (p.done < p.total)
      return reporter!.update({ rows: p.done, elapsedMs: ms, share: p.done / p.total, of: `${grouped(p.total)} rows` });
    reporter!.done();
    const what = p.phase === 'reference' ? 'done' : `${grouped(p.total)} rows`;
    out.write(
      `seeding ${p.phase}: ${what} in ${(ms / 1000).toFixed(1)} s${p.phase === 'reference' ? '' : ` (${grouped(p.total / Math.max(ms / 1000, 0.001))} rows/s)`}\n`,
    );
  };
}

/**
 * The bus that carries live events between processes (`cli import` publishes, servers serve the
 * subscriptions): the database every process already shares (db/outbox.ts), whose sequence gives
 * each event the position a client resumes from, and which keeps them for replay; one source of
 * positions, so not Redis even with REDIS_URL (docs/architecture.md#live-events-and-their-positions).
 */
export function createEventBus(config: Readonly<Pick<Config, 'subscriptions'>>, db: Db): EventBus {
  return outboxEventBus(db, replayLimits(config.subscriptions));
}

/** A log as a progress reporter's output: a plain line per write. */
export const logLines = (log: Log): ProgressOut => ({
  isTTY: false,
  write: (line: string) => (log(line.trimEnd()), true),
});

/**
 * What /readyz asks (db/readiness.ts), and what brings back a database found without its schema:
 * what a start gives it (migrateAgain), then what was read from the old database forgotten (the
 * search engine, and the app's cached callers: `forget`). docs/operations.md "Readiness and recovery".
 */
export function databaseReadiness(
  config: Readonly<Config>,
  db: Db,
  logger: Logger,
  forget: () => void,
): DatabaseReadiness {
  return new DatabaseReadiness({
    db,
    logger,
    migrate: (timeoutMs) => migrateAgain(config, db, (line) => logger.info(line), timeoutMs),
    restored: () => {
      forget();
      forgetSearchEngine(db);
    },
  });
}
