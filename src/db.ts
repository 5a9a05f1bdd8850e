import fs from 'node:fs';
import path from 'node:path';
import type Libsql from 'libsql';
import type { Pool } from 'pg';
import type { DatabaseConfig } from './config.js';
import type { PrismaClient } from '../generated/prisma/client.js';

export type SqliteConnection = Libsql.Database;

/**
 * A Prisma client for the configured database. App code is typed against the SQLite client, which
 * keeps it inside the subset both databases share; the PostgreSQL client (generated from the
 * derived schema) is the same API at run time.
 */
export interface Db {
  prisma: PrismaClient;
  kind: DatabaseConfig['kind'];
  /**
   * The driver under Prisma, for the few paths where Prisma's per-row cost matters (bulk loads).
   * PostgreSQL: the very pool Prisma uses. SQLite: a connection of its own to the same file.
   */
  driver: { kind: 'sqlite'; connection(): SqliteConnection } | { kind: 'postgresql'; pool: Pool };
  /** SQL statements sent through Prisma since this client was created; tests and benchmarks read it. */
  readonly statementCount: number;
  /** Subscribe to every SQL statement sent through Prisma (returns an unsubscribe function). */
  onStatement(listener: (sql: string) => void): () => void;
  close(): Promise<void>;
}

export async function createDb(database: DatabaseConfig): Promise<Db> {
  const log = [{ emit: 'event' as const, level: 'query' as const }];
  let prisma: PrismaClient;
  let driver: Db['driver'];
  let closeDriver: () => Promise<void>;
  if (database.kind === 'postgresql') {
    const [{ PrismaClient: PgClient }, { PrismaPg }, { default: pg }] = await Promise.all([
      import('../generated/prisma-pg/client.js'),
      import('@prisma/adapter-pg'),
      import('pg'),
    ]);
    const pool = new pg.Pool({
      connectionString: database.url,
      max: 10,
      connectionTimeoutMillis: 5_000,
      // search_path too, so raw SQL finds the tables of a non-default schema as generated queries do
      options: `-c search_path="${database.schema}"`,
    });
    // An idle client losing its server (a restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    prisma = new PgClient({ adapter: new PrismaPg(pool, { schema: database.schema }), log }) as unknown as PrismaClient;
    driver = { kind: 'postgresql', pool };
    closeDriver = () => pool.end();
  } else {
    const [{ PrismaClient: SqliteClient }, { PrismaLibSql }, { default: Database }] = await Promise.all([
      import('../generated/prisma/client.js'),
      import('@prisma/adapter-libsql'),
      import('libsql'),
    ]);
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    // timeout: wait up to 10 s for another process's write lock (an import, a migration) instead
    // of failing at once; libsql applies it to every connection it opens and enforces foreign keys.
    // intMode bigint: 64-bit columns (nanosecond timestamps) would otherwise fail to read.
    prisma = new SqliteClient({ adapter: new PrismaLibSql({ url: database.url, timeout: 10_000, intMode: 'bigint' }), log });
    let conn: SqliteConnection | undefined;
    driver = {
      kind: 'sqlite',
      connection: () => (conn ??= new Database(database.file, { timeout: 10_000 })),
    };
    closeDriver = async () => {
      conn?.close();
    };
  }

  let statementCount = 0;
  const listeners = new Set<(sql: string) => void>();
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) => {
    statementCount++;
    for (const l of listeners) l(ev.query);
  });

  return {
    prisma,
    kind: database.kind,
    driver,
    get statementCount() {
      return statementCount;
    },
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
