import fs from 'node:fs';
import path from 'node:path';
import type Libsql from 'libsql';
import type { ClientConfig, Pool } from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { MetricRegistrar } from '../observability/metrics.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { SqliteWriterThread } from './bulk/writer-thread.js';
import { PipelinedConnections, type ConnectionCounts } from './pg-pool.js';
import type { Shape } from './pg-combine.js';
import { pgReader, type QueuedRead } from './pg-read.js';
import { sqliteReader } from './sqlite-read.js';

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
   * PostgreSQL: the very pool Prisma uses, and Db.read's own pipelined connections (`reads`).
   * SQLite: a connection of its own to the same file, and the thread that writes bulk upserts
   * (db/bulk/sqlite.ts), started on first use and stopped by `close`.
   */
  driver:
    | { kind: 'sqlite'; connection(): SqliteConnection; writer(): SqliteWriterThread }
    | { kind: 'postgresql'; pool: Pool; reads: ConnectionCounts };
  /** SQL statements sent through Prisma since this client was created; tests and benchmarks read it. */
  readonly statementCount: number;
  /** Subscribe to every SQL statement sent through Prisma (returns an unsubscribe function). */
  onStatement(listener: (sql: string) => void): () => void;
  /**
   * One read statement straight on the driver, for the hot read paths (company page, keyset pages,
   * search): `sql` uses `$1, $2, ...` placeholders and is prepared once per connection and kept
   * (SQLite: a statement cache on the driver's connection; PostgreSQL: a named statement), where
   * Prisma prepares and plans it again on every call. Rows come back as Prisma returns them:
   * DateTime as Date, BigInt as bigint, Int as number, Boolean as boolean, Json parsed. Counted in
   * `statementCount` and `onStatement` like Prisma's own. `sql` must be a code constant (or built
   * from them): every value is a bound parameter, and `$` followed by a digit is a placeholder
   * and nothing else. On a request's Db (`forRequest`) on PostgreSQL, the reads of one turn of
   * the event loop go out as one statement (db/pg-combine.ts), counted once.
   */
  read<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * The Db one request works with: this one, but on PostgreSQL its `read` waits until the request
   * has nothing left to do in this turn of the event loop (the DataLoader batches of sibling
   * fields, and what they start) and sends what it gathered as one statement. A combined
   * statement that fails fails every read in it. SQLite reads in-process: this Db as it is.
   */
  forRequest(): Db;
  /**
   * PostgreSQL only: the columns `sql` (a code constant without parameters) answers with, and the
   * parser of each one's text form, as Db.read parses them; learned by one run of `sql` and kept.
   * For statements that carry rows as text (db/tree.ts), decoded to what Db.read would return.
   */
  shapeOf?(sql: string): Promise<Shape>;
  /**
   * Whether text compares by code point (SQLite; PostgreSQL with a C, POSIX or C.UTF-8 database
   * collation), so that the strings starting with a prefix are exactly a range of the index.
   * Asked once, on first use.
   */
  codepointTextOrder(): Promise<boolean>;
  /** Its statement count, and on PostgreSQL its connections, on /metrics. */
  registerMetrics(metrics: MetricRegistrar): void;
  close(): Promise<void>;
}

/** Prepared statements Db.read keeps per connection; past this many (dynamic SQL) the cache starts over. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * How many pipelined connections Db.read keeps. Side by side with a pool of 10 (bench: the six
 * statements of a company page, 10 pages at a time), pipelining on 2 or 4 connections took half
 * the client CPU (0.75 -> 0.35 ms a page) and half the server CPU (0.6 -> 0.3 ms); 4 rather than 2
 * so one long read (a 5000-row page) holds up fewer of the others.
 */
const READ_CONNECTIONS = 4;

const PRISMA_LOG = [{ emit: 'event' as const, level: 'query' as const }];

/** What each database brings: its Prisma client, its driver, Db.read on it, and how to close them. */
interface Opened {
  prisma: PrismaClient;
  driver: Db['driver'];
  read: (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;
  /** PostgreSQL: settles several reads, combined where it can, telling `sent` of each statement (pg-read.ts). */
  readTogether?: (batch: readonly QueuedRead[], sent: (sql: string) => void) => void;
  shapeOf?: (sql: string, sent: (sql: string) => void) => Promise<Shape>;
  closeDriver: () => Promise<void>;
}

export async function createDb(database: DatabaseConfig): Promise<Db> {
  const { prisma, driver, read, readTogether, shapeOf, closeDriver } = database.kind === 'postgresql' ? await openPostgres(database) : await openSqlite(database);
  let textOrder: Promise<boolean> | undefined;
  let statementCount = 0;
  const listeners = new Set<(sql: string) => void>();
  const sent = (sql: string) => {
    statementCount++;
    for (const l of listeners) l(sql);
  };
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) => sent(ev.query));

  const db: Db = {
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
    codepointTextOrder() {
      if (driver.kind === 'sqlite') return Promise.resolve(true);
      textOrder ??= driver.pool.query<{ c: string }>('SELECT datcollate AS c FROM pg_database WHERE datname = current_database()').then(
        (r) => /^(C|POSIX|C\.UTF-?8)$/i.test(r.rows[0]?.c ?? ''),
        (e: unknown) => {
          textOrder = undefined; // asked again next time: the server may be back
          throw e;
        },
      );
      return textOrder;
    },
    read<Row>(sql: string, params: readonly unknown[] = []) {
      sent(sql);
      return read(sql, params) as Promise<Row[]>;
    },
    ...(shapeOf && {
      shapeOf(sql: string) {
        return shapeOf(sql, sent);
      },
    }),
    forRequest() {
      if (!readTogether) return db;
      return Object.create(db, { read: { value: readQueue((batch) => readTogether(batch, sent)) } }) as Db;
    },
    registerMetrics(metrics) {
      metrics.counter({ name: 'mdg_db_statements_total', help: 'SQL statements sent through Prisma' }, () => statementCount);
      if (driver.kind === 'postgresql') registerPoolMetrics(metrics, [driver.pool, driver.reads]);
    },
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
  return db;
}

