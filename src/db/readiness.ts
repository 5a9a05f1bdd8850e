import { DATABASE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { Logger } from '../observability/log.js';
import type { Db } from './client.js';
import { schemaState, type SchemaState } from './health.js';

/**
 * What /readyz says of the database: ready, or why not. `unavailable`: it does not answer (or
 * refuses us); `migrating`: it answered without this version's schema and is being migrated;
 * `unmigrated`: so, and migrating it failed (the log says why; tried again every RETRY_MS).
 */
export type Readiness = { ready: true } | { ready: false; reason: 'unavailable' | 'migrating' | 'unmigrated' };

/** Why /readyz says the database is not ready, in its answer; the log line says more. */
export const NOT_READY: Record<Exclude<Readiness, { ready: true }>['reason'], string> = {
  unavailable: 'the database does not answer',
  migrating: "the database lacks this version's schema: migrating it",
  unmigrated: "the database lacks this version's schema, and migrating it failed: see the server's log",
};

export interface ReadinessDeps {
  db: Db;
  /** What a start does to a database without its schema (bootstrap.ts migrateAgain), stopped after `timeoutMs`. */
  migrate(timeoutMs: number): Promise<void>;
  /** The database is ready again after it had lost its schema: drop what this process read from the old one. */
  restored(): void;
  logger: Logger;
}

/**
 * How long an answer is reused. /readyz is public and not rate limited: however often it is asked,
 * the database sees at most the two catalog statements of db/health.ts per second.
 */
const ANSWER_MS = 1_000;
/**
 * How long a migration started by a running instance may take before it is stopped (rolled back,
 * db/migrate.ts). A start waits for its migrations however long they take: a migration longer than
 * this is for a restart or `cli migrate` (docs/operations.md).
 */
const MIGRATE_TIMEOUT_MS = 60_000;
/** After a failed migration, the next is tried no sooner than this: the Retry-After clients are given. */
const RETRY_MS = DATABASE_RETRY_AFTER_SECONDS * 1_000;

/**
 * The readiness of one instance's database, checked when asked (/readyz, and each request the
 * database failed: app.ts), one check at a time, an answer reused for ANSWER_MS. A database that
 * answers without this version's schema (dropped and gone, re-created empty, restored from an older
 * backup) is migrated as a start would, one migration at a time, bounded by MIGRATE_TIMEOUT_MS; the
 * instance is not ready meanwhile. Logs one line per change of state (docs/operations.md
 * "Readiness and recovery").
 */
export class DatabaseReadiness {
  readonly #deps: ReadinessDeps;
  #answer: { readiness: Readiness; at: number } | undefined;
  #checking: Promise<Readiness> | undefined;
  #migrating: Promise<void> | undefined;
  /** When the last migration failed, and why: the next waits RETRY_MS, and logs only a new reason. */
  #failed: { at: number; message: string } | undefined;
  /** The schema was found missing since the last time the database was ready. */
  #lostSchema = false;
  /** The line logged last while not ready (undefined while ready): a state is logged once. */
  #logged: string | undefined;

  constructor(deps: ReadinessDeps) {
    this.#deps = deps;
  }

  /**
   * A request found the database unavailable: a `ready` answer is stale, and the check runs now
   * (still one at a time; an answer that is not ready is kept its ANSWER_MS).
   */
  suspect(): void {
    if (this.#answer?.readiness.ready) this.#answer = undefined;
    void this.current();
  }

  current(): Promise<Readiness> {
    const answer = this.#answer;
    if (answer && performance.now() - answer.at < ANSWER_MS) return Promise.resolve(answer.readiness);
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<Readiness> {
    // while it migrates the database is busy enough: not asked
    const readiness: Readiness = this.#migrating
      ? { ready: false, reason: 'migrating' }
      : this.#readinessOf(await schemaState(this.#deps.db));
    this.#answer = { readiness, at: performance.now() };
    return readiness;
  }

  #readinessOf(s: SchemaState): Readiness {
    if (s.state === 'ready') {
      if (this.#lostSchema) this.#deps.restored();
      if (this.#logged !== undefined) this.#deps.logger.info('database: ready again');
      this.#lostSchema = false;
      this.#failed = undefined;
      this.#logged = undefined;
      return { ready: true };
    }
    if (s.state === 'unavailable') {
      this.#log('warn', `database: unavailable (${s.detail}); /readyz answers 503 until it answers`);
      return { ready: false, reason: 'unavailable' };
    }
    this.#lostSchema = true;
    if (this.#failed && performance.now() - this.#failed.at < RETRY_MS) return { ready: false, reason: 'unmigrated' };
    this.#migrate(s.detail);
    return { ready: false, reason: 'migrating' };
  }

  #migrate(detail: string): void {
    // a retry says nothing more unless it fails for another reason
    if (!this.#failed)
      this.#log('warn', `database: it lacks this version's schema (${detail}); migrating it as a start does`);
    this.#migrating = this.#deps
      .migrate(MIGRATE_TIMEOUT_MS)
      .then(
        () => {
          this.#failed = undefined;
        },
        (e: unknown) => {
          const message = String((e as Error)?.message ?? e);
          if (this.#failed?.message !== message)
            this.#log(
              'error',
              `database: it lacks this version's schema (${detail}) and migrating it failed: ${message}; /readyz answers 503, and it is tried again every ${RETRY_MS / 1_000} s`,
            );
          this.#failed = { at: performance.now(), message };
        },
      )
      .finally(() => {
        this.#migrating = undefined;
        this.#answer = undefined; // the next question checks again
      });
  }

  #log(level: 'warn' | 'error', line: string): void {
    if (line === this.#logged) return;
    this.#logged = line;
    this.#deps.logger[level](line);
  }
}
