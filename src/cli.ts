import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createEventBus, openMigrated, seedProgress } from './bootstrap.js';
import { loadConfig, type Config } from './config.js';
import { ConfigError } from './domain/env-values.js';
import type { Db } from './db/client.js';
import { AppError } from './errors.js';
import {
  DEFAULT_BATCH_SIZE,
  describeReject,
  ImportAborted,
  ImportInputError,
  importStream,
  type ImportCounts,
} from './ingest/import-stream.js';
import { IMPORT_RESOURCES, isPublishing } from './ingest/importer.js';
import { importProgress, progressReporter } from './ingest/progress.js';
import { RejectTally } from './ingest/reject-summary.js';
import { importerFor, isImportResource } from './ingest/registry.js';
import { DEFAULT_SAMPLE } from './sample/generate.js';
import { sourceOf, sync } from './ingest/sync.js';
import {
  createApiKey,
  createUser,
  disableUser,
  ensureDemoAccounts,
  findUserByEmail,
  listApiKeys,
  revokeApiKey,
  setUserTier,
  type Tier,
} from './services/account.js';
import { TIERS } from './domain/entitlements.js';
import { seedSampleData } from './sample/seed.js';
import { listHighWater } from './services/sync-state.js';
import { rebuildBars } from './services/bar-write.js';
import { parseSymbol } from './domain/symbols.js';
import { USAGE } from './cli-usage.js';

/** A usage mistake: one line, the usage, exit code 2. */
class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function parse(args: string[], options: Record<string, 'string' | 'boolean'>): Flags {
  try {
    return parseArgs({
      args,
      options: Object.fromEntries(Object.entries(options).map(([k, type]) => [k, { type }])),
      strict: true,
    }).values as Flags;
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
  if (!(TIERS as readonly string[]).includes(raw))
    throw new UsageError(`--tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(raw)}`);
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

/** Resolves to the exit code, or nothing for 0. */
type Command = (db: Db, args: string[], config: Readonly<Config>) => Promise<number | void>;

const n = (x: number) => x.toLocaleString('en-US');
const summary = (c: ImportCounts) =>
  `${n(c.read)} read, ${n(c.inserted)} inserted, ${n(c.updated)} updated, ${n(c.unchanged)} unchanged, ${n(c.rejected)} rejected` +
  (c.duplicates ? `, ${n(c.duplicates)} repeated in a batch (the last one counted)` : '');

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
    const report = await seedSampleData(db, options, seedProgress(process.stderr));
    log(
      `seeded (${JSON.stringify(report.options)}): ${Object.entries(report.counts)
        .map(([k, v]) => `${n(v)} ${k}`)
        .join(', ')} in ${(report.ms / 1000).toFixed(1)} s`,
    );
    if (config.nodeEnv !== 'production') await ensureDemoAccounts(db);
  },

