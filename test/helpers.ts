import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, parsePostgresUrl, type Config, type DatabaseConfig } from '../src/config.js';
import { templateSchema } from './global-setup.js';

/**
 * The database every database test runs against: PostgreSQL, TEST_DATABASE_URL's server or the
 * run's embedded cluster (global-setup.ts). Each call makes a fresh, isolated database: a schema
 * of its own.
 */
export interface TestDatabase {
  name: 'postgresql';
  create(): Promise<DatabaseConfig>;
  /**
   * A fresh, isolated database holding exactly what `openDatabase` makes of an empty one outside
   * production with SAMPLE_DATA=`sampleData` (default auto): the migrations, the default sample
   * data (auto only) and the demo accounts. It is a copy of a template made that way once per test
   * run: the sample data is a pure function of its options, so the copy has the very rows a seed
   * would write, without seconds of seeding and of demo password hashing per database.
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
        const schema = templateSchema(templateDir(), sampleData);
        const url = new URL(baseUrl);
        url.searchParams.set('schema', schema);
        await seed(parsePostgresUrl(url.toString()), sampleData);
        return { schema };
      });
      const database = await create();
      // the same migrations make the same tables; then every row and sequence position of the template
      const { migrate } = await import('../src/db/migrate.js');
      await migrate(database);
      await copySchema(baseUrl, template.schema, database.schema);
      return database;
    },
    async cleanup() {
      if (!schemas.length) return;
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
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

/** Copies every row and sequence position of schema `from` into `to`, which has the same (migrated, empty) tables. */
async function copySchema(baseUrl: string, from: string, to: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const tables = (
      await client.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> '_prisma_migrations'`,
        [from],
      )
    ).rows.map((r) => r.name);
    const fks = (
      await client.query<{ child: string; parent: string }>(
        `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
         WHERE k.contype = 'f' AND k.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)`,
        [from],
      )
    ).rows;
    // parents before children, so that every foreign key finds its row
    const ordered: string[] = [];
    const visit = (t: string, seen: Set<string>) => {
      if (ordered.includes(t) || seen.has(t)) return;
      seen.add(t);
      for (const fk of fks) if (fk.child === t && fk.parent !== t) visit(fk.parent, seen);
      ordered.push(t);
    };
    for (const t of tables) visit(t, new Set());
    // enum columns are of the schema's own enum types: cast through text to the twin type in `to`
    const columns = (
      await client.query<{
        tbl: string;
        col: string;
        typ: string;
        typschema: string;
        elem: string | null;
        elemschema: string | null;
      }>(
        `SELECT c.relname AS tbl, a.attname AS col, t.typname AS typ, tn.nspname AS typschema, e.typname AS elem, en.nspname AS elemschema
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
         JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace tn ON tn.oid = t.typnamespace
         LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' LEFT JOIN pg_namespace en ON en.oid = e.typnamespace
         WHERE cn.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum`,
        [from],
      )
    ).rows;
    const copy = (t: string) => {
      const cols = columns.filter((c) => c.tbl === t);
      const names = cols.map((c) => `"${c.col}"`).join(', ');
      const values = cols
        .map((c) =>
          c.typschema === from
            ? `"${c.col}"::text::"${to}"."${c.typ}"`
            : c.elemschema === from
              ? `"${c.col}"::text[]::"${to}"."${c.elem}"[]`
              : `"${c.col}"`,
        )
        .join(', ');
      return `INSERT INTO "${to}"."${t}" (${names}) OVERRIDING SYSTEM VALUE SELECT ${values} FROM "${from}"."${t}"`;
    };
    const sequences = (
      await client.query<{ name: string; last: string | null }>(
        `SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = $1`,
        [from],
      )
    ).rows;
    await client.query('BEGIN');
    // a copy as it is: no trigger fires (the rows keep their "rev", and "SecurityMetrics", which
    // triggers keep from the fundamentals, is copied rather than derived twice); needs a superuser
    await client.query('SET LOCAL session_replication_role = replica');
    // rows the migrations themselves write (the SecurityMasterVersion row) make way for the template's
    if (ordered.length) await client.query(`TRUNCATE ${ordered.map((t) => `"${to}"."${t}"`).join(', ')}`);
    for (const t of ordered) await client.query(copy(t));
    for (const s of sequences)
      if (s.last !== null) await client.query(`SELECT setval($1, $2::bigint, true)`, [`"${to}"."${s.name}"`, s.last]);
    await client.query('COMMIT');
    // as a seed ends (refreshStatistics): planner statistics and a visibility map, so that queries
    // are planned as they would be over a freshly seeded database
    for (const t of ordered) await client.query(`VACUUM (ANALYZE) "${to}"."${t}"`);
  } finally {
    await client.end();
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
