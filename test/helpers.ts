import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, parsePostgresUrl, type Config, type DatabaseConfig } from '../src/config.js';
import { replayLimits } from '../src/db/outbox.js';
import { subscriptionConfig } from '../src/domain/serving-config.js';
import { templateDatabase } from './global-setup.js';

/** How long and how much the database's event bus keeps, as configured by default. */
export const REPLAY_LIMITS = replayLimits(subscriptionConfig({}));

/**
 * The database every database test runs against: PostgreSQL, TEST_DATABASE_URL's server or the
 * run's embedded cluster (global-setup.ts). Each call makes a fresh, isolated database: a schema
 * of its own in the run's database (`create`), or a database of its own (`createSeeded`).
 */
export interface TestDatabase {
  name: 'postgresql';
  create(): Promise<DatabaseConfig>;
  /**
   * A fresh, isolated database holding exactly what `openDatabase` makes of an empty one outside
   * production with SAMPLE_DATA=`sampleData` (default auto): the migrations, the default sample
   * data (auto only) and the demo accounts, in its schema public. It is a copy (CREATE DATABASE ...
   * TEMPLATE) of a database made that way once per test run: the sample data is a pure function of
   * its options, so the copy has the very rows a seed would write, without seconds of seeding and of
   * demo password hashing per database. The server's user needs CREATEDB.
   * app/bootstrap.test.ts runs the seed itself.
   */
  createSeeded(sampleData?: 'auto' | 'none'): Promise<DatabaseConfig>;
  /** Drops everything `create` and `createSeeded` made. */
  cleanup(): Promise<void>;
}

/** The run's PostgreSQL server (a URL naming its database): TEST_DATABASE_URL, or the embedded cluster global-setup.ts started. */
export function testDatabaseUrl(): string {
  return inject('databaseUrl');
}

export function testDatabases(): TestDatabase[] {
  return [postgresTestDatabase(testDatabaseUrl())];
}

function postgresTestDatabase(baseUrl: string): TestDatabase {
  const schemas: string[] = [];
  const databases: string[] = [];
  const create = async () => {
    const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    const url = new URL(baseUrl);
    url.searchParams.set('schema', schema);
    return parsePostgresUrl(url.toString());
  };
  return {
    name: 'postgresql',
    create,
    async createSeeded(sampleData = 'auto') {
      const template = await seededTemplate(`postgresql-${sampleData}`, async () => {
        const url = databaseUrl(baseUrl, templateDatabase(templateDir(), sampleData));
        const { createMissingDatabase } = await import('../src/db/pg-create.js');
        await createMissingDatabase(pg, { url, schema: 'public', create: true });
        await seed(parsePostgresUrl(url), sampleData);
        return { name: templateDatabase(templateDir(), sampleData) };
      });
      // a copy of the template's files: its rows, sequences, planner statistics and visibility map,
      // as a seed leaves them (refreshStatistics), without migrating, copying rows or vacuuming
      const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
      databases.push(name);
      await onServer(baseUrl, (c) =>
        c.query(`CREATE DATABASE "${name}" TEMPLATE "${template.name}" STRATEGY FILE_COPY`),
      );
      return parsePostgresUrl(databaseUrl(baseUrl, name));
    },
    async cleanup() {
      if (!schemas.length && !databases.length) return;
      await onServer(baseUrl, async (client) => {
        for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
        for (const d of databases.splice(0)) await client.query(`DROP DATABASE IF EXISTS "${d}" WITH (FORCE)`);
      });
    },
  };
}

/** `baseUrl` naming the database `name` (its default schema, public). */
function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  url.searchParams.delete('schema');
  return url.toString();
}

async function onServer<T>(baseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function templateDir(): string {
  const dir = inject('templateDir');
  if (!dir)
    throw new Error(
      'no template directory: run the tests through vitest with vitest.config.ts (its globalSetup provides one)',
    );
  return dir;
}

/** What `openDatabase` makes of an empty database outside production. */
async function seed(database: DatabaseConfig, sampleData: 'auto' | 'none'): Promise<void> {
  const { openDatabase } = await import('../src/bootstrap.js');
  const db = await openDatabase(testConfig(database, { sampleData }));
  await db.close();
}

/**
 * The template of one kind for this test run: made by the first test file that asks for it (a
 * lock directory keeps other workers waiting), then read from the file that describes it.
 */
async function seededTemplate<T>(kind: string, make: () => Promise<T>): Promise<T> {
  const dir = templateDir();
  const ready = path.join(dir, `${kind}.json`);
  const failed = path.join(dir, `${kind}.failed`);
  try {
    fs.mkdirSync(path.join(dir, `${kind}.lock`));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    for (const t0 = Date.now(); Date.now() - t0 < 300_000; await new Promise((r) => setTimeout(r, 50))) {
      if (fs.existsSync(ready)) return JSON.parse(fs.readFileSync(ready, 'utf8')) as T;
      if (fs.existsSync(failed))
        throw new Error(
          `making the seeded ${kind} template failed in another worker: ${fs.readFileSync(failed, 'utf8')}`,
        );
    }
    throw new Error(`no seeded ${kind} template after 300 s`);
  }
  try {
    const value = await make();
    fs.writeFileSync(`${ready}.tmp`, JSON.stringify(value));
    fs.renameSync(`${ready}.tmp`, ready);
    return value;
  } catch (e) {
    fs.writeFileSync(failed, e instanceof Error ? (e.stack ?? e.message) : String(e));
    throw e;
  }
}

/** Random, as config.ts requires of any JWT_SECRET (openssl rand -base64 33). */
export const TEST_JWT_SECRET = '8UCTIjGuiQNN/DV1Ua/uogaaf4rAPrHwAsizEJdNopCi';

/**
 * A test configuration around a database, with sample data off unless asked for. In production
 * mode PUBLIC_URL is http://test (production needs one, config.ts), the origin tests fetch from.
 * The log is silent whatever NODE_ENV a test asks for (production and development log at info),
 * so that request lines stay out of the test output; a test that reads log lines passes its own
 * logger (observability/observability.test.ts) or LOG_LEVEL.
 */
export function testConfig(
  database: DatabaseConfig,
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
): Readonly<Config & { database: DatabaseConfig }> {
  const publicUrl =
    env.NODE_ENV === 'production' || overrides.nodeEnv === 'production' ? { PUBLIC_URL: 'http://test' } : {};
  return Object.freeze({
    ...loadConfig({
      NODE_ENV: 'test',
      SAMPLE_DATA: 'none',
      JWT_SECRET: TEST_JWT_SECRET,
      COOKIE_SECURE: 'true',
      LOG_LEVEL: 'silent',
      ...publicUrl,
      ...env,
    }),
    database,
    ...overrides,
  }) as Readonly<Config & { database: DatabaseConfig }>;
}

/** The DATABASE_URL that names `database` (its schema as `?schema=`), for a process a test starts. */
export function databaseUrlOf(database: DatabaseConfig): string {
  return `${database.url}${database.url.includes('?') ? '&' : '?'}schema=${database.schema}`;
}

/** A TCP port free on 127.0.0.1 right now (for servers a test starts in another process). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
