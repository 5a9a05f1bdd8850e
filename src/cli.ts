import { parseArgs } from 'node:util';
import { progressLogger } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createDb } from './db.js';
import { DEFAULT_SAMPLE } from './ingest/sample.js';
import { migrate } from './migrate.js';
import { ensureDemoAccounts } from './services/account.js';
import { seedSampleData } from './services/sample.js';

const USAGE = `usage: npm run cli -- <command> [options]
commands:
  migrate                                   apply pending migrations to DATABASE_URL
  seed [--scale N] [--seed N] [--securities N]
                                            replace all market data with the deterministic sample set
                                            (accounts and API keys stay); --scale multiplies trades and quotes`;

function fail(msg: string): never {
  console.error(msg);
  process.exit(2);
}

function positiveNumber(name: string, raw: string | undefined, fallback: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}; got ${JSON.stringify(raw)}`);
  }
  return n;
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) fail(`configuration error: ${e.message}`);
    throw e;
  }
  const log = (m: string) => console.log(m);
  switch (command) {
    case 'migrate': {
      const { applied } = await migrate(config.database);
      log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return;
    }
    case 'seed': {
      let values: { scale?: string; seed?: string; securities?: string };
      try {
        ({ values } = parseArgs({
          args: rest,
          options: { scale: { type: 'string' }, seed: { type: 'string' }, securities: { type: 'string' } },
          strict: true,
        }));
      } catch (e) {
        fail(`${(e as Error).message}\n${USAGE}`);
      }
      const options = {
        scale: positiveNumber('scale', values.scale, DEFAULT_SAMPLE.scale, false),
        seed: positiveNumber('seed', values.seed, DEFAULT_SAMPLE.seed, true),
        securities: positiveNumber('securities', values.securities, DEFAULT_SAMPLE.securities, true),
      };
      await migrate(config.database);
      const db = await createDb(config.database);
      try {
        const report = await seedSampleData(db, options, progressLogger(log));
        log(`seeded (${JSON.stringify(report.options)}): ${Object.entries(report.counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${report.ms} ms`);
        if (config.nodeEnv !== 'production') await ensureDemoAccounts(db);
      } finally {
        await db.close();
      }
      return;
    }
    default:
      fail(command ? `unknown command ${JSON.stringify(command)}\n${USAGE}` : USAGE);
  }
}

main().catch((e: unknown) => {
  console.error(`error: ${(e as Error)?.message ?? e}`);
  process.exit(1);
});
