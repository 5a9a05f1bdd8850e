import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, parseDatabaseUrl, type Config, type DatabaseConfig } from '../src/config.js';

/**
 * The databases every database test runs against: SQLite always; PostgreSQL when
 * TEST_DATABASE_URL is set (.ci/run sets it). Each call makes a fresh, isolated database: a
 * temporary SQLite file, or a PostgreSQL schema of its own.
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgresql';
  create(): Promise<DatabaseConfig>;
  /** Drops everything `create` made. */
  cleanup(): Promise<void>;
}

export function testDatabases(): TestDatabase[] {
  const list: TestDatabase[] = [sqliteTestDatabase()];
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) list.push(postgresTestDatabase(pgUrl));
  return list;
}

function sqliteTestDatabase(): TestDatabase {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    async create() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-test-'));
      dirs.push(dir);
      return parseDatabaseUrl(`file:${path.join(dir, 'test.db')}`, dir);
    },
    async cleanup() {
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

function postgresTestDatabase(baseUrl: string): TestDatabase {
  const schemas: string[] = [];
  return {
    name: 'postgresql',
    async create() {
      const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      const url = new URL(baseUrl);
      url.searchParams.set('schema', schema);
      return parseDatabaseUrl(url.toString(), os.tmpdir());
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

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/** A test configuration around a database, with sample data off unless asked for. */
export function testConfig(database: DatabaseConfig, overrides: Partial<Config> = {}, env: Record<string, string> = {}): Readonly<Config> {
  return Object.freeze({ ...loadConfig({ NODE_ENV: 'test', SAMPLE_DATA: 'none', JWT_SECRET: TEST_JWT_SECRET, COOKIE_SECURE: 'true', ...env }), database, ...overrides });
}
