import type { ClientConfig, Pool } from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { FallbackReason } from '../observability/fallbacks.js';
import type { MetricRegistrar } from '../observability/metrics.js';
import { NO_DEADLINE, type Deadline } from '../runtime/deadline.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { PipelinedConnections, type ConnectionCounts } from './pg-pool.js';
import type { Shape } from './pg-combine.js';
import { pgReader, type QueuedRead } from './pg-read.js';

/** A Prisma client for the configured PostgreSQL database, and the driver under it. */
export interface Db {
  prisma: PrismaClient;
  /** The database it is connected to (LISTEN connections of db/outbox-store.ts open their own). */
  database: DatabaseConfig;
  /**
   * The driver under Prisma, for the few paths where Prisma's per-row cost matters (bulk loads):
   * the very pool Prisma uses, and Db.read's own pipelined connections (`reads`).
   */
  driver: { pool: Pool; reads: ConnectionCounts };
  /** The request's deadline on a request's Db (`forRequest`); NO_DEADLINE on the app's. */
  readonly deadline: Deadline;
  /**
   * The app's Db this one was made from (itself for the app's): work shared by requests (the search
   * engine's refresh, services/security-index.ts) runs on it, under no one request's deadline.
   */
  readonly shared: Db;
  /** SQL statements sent through Prisma since this client was created; tests and benchmarks read it. */
  readonly statementCount: number;
  /** Subscribe to every SQL statement sent through Prisma (returns an unsubscribe function). */
  onStatement(listener: (sql: string) => void): () => void;
  /**
   * One read statement straight on the driver, for the hot read paths (company page, keyset pages,
   * search): `sql` uses `$1, $2, ...` placeholders and is prepared once per connection and kept
   * (a named statement), where
   * Prisma prepares and plans it again on every call. Rows come back as Prisma returns them:
   * DateTime as Date, BigInt as bigint, Int as number, Boolean as boolean, Json parsed. Counted in
   * `statementCount` and `onStatement` like Prisma's own. `sql` must be a code constant (or built
   * from them): every value is a bound parameter, and `$` followed by a digit is a placeholder
   * and nothing else. On a request's Db (`forRequest`), the reads of one turn of
   * the event loop go out as one statement (db/pg-combine.ts), counted once.
   */
  read<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * The Db one request works with: this one, but its `read` waits until the request
   * has nothing left to do in this turn of the event loop (the DataLoader batches of sibling
   * fields, and what they start) and sends what it gathered as one statement. A combined
   * statement that fails fails every read in it. `fellBack` hears of each read of a batch sent
   * alone, and each combined statement that failed. Under `deadline`, a read sent past it fails at
   * once, a read pending at it fails then, and its statement runs under a statement_timeout of the
   * time left (db/pg-pool.ts), so PostgreSQL cancels it: each with the deadline's TIMEOUT.
   * (Prisma's statements, the request's writes and a few one-row reads, are bound by the
   * connections' statement_timeout alone: createDb.)
   */
  forRequest(fellBack?: (reason: FallbackReason<'combined'>) => void, deadline?: Deadline): Db;
  /**
   * The columns `sql` (a code constant without parameters) answers with, and the
   * parser of each one's text form, as Db.read parses them; learned by one run of `sql` and kept.
   * For statements that carry rows as text (db/tree.ts), decoded to what Db.read would return.
   */
  shapeOf(sql: string): Promise<Shape>;
  /**
   * Whether text compares by code point (a C, POSIX or C.UTF-8 database collation, as databases
   * the gateway creates have), so that the strings starting with a prefix are exactly a range of
   * the index. Asked once, on first use.
   */
  codepointTextOrder(): Promise<boolean>;
  /** Its statement count and its connections, on /metrics. */
  registerMetrics(metrics: MetricRegistrar): void;
  /** Closes its connections, then `onClose` (the embedded cluster's release, db/embedded.ts). */
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

/**
 * `statementTimeoutMs`: the statement_timeout of every connection (0: none): REQUEST_TIMEOUT_MS for
 * a server (bootstrap.ts), none for the CLI's long imports and reads. A request's Db.read statements
 * run under the time its deadline leaves, when shorter (Db.forRequest).
 */
export async function createDb(
  database: DatabaseConfig,
  onClose: () => Promise<void> = async () => {},
  statementTimeoutMs = 0,
): Promise<Db> {
  const { prisma, driver, reader } = await openPostgres(database, statementTimeoutMs);
  let textOrder: Promise<boolean> | undefined;
  let statementCount = 0;
  const listeners = new Set<(sql: string) => void>();
  const sent = (sql: string) => {
    statementCount++;
    for (const l of listeners) l(sql);
  };
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) =>
    sent(ev.query),
  );