  async 'bars rebuild'(db, args) {
    const flags = parse(args, { symbol: 'string', from: 'string', to: 'string' });
    const date = (name: 'from' | 'to') => {
      const v = flags[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v)))
        throw new UsageError(`--${name} must be a date YYYY-MM-DD; got ${JSON.stringify(v)}`);
      return v;
    };
    const symbol = flags.symbol === undefined ? undefined : parseSymbol(String(flags.symbol), '--symbol');
    const started = performance.now();
    const done = await rebuildBars(db, { symbol, from: date('from'), to: date('to') });
    log(
      `rebuilt the bars of ${n(done.minutes)} minutes of ${n(done.symbols)} symbols in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  },

  async 'users create'(db, args) {
    const flags = parse(args, {
      email: 'string',
      password: 'string',
      'password-stdin': 'boolean',
      tier: 'string',
      username: 'string',
    });
    const password = flags['password-stdin']
      ? readFileSync(0, 'utf8').replace(/\r?\n$/, '')
      : required(flags, 'password');
    const user = await createUser(db, {
      email: required(flags, 'email'),
      password,
      tier: tierOf(required(flags, 'tier')),
      username: flags.username as string | undefined,
    });
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

  async 'apikeys create'(db, args, config) {
    const flags = parse(args, { user: 'string', name: 'string' });
    const [email, name] = [required(flags, 'user'), required(flags, 'name')];
    let created: Awaited<ReturnType<typeof createApiKey>>;
    try {
      // the operator's tool keeps to the cap too: a user's keys share one budget anyway
      created = await createApiKey(db, await userIdOf(db, email), name, config.auth.apiKeysPerUser);
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'API_KEY_LIMIT_REACHED')) throw e;
      throw new AppError(
        e.code,
        `${e.message.replace('this user', email)} (apikeys list --user ${email}; apikeys revoke --id KEY_ID)`,
      );
    }
    const { key, record } = created;
    log(`created API key ${record.id} "${record.name}" for ${email}`);
    log(`key (shown once, store it now): ${key}`);
  },

  async 'apikeys list'(db, args) {
    const flags = parse(args, { user: 'string' });
    const keys = await listApiKeys(db, flags.user ? await userIdOf(db, flags.user as string) : undefined);
    if (keys.length === 0) log('no API keys');
    for (const k of keys) {
      log(
        `${k.id}  ${k.prefix}…  ${k.user.email}  "${k.name}"  created ${k.createdAt.toISOString()}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}`,
      );
    }
  },

  async 'apikeys revoke'(db, args) {
    const flags = parse(args, { id: 'string' });
    const key = await revokeApiKey(db, required(flags, 'id'));
    log(`revoked API key ${key.id} "${key.name}"`);
  },

  async sync(db, args, config) {
    const flags = parse(args, { from: 'string', apikey: 'string', resources: 'string', since: 'string' });
    const from = required(flags, 'from');
    if (!/^https?:\/\/[^/]/.test(from))
      throw new UsageError(`--from must be an http(s) URL, got ${JSON.stringify(from)}`);
    const resources =
      flags.resources === undefined
        ? undefined
        : String(flags.resources)
            .split(',')
            .map((r) => r.trim());
    for (const r of resources ?? []) {
      if (!isImportResource(r))
        throw new UsageError(
          `--resources: unknown resource ${JSON.stringify(r)}; one of ${IMPORT_RESOURCES.join(', ')}`,
        );
    }
    const since = flags.since as string | undefined;
    if (since !== undefined && Number.isNaN(Date.parse(since)))
      throw new UsageError(`--since must be an ISO 8601 date or time, got ${JSON.stringify(since)}`);
    // the servers' subscribers, through Redis or the database (bootstrap.ts)
    const events = createEventBus(config, db);
    const reports = await sync(db, {
      from,
      apikey: required(flags, 'apikey'),
      ...(resources ? { resources: resources as (typeof IMPORT_RESOURCES)[number][] } : {}),
      ...(since ? { since } : {}),
      maxBodyBytes: config.ingest.syncMaxBodyBytes,
      events,
      log,
    }).finally(() => events.close());
    const incomplete = reports.filter((r) => r.skipped);
    const rejected = reports.reduce((sum, r) => sum + r.rejected, 0);
    log(
      `sync from ${sourceOf(from)}: ${reports.length - incomplete.length} of ${reports.length} resources complete${rejected ? `, ${rejected} records rejected` : ''}`,
    );
    return incomplete.length || rejected ? 1 : 0;
  },

  async 'sync status'(db, args) {
    const flags = parse(args, { from: 'string' });
    const marks = await listHighWater(db, flags.from ? sourceOf(flags.from as string) : undefined);
    if (marks.length === 0) log('no sync has run');
    for (const m of marks)
      log(`${m.source}  ${m.resource}  up to ${m.highWater}  (${m.rows} rows, ${m.updatedAt.toISOString()})`);
  },

  async import(db, args, config) {
    let parsed;
    try {
      parsed = parseArgs({
        args,
        options: {
          strict: { type: 'boolean' },
          batch: { type: 'string' },
          follow: { type: 'boolean' },
          symbol: { type: 'string' },
          verbose: { type: 'boolean' },
        },
        allowPositionals: true,
        strict: true,
      });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const { values: flags, positionals } = parsed;
    const [resource, input, ...extra] = positionals;
    if (!resource || !input || extra.length)
      throw new UsageError('import takes a resource and a file (or - for stdin)');
    if (!isImportResource(resource))
      throw new UsageError(`unknown resource ${JSON.stringify(resource)}; one of ${IMPORT_RESOURCES.join(', ')}`);
    if (flags.follow && input !== '-')
      throw new UsageError('--follow reads stdin: tail -f FILE | npm run cli -- import RESOURCE - --follow');
    const batchSize = positiveNumber('batch', flags.batch, DEFAULT_BATCH_SIZE, true);
    let defaults: Record<string, unknown> | undefined;
    if (flags.symbol !== undefined) {
      if (resource !== 'trades' && resource !== 'quotes') throw new UsageError('--symbol is for trades and quotes');
      defaults = { symbol: flags.symbol };
    }

    const importer = await importerFor(resource);
    // the servers' subscribers, through the database's table of live events (bootstrap.ts)
    const events = isPublishing(importer) ? createEventBus(config, db) : undefined;
    const progress = progressReporter(resource);
    // Ctrl-C or SIGTERM (a follow-mode feed being stopped): write what was read, close the bus, summarize
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const warn = (m: string) => {
      progress.done();
      console.error(m);
    };
    // the first record of each reason as it comes; the rest are counted, one line per reason at the end
    const tally = new RejectTally();
    try {
      const result = await importStream(db, importer, input, {
        batchSize,
        strict: Boolean(flags.strict),
        follow: Boolean(flags.follow),
        ...(defaults ? { defaults } : {}),
        ...(events ? { events } : {}),
        onReject: (r) => {
          if (tally.add(r) || flags.verbose) warn(`rejected ${describeReject(r)}`);
        },
        onProgress: (p) => progress.update(importProgress(p)),
        onWarning: (m) => warn(`warning: ${m}`),
        signal: stop.signal,
        maxLineBytes: config.ingest.importMaxLineBytes,
      });
      progress.done();
      const { counts, ms } = result;
      if (!flags.verbose) for (const line of tally.lines(counts.read, '; --verbose lists each')) console.error(line);
      const how = stop.signal.aborted ? 'stopped by a signal after importing' : 'imported';
      log(
        `${how} ${resource} from ${input === '-' ? 'stdin' : input} (${result.format}): ${summary(counts)} in ${(ms / 1000).toFixed(1)} s (${n(Math.round(counts.read / Math.max(ms / 1000, 0.001)))} rows/s)`,
      );
      // a file cut short by Ctrl-C is not imported; a --follow feed ends that way
      if (stop.signal.aborted && !flags.follow) return 130;
      return counts.rejected ? 1 : 0;
    } catch (e) {
      progress.done();
      if (e instanceof ImportAborted) {
        const c = e.committed;
        console.error(`import aborted (--strict) at ${describeReject(e.reject)}`);
        console.error(
          `nothing of the batch holding that record was written; earlier batches were committed: ${n(c.inserted)} inserted, ${n(c.updated)} updated, ${n(c.unchanged)} unchanged`,
        );
        return 1;
      }
      if (e instanceof ImportInputError) throw new AppError('BAD_REQUEST', e.message);
      throw e;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await events?.close();
    }
  },
};

async function main(argv: string[]): Promise<number> {
  // what a user types first, alone or after a command: the usage on stdout, and success (no database opened)
  if (argv.some((a) => a === '--help' || a === '-h') || (argv.length === 1 && argv[0] === 'help')) {
    console.log(USAGE);
    return 0;
  }
  const name = [`${argv[0]} ${argv[1]}`, argv[0]].find((n) => n !== undefined && Object.hasOwn(commands, n));
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
  const db = await openMigrated(config, log);
  try {
    return (await commands[name]!(db, argv.slice(name.split(' ').length), config)) ?? 0;
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

/** Exits once stdout and stderr are written out: to a pipe they are asynchronous, and exit would cut them short. */
function exit(code: number): void {
  let open = 2;
  for (const stream of [process.stdout, process.stderr]) stream.write('', () => --open === 0 && process.exit(code));
}

main(process.argv.slice(2)).then(exit, (e: unknown) => {
  console.error(`error: ${(e as Error)?.message ?? e}`);
  // as server.ts: a database to create by hand is not a failure that running again would mend
  exit(e instanceof AppError && e.code === 'DATABASE_MISSING' ? 2 : 1);
});
