import type { Config } from './config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { outboxEventBus } from './db/outbox.js';
import { redisEventBus, type EventBus } from './runtime/events.js';
import { disableDemoAccounts, ensureDemoAccounts } from './services/account.js';
import { sampleDataState, seedSampleData, type SeedProgress } from './sample/seed.js';
import { DEFAULT_SAMPLE } from './sample/generate.js';

export type Log = (msg: string) => void;

/**
 * Opens the configured database ready for use: applies pending migrations, and outside production
 * fills an empty database with the sample data (SAMPLE_DATA=auto) and makes sure the demo accounts
 * exist. In production it disables any demo account and key a development start left behind.
 * Safe to call on every start: a seeded database is not seeded again, a seed that was interrupted
 * is started over, and demo accounts are disabled once.
 */
export async function openDatabase(config: Readonly<Config>, log: Log = () => {}): Promise<Db> {
  const { applied, created } = await migrate(config.database);
  if (created) log(created);
  if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  const db = await createDb(config.database);
  try {
    if (config.nodeEnv !== 'production') {
      if (config.sampleData === 'auto') {
        const state = await sampleDataState(db);
        if (state.state === 'empty' || state.state === 'partial') {
          if (state.state === 'partial') log('an earlier sample-data seed did not finish; seeding again');
          const options = state.state === 'partial' ? state.options : DEFAULT_SAMPLE;
          const report = await seedSampleData(db, options, progressLogger(log));
          log(`sample data: ${Object.entries(report.counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${report.ms} ms`);
        }
      }
      await ensureDemoAccounts(db);
    } else {
      const { users, keys } = await disableDemoAccounts(db);
      if (users || keys) log(`production: disabled ${users} demo user(s) and revoked ${keys} demo API key(s) left by a development start (their published passwords and keys no longer work)`);
    }
    return db;
  } catch (e) {
    await db.close();
    throw e;
  }
}

/** Plain progress lines, at most one per phase every two seconds. */
export function progressLogger(log: Log): (p: SeedProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (p.done === p.total || now - last > 2_000) {
      last = now;
      log(`seeding ${p.phase}: ${p.done}/${p.total}`);
    }
  };
}

/**
 * The bus that carries live events between processes (`cli import` publishes, servers serve the
 * subscriptions): Redis with REDIS_URL (many instances: no table to poll or prune), else the
 * database every process already shares (db/outbox.ts), so `npm start` alone serves them.
 */
export function createEventBus(config: Readonly<Pick<Config, 'redisUrl' | 'database'>>, db: Db): EventBus {
  return config.redisUrl ? redisEventBus(config.redisUrl) : outboxEventBus(db, config.database);
}
