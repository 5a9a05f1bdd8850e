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

/** Prisma's codes for "cannot reach the database" (P1xxx) and "no connection to be had" (pool time-out, too many connections). */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** What a driver adapter reports (DriverAdapterError `kind`) when the server is away or out of connections; libsql maps SQLITE_BUSY to SocketTimeout. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE', 'SQLITE_BUSY']);
/** PostgreSQL SQLSTATEs: admin/crash shutdown, starting up (57P0x), class 08 connection exceptions, too many connections. */
const UNAVAILABLE_SQLSTATE = /^(57P0[1-3]|08...|53300)$/;
/** pg's own errors carry no code: a connection lost mid-query, a pool that cannot connect in time. */
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|database is locked/;

/**
 * True when `error` (or what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter
 * error) says the database could not be reached, rather than that the query was wrong. Such a
 * request is answered 503 DATABASE_UNAVAILABLE, and the same request succeeds once the database is
 * back: the pg pool opens fresh connections, and libsql waits for its lock again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length) {
    const e = pending.pop();
    if (!e || typeof e !== 'object' || seen.has(e) || seen.size > 10) continue;
    seen.add(e);
    const { code, kind, message, cause, originalError, meta } = e as {
      code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: { cause?: unknown } };
    };
    if (typeof code === 'string' && (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    pending.push(cause, originalError, meta?.driverAdapterError, meta?.driverAdapterError?.cause);
  }
  return false;
}
