import { AppError } from '../errors.js';
import { NO_DEADLINE, type Deadline } from './deadline.js';

/**
 * The work an instance runs at once, in cost units (src/graphql/cost.ts): each GraphQL operation and
 * REST page holds its cost while it runs. A request that would pass the budget waits, first come
 * first served, for at most `maxWaitMs`, then is answered 503 with Retry-After. So memory is
 * bounded by design: the heap holds at most the budget's worth of answers being built, whatever the
 * number of connections (docs/security.md, "Work in flight"; the numbers in bench/RESULTS.md).
 */
export class InFlightBudget {
  #used = 0;
  readonly #waiting: { cost: number; admit: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(
    readonly capacity: number,
    private readonly maxWaitMs: number,
    /** What is held, for the 503's message. */
    private readonly what = 'work in flight',
  ) {}

  get used(): number {
    return this.#used;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Holds `cost` units until the returned release is called (once). Resolves at once while the
   * budget has room and nobody waits; a cost above the whole capacity is held alone (the cost
   * limit keeps single requests below it). A request waits until `deadline` at most: then TIMEOUT.
   */
  acquire(cost: number, deadline: Deadline = NO_DEADLINE): Promise<() => void> | (() => void) {
    const units = Math.min(Math.max(cost, 0), this.capacity);
    const now = this.tryAcquire(units);
    if (now) return now;
    const timesOut = deadline.remainingMs < this.maxWaitMs;
    return new Promise((resolve, reject) => {
      const entry = {
        cost: units,
        admit: () => resolve(this.#hold(units)),
        timer: setTimeout(
          () => {
            const i = this.#waiting.indexOf(entry);
            if (i >= 0) this.#waiting.splice(i, 1);
            reject(timesOut ? deadline.timedOut('wait') : this.full());
            this.#admit(); // an entry that gave up may have held back smaller ones behind it
          },
          timesOut ? deadline.remainingMs : this.maxWaitMs,
        ),
      };
      this.#waiting.push(entry);
    });
  }

  /** Holds `cost` units if the budget has room and nobody waits, else nothing: for what arrived already and cannot wait (a WebSocket frame). */
  tryAcquire(cost: number): (() => void) | undefined {
    const units = Math.min(Math.max(cost, 0), this.capacity);
    return this.#waiting.length === 0 && this.#used + units <= this.capacity ? this.#hold(units) : undefined;
  }

  /** The 503 of a budget without room: what is full, and when to come back. */
  full(): AppError {
    return new AppError('SERVICE_UNAVAILABLE', `the server is at its limit of ${this.what}; retry in 1 s`, {
      'retry-after': '1',
    });
  }

  #hold(units: number): () => void {
    this.#used += units;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= units;
      this.#admit();
    };
  }

  #admit(): void {
    while (this.#waiting.length && this.#used + this.#waiting[0]!.cost <= this.capacity) {
      const next = this.#waiting.shift()!;
      clearTimeout(next.timer);
      next.admit();
    }
  }
}
