import { performance } from 'node:perf_hooks';
import { isStatementTimeout } from '../domain/database-errors.js';
import { AppError } from '../errors.js';
import type { MetricRegistrar } from '../observability/metrics.js';

/**
 * Where a request can run out of time, and how its TIMEOUT answer words it; also the `at` label of
 * mdg_request_timeouts_total (docs/operations.md#deadlines), so operators see which work is slow.
 */
export const TIMEOUT_STAGES = {
  wait: 'waiting for room in the work in flight',
  sql: 'reading the database',
  index: 'waiting for the search engine to read the security master',
  search: 'searching the security master',
  facets: 'counting facets',
  plan: 'planning the query',
  answer: 'building the answer',
  page: 'writing the page',
} as const;

export type TimeoutStage = keyof typeof TIMEOUT_STAGES;

/** The requests that ran out of time, by where: one count per request, whatever noticed it first. */
export class Timeouts {
  readonly #counts = Object.fromEntries(Object.keys(TIMEOUT_STAGES).map((s) => [s, 0])) as Record<TimeoutStage, number>;

  record(stage: TimeoutStage): void {
    this.#counts[stage]++;
  }

  get counts(): Readonly<Record<TimeoutStage, number>> {
    return this.#counts;
  }

  /** mdg_request_timeouts_total{at} on /metrics. */
  registerMetrics(metrics: MetricRegistrar): void {
    metrics.counter(
      {
        name: 'mdg_request_timeouts_total',
        help: `Requests that ran out of REQUEST_TIMEOUT_MS (answered TIMEOUT), by what they were doing: ${Object.keys(TIMEOUT_STAGES).join(', ')}`,
        label: 'at',
      },
      () => this.#counts,
    );
  }
}

/** The statement_timeout a statement gets is the time left, rounded up to a tenth of the budget. */
const STATEMENT_TIMEOUT_STEPS = 10;

/**
 * A request's time budget, counted from its arrival (REQUEST_TIMEOUT_MS): in-process loops call
 * `check` every few hundred iterations (a clock read), waits `race` against it, and the request's
 * statements run under a statement_timeout of the time left (db/pg-pool.ts). Past it every one of
 * them throws the same TIMEOUT error, which the request is answered with (docs/operations.md#deadlines).
 */
export class Deadline {
  #at: number;
  #error: AppError | undefined;

  constructor(
    /** Milliseconds from now; Infinity: no deadline (the app's own work, the CLI). */
    readonly budgetMs: number,
    private readonly timeouts?: Timeouts,
  ) {
    this.#at = performance.now() + budgetMs;
  }

  /** Milliseconds left; 0 once past. */
  get remainingMs(): number {
    return Math.max(0, this.#at - performance.now());
  }

  /** Throws TIMEOUT once the budget is spent; `stage` says what was running. */
  check(stage: TimeoutStage): void {
    if (performance.now() >= this.#at) throw this.timedOut(stage);
  }

  /**
   * The TIMEOUT error of this request. The first call counts the request on `timeouts` under
   * `stage`; later calls return the same error, so a request is counted once.
   */
  timedOut(stage: TimeoutStage): AppError {
    if (this.#error) return this.#error;
    this.timeouts?.record(stage);
    this.#error = timeoutError(stage, this.budgetMs);
    return this.#error;
  }

  /**
   * `work`, or TIMEOUT once the budget is spent while it is pending (what it settles to later is
   * dropped). A PostgreSQL statement cancelled by its statement_timeout is TIMEOUT too.
   */
  race<T>(work: Promise<T>, stage: TimeoutStage): Promise<T> {
    if (this.budgetMs === Infinity) return work;
    return new Promise<T>((resolve, reject) => {
      const remaining = this.#at - performance.now();
      if (remaining <= 0) {
        work.catch(() => {}); // settled later, by nobody
        return reject(this.timedOut(stage));
      }
      const timer = setTimeout(() => reject(this.timedOut(stage)), remaining);
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(isStatementTimeout(error) ? this.timedOut(stage) : error);
        },
      );
    });
  }

  /**
   * The statement_timeout for a statement sent now: the time left, rounded up to a tenth of the
   * budget, so that a request's statements early in its life share one value (the connection's
   * own, db/client.ts: no SET is sent) and a statement still running past the deadline is cancelled
   * by PostgreSQL within a tenth of the budget. Undefined without a deadline: the connection's own.
   */
  statementTimeoutMs(): number | undefined {
    if (this.budgetMs === Infinity) return undefined;
    const step = Math.max(1, Math.ceil(this.budgetMs / STATEMENT_TIMEOUT_STEPS));
    return Math.min(this.budgetMs, Math.max(step, Math.ceil(this.remainingMs / step) * step));
  }

  /** A fresh budget from now: each event of a subscription is executed within a budget of its own. */
  restart(): void {
    this.#at = performance.now() + this.budgetMs;
    this.#error = undefined;
  }
}

/**
 * The TIMEOUT answer: what was running, and Retry-After of the budget in seconds (a client that
 * retries at once adds to the load that made it slow). `budgetMs` unknown: where no request's
 * deadline is at hand (graphql/errors.ts, a statement cancelled by its statement_timeout).
 */
export function timeoutError(stage: TimeoutStage, budgetMs?: number): AppError {
  const seconds = String(Math.max(1, Math.ceil((budgetMs ?? 1000) / 1000)));
  const limit = budgetMs === undefined ? 'its time limit' : `its time limit of ${budgetMs} ms`;
  return new AppError(
    'TIMEOUT',
    `the request ran out of ${limit} while ${TIMEOUT_STAGES[stage]}; ask for less (a smaller page, fewer aliases, fields or facets), or retry in ${seconds} s`,
    { 'retry-after': seconds },
  );
}

/** The deadline of work that belongs to no request. */
export const NO_DEADLINE = new Deadline(Infinity);

/**
 * `check` every `every` calls: the tick of a loop over many items, whose clock read is then a
 * small share of an iteration's cost.
 */
export function every(n: number, check: () => void): () => void {
  let count = 0;
  return () => {
    if (++count >= n) {
      count = 0;
      check();
    }
  };
}
