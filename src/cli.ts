import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { progressLogger } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createDb, type Db } from './db.js';
import { AppError } from './errors.js';
import { DEFAULT_SAMPLE } from './ingest/sample.js';
import { migrate } from './migrate.js';
import {
  createApiKey,
  createUser,
  disableUser,
  ensureDemoAccounts,
  findUserByEmail,
  listApiKeys,
  revokeApiKey,
  setUserTier,
  TIERS,
  type Tier,
} from './services/account.js';
import { seedSampleData } from './services/sample.js';

const USAGE = `usage: npm run cli -- <command> [options]
commands:
  migrate                                   apply pending migrations to DATABASE_URL
  seed [--scale N] [--seed N] [--securities N]
                                            replace all market data with the deterministic sample set
                                            (accounts and API keys stay); --scale multiplies trades and quotes
  users create --email E --tier free|pro|enterprise [--username U] (--password P | --password-stdin)
  users set-tier --email E --tier T
  users disable --email E [--enable]         a disabled user can neither log in nor use keys or tokens
  apikeys create --user E --name N          prints the new key once; only its hash is stored
  apikeys list [--user E]
  apikeys revoke --id KEY_ID
Every command migrates the database first. Changes reach running servers within AUTH_CACHE_SECONDS (default 5).`;

/** A usage mistake: one line, the usage, exit code 2. */
class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function parse(args: string[], options: Record<string, 'string' | 'boolean'>): Flags {
  try {
    return parseArgs({ args, options: Object.fromEntries(Object.entries(options).map(([k, type]) => [k, { type }])), strict: true }).values as Flags;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function required(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function tierOf(raw: string): Tier {
  if (!(TIERS as readonly string[]).includes(raw)) throw new UsageError(`--tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(raw)}`);
  return raw as Tier;
}

function positiveNumber(name: string, raw: string | boolean | undefined, fallback: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'}; got ${JSON.stringify(raw)}`);
  }
  return n;
}

async function userIdOf(db: Db, email: string): Promise<string> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new AppError('NOT_FOUND', `no user with email ${JSON.stringify(email)}`);
  return user.id;
}

const log = (m: string) => console.log(m);

type Command = (db: Db, args: string[], config: Readonly<Config>) => Promise<void>;

const commands: Record<string, Command> = {
  async migrate() {
    // the migration ran before the command (see main)
    log('database is up to date');
  },

  async seed(db, args, config) {
    const flags = parse(args, { scale: 'string', seed: 'string', securities: 'string' });
    const options = {
      scale: positiveNumber('scale', flags.scale, DEFAULT_SAMPLE.scale, false),
      seed: positiveNumber('seed', flags.seed, DEFAULT_SAMPLE.seed, true),
      securities: positiveNumber('securities', flags.securities, DEFAULT_SAMPLE.securities, true),
    };
    const report = await seedSampleData(db, options, progressLogger(log));
    log(`seeded (${JSON.stringify(report.options)}): ${Object.entries(report.counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${report.ms} ms`);
    if (config.nodeEnv !== 'production') await ensureDemoAccounts(db);
  },

  async 'users create'(db, args) {
    const flags = parse(args, { email: 'string', password: 'string', 'password-stdin': 'boolean', tier: 'string', username: 'string' });
    const password = flags['password-stdin'] ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : required(flags, 'password');
    const user = await createUser(db, { email: required(flags, 'email'), password, tier: tierOf(required(flags, 'tier')), username: flags.username as string | undefined });
    log(`created user ${user.email} (id ${user.id}, tier ${user.tier})`);
  },

  async 'users set-tier'(db, args) {
    const flags = parse(args, { email: 'string', tier: 'string' });
    const user = await setUserTier(db, required(flags, 'email'), tierOf(required(flags, 'tier')));
    log(`${user.email} is now on the ${user.tier} tier`);
  },

  async 'users disable'(db, args) {
    const flags = parse(args, { email: 'string', enable: 'boolean' });
    const user = await disableUser(db, required(flags, 'email'), !flags.enable);
    log(user.disabled ? `${user.email} is disabled; its sessions are revoked` : `${user.email} is enabled`);
  },

  async 'apikeys create'(db, args) {
    const flags = parse(args, { user: 'string', name: 'string' });
    const [email, name] = [required(flags, 'user'), required(flags, 'name')];
    const { key, record } = await createApiKey(db, await userIdOf(db, email), name);
    log(`created API key ${record.id} "${record.name}" for ${email}`);
    log(`key (shown once, store it now): ${key}`);
  },

  async 'apikeys list'(db, args) {
    const flags = parse(args, { user: 'string' });
    const keys = await listApiKeys(db, flags.user ? await userIdOf(db, flags.user as string) : undefined);
    if (keys.length === 0) log('no API keys');
    for (const k of keys) {
      log(`${k.id}  ${k.prefix}…  ${k.user.email}  "${k.name}"  created ${k.createdAt.toISOString()}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}`);
    }
  },

  async 'apikeys revoke'(db, args) {
    const flags = parse(args, { id: 'string' });
    const key = await revokeApiKey(db, required(flags, 'id'));
    log(`revoked API key ${key.id} "${key.name}"`);
  },
};

async function main(argv: string[]): Promise<number> {
  const name = [`${argv[0]} ${argv[1]}`, argv[0]].find((n) => n !== undefined && n in commands);
  if (!name) {
    console.error(argv.length ? `unknown command ${JSON.stringify(argv.slice(0, 2).join(' '))}\n${USAGE}` : USAGE);
    return 2;
  }
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`configuration error: ${e.message}`);
    return 2;
  }
  const { applied } = await migrate(config.database);
  if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  const db = await createDb(config.database);
  try {
    await commands[name]!(db, argv.slice(name.split(' ').length), config);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`${e.message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof AppError) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`error: ${(e as Error)?.message ?? e}`);
    process.exit(1);
  },
);