/**
 * Db.read that queues its calls and hands them to `send` together once the event loop turns
 * (setImmediate: after every pending promise and process.nextTick callback). DataLoader's own
 * schedule (a resolved promise, then nextTick) would send a batch before a loader dispatched later
 * in the same turn had read: the deep page of test/graphql/news.test.ts took a statement more (4, not 3).
 */
export function readQueue(send: (batch: QueuedRead[]) => void): Db['read'] {
  let queue: QueuedRead[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    try {
      send(batch);
    } catch (e) {
      // thrown in a setImmediate callback it would end the process: it fails this request's reads
      for (const r of batch) r.reject(e);
    }
  };
  return <Row>(sql: string, params: readonly unknown[] = []) =>
    new Promise<Row[]>((resolve, reject) => {
      if (queue.push({ sql, params, resolve: resolve as (rows: Record<string, unknown>[]) => void, reject }) === 1) setImmediate(flush);
    });
}

function registerPoolMetrics(metrics: MetricRegistrar, pools: readonly ConnectionCounts[]): void {
  const sum = (of: (p: ConnectionCounts) => number) => pools.reduce((n, p) => n + of(p), 0);
  metrics.gauge(
    {
      name: 'mdg_db_pool_connections',
      help: 'PostgreSQL connections (Prisma\'s pool and Db.read\'s pipelined ones together): total open, and idle among them',
      label: 'state',
    },
    () => ({ total: sum((p) => p.totalCount), idle: sum((p) => p.idleCount) }),
  );
  metrics.gauge({ name: 'mdg_db_pool_waiting', help: 'Queries waiting for a PostgreSQL pool connection (both pools)' }, () => sum((p) => p.waitingCount));
}

async function openPostgres(database: Extract<DatabaseConfig, { kind: 'postgresql' }>): Promise<Opened> {
  const [{ PrismaClient: PgClient }, { PrismaPg }, { default: pg }] = await Promise.all([
    import('../../generated/prisma-pg/client.js'),
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
  // Db.read's own connections, pipelined. Its statements are prepared once per connection and
  // keep one (generic) plan: under the default plan_cache_mode PostgreSQL re-planned some on
  // every execution (the per-symbol LATERAL page: 690 µs of server CPU per call, 150 µs with
  // its plan kept). Prisma's one-shot statements stay on the pool, planned for their parameters.
  const reads = new PipelinedConnections(
    () =>
      new pg.Client({
        connectionString: database.url,
        connectionTimeoutMillis: 5_000,
        options: `-c search_path="${database.schema}" -c plan_cache_mode=force_generic_plan`,
        pipeline: true,
      } as ClientConfig),
    READ_CONNECTIONS,
  );
  const reader = pgReader((config) => reads.query(config), pg.types, STATEMENT_CACHE_SIZE);
  return {
    prisma: new PgClient({ adapter: new PrismaPg(pool, { schema: database.schema }), log: PRISMA_LOG }) as unknown as PrismaClient,
    driver: { kind: 'postgresql', pool, reads },
    read: reader.read,
    readTogether: reader.readTogether,
    shapeOf: reader.shapeOf,
    closeDriver: async () => {
      await Promise.all([pool.end(), reads.end()]);
    },
  };
}

async function openSqlite(database: Extract<DatabaseConfig, { kind: 'sqlite' }>): Promise<Opened> {
  const [{ PrismaClient: SqliteClient }, { PrismaLibSql }, { default: Database }] = await Promise.all([
    import('../../generated/prisma/client.js'),
    import('@prisma/adapter-libsql'),
    import('libsql'),
  ]);
  fs.mkdirSync(path.dirname(database.file), { recursive: true });
  // timeout: wait up to 10 s for another process's write lock (an import, a migration) instead
  // of failing at once; libsql applies it to every connection it opens and enforces foreign keys.
  // intMode bigint: 64-bit columns (nanosecond timestamps) would otherwise fail to read.
  const prisma = new SqliteClient({ adapter: new PrismaLibSql({ url: database.url, timeout: 10_000, intMode: 'bigint' }), log: PRISMA_LOG });
  let conn: SqliteConnection | undefined;
  let writer: SqliteWriterThread | undefined;
  const connection = () => (conn ??= new Database(database.file, { timeout: 10_000 }));
  const reader = sqliteReader(connection, STATEMENT_CACHE_SIZE);
  return {
    prisma,
    driver: { kind: 'sqlite', connection, writer: () => (writer ??= new SqliteWriterThread()) },
    read: reader.read,
    closeDriver: async () => {
      reader.clear();
      conn?.close();
      await writer?.close();
    },
  };
}
