import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';

/**
 * A Prisma client for the configured database. App code is typed against the SQLite client, which
 * keeps it inside the subset both databases share; the PostgreSQL client (generated from the
 * derived schema) is the same API at run time.
 */
export interface Db {
  prisma: PrismaClient;
  kind: DatabaseConfig['kind'];
  /** SQL statements sent since this client was created; tests and benchmarks read it. */
  readonly statementCount: number;
  /** Subscribe to every SQL statement (returns an unsubscribe function). */
  onStatement(listener: (sql: string) => void): () => void;
  close(): Promise<void>;
}

export async function createDb(database: DatabaseConfig): Promise<Db> {
  const log = [{ emit: 'event' as const, level: 'query' as const }];
  let prisma: PrismaClient;
  if (database.kind === 'postgresql') {
    const [{ PrismaClient: PgClient }, { PrismaPg }] = await Promise.all([
      import('./generated/prisma-pg/client.js'),
      import('@prisma/adapter-pg'),
    ]);
    const adapter = new PrismaPg(
      // search_path too, so raw SQL finds the tables of a non-default schema as generated queries do
      { connectionString: database.url, max: 10, connectionTimeoutMillis: 5_000, options: `-c search_path="${database.schema}"` },
      { schema: database.schema },
    );
    prisma = new PgClient({ adapter, log }) as unknown as PrismaClient;
  } else {
    const [{ PrismaClient: SqliteClient }, { PrismaLibSql }] = await Promise.all([
      import('./generated/prisma/client.js'),
      import('@prisma/adapter-libsql'),
    ]);
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    // timeout: wait up to 10 s for another process's write lock (an import, a migration) instead
    // of failing at once; libsql applies it to every connection it opens and enforces foreign keys.
    prisma = new SqliteClient({ adapter: new PrismaLibSql({ url: database.url, timeout: 10_000 }), log });
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
    get statementCount() {
      return statementCount;
    },
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => prisma.$disconnect(),
  };
}