  const db: Db = {
    prisma,
    database,
    driver,
    deadline: NO_DEADLINE,
    get shared() {
      return db;
    },
    get statementCount() {
      return statementCount;
    },
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    codepointTextOrder() {
      textOrder ??= driver.pool
        .query<{ c: string }>('SELECT datcollate AS c FROM pg_database WHERE datname = current_database()')
        .then(
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
      return reader.read(sql, params) as Promise<Row[]>;
    },
    shapeOf(sql: string) {
      return reader.shapeOf(sql, sent);
    },
    forRequest(fellBack, deadline = NO_DEADLINE) {
      return Object.create(db, {
        read: {
          value: readQueue(
            (batch) => reader.readTogether(batch, sent, fellBack, deadline.statementTimeoutMs()),
            deadline,
          ),
        },
        deadline: { value: deadline },
      }) as Db;
    },
    registerMetrics(metrics) {
      metrics.counter(
        { name: 'mdg_db_statements_total', help: 'SQL statements sent through Prisma' },
        () => statementCount,
      );
      registerPoolMetrics(metrics, [driver.pool, driver.reads]);
    },
    async close() {
      try {
        await prisma.$disconnect();
        await Promise.all([driver.pool.end(), driver.reads.end()]);
      } finally {
        await onClose();
      }
    },
  };
  return db;
}

/**
 * Db.read that queues its calls and hands them to `send` together once the event loop turns
 * (setImmediate: after every pending promise and process.nextTick callback). DataLoader's own
 * schedule (a resolved promise, then nextTick) would send a batch before a loader dispatched later
 * in the same turn had read: the deep page of test/graphql/news.test.ts took a statement more (4, not 3).
 * Each read is raced against `deadline`: past it, a read is not queued at all.
 */
export function readQueue(send: (batch: QueuedRead[]) => void, deadline: Deadline = NO_DEADLINE): Db['read'] {
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
  return <Row>(sql: string, params: readonly unknown[] = []) => {
    if (deadline.remainingMs <= 0) return Promise.reject(deadline.timedOut('sql'));
    return deadline.race(
      new Promise<Row[]>((resolve, reject) => {
        if (queue.push({ sql, params, resolve: resolve as (rows: Record<string, unknown>[]) => void, reject }) === 1)
          setImmediate(flush);
      }),
      'sql',
    );
  };
}

function registerPoolMetrics(metrics: MetricRegistrar, pools: readonly ConnectionCounts[]): void {
  const sum = (of: (p: ConnectionCounts) => number) => pools.reduce((n, p) => n + of(p), 0);
  metrics.gauge(
    {
      name: 'mdg_db_pool_connections',
      help: "PostgreSQL connections (Prisma's pool and Db.read's pipelined ones together): total open, and idle among them",
      label: 'state',
    },
    () => ({ total: sum((p) => p.totalCount), idle: sum((p) => p.idleCount) }),
  );
  metrics.gauge(
    { name: 'mdg_db_pool_waiting', help: 'Queries waiting for a PostgreSQL pool connection (both pools)' },
    () => sum((p) => p.waitingCount),
  );
}

async function openPostgres(database: DatabaseConfig, statementTimeoutMs: number) {
  const [{ PrismaClient }, { PrismaPg }, { default: pg }] = await Promise.all([
    import('../../generated/prisma/client.js'),
    import('@prisma/adapter-pg'),
    import('pg'),
  ]);
  // a statement of a server runs no longer than a request may (REQUEST_TIMEOUT_MS); the CLI's, as long as they need
  const timeout = statementTimeoutMs ? ` -c statement_timeout=${statementTimeoutMs}` : '';
  const pool = new pg.Pool({
    connectionString: database.url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    // search_path too, so raw SQL finds the tables of a non-default schema as generated queries do
    options: `-c search_path="${database.schema}"${timeout}`,
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
        options: `-c search_path="${database.schema}" -c plan_cache_mode=force_generic_plan${timeout}`,
        pipeline: true,
      } as ClientConfig),
    READ_CONNECTIONS,
    statementTimeoutMs,
  );
  return {
    prisma: new PrismaClient({ adapter: new PrismaPg(pool, { schema: database.schema }), log: PRISMA_LOG }),
    driver: { pool, reads },
    reader: pgReader((config, timeoutMs) => reads.query(config, timeoutMs), pg.types, STATEMENT_CACHE_SIZE),
  };
}
