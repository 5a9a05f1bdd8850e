// The bytes of request bodies and unfinished WebSocket messages in flight (BODY_BYTES_IN_FLIGHT),
// and the part of them callers without a credential may hold: per address, and all together
// (docs/security.md, "Bodies in flight").
import { NO_DEADLINE, type Deadline } from './deadline.js';
import { anonymousBodyShare } from '../config.js';
import { AppError } from '../errors.js';
import type { InFlightBudget } from './in-flight.js';

/**
 * Bodies are charged in steps of this many bytes: a body being read holds its stream's buffer
 * (16 KiB) whatever it has sent, and the step bounds how many bodies one address keeps open in its part.
 */
export const BODY_STEP_BYTES = 16 * 1024;

export class BodyBudget {
  readonly #byAddress = new Map<string, number>();
  #anonymous = 0;
  /** What callers without a credential hold together at most. */
  readonly anonymousCapacity: number;

  constructor(
    /** Every body's bytes, whoever sends them. */
    readonly total: InFlightBudget,
    /** What the callers of one address without a credential hold at once (ANONYMOUS_BODY_BYTES_PER_ADDRESS). */
    readonly perAddress: number,
  ) {
    this.anonymousCapacity = anonymousBodyShare(total.capacity);
  }

  /** What callers without a credential hold now, all addresses together. */
  get anonymousUsed(): number {
    return this.#anonymous;
  }

  /**
   * An empty charge for one body (or one socket's unfinished message) of at most `limit` bytes;
   * `anonymous`: the address of a caller without a credential, whose part it is charged to as well.
   */
  hold(limit: number, anonymous?: string, deadline?: Deadline): BodyHold {
    return new BodyHold(this, limit, anonymous, deadline);
  }

  /** @internal Counts `bytes` against the parts of callers without a credential, or throws without counting. */
  takeAnonymous(address: string, bytes: number): void {
    const held = this.#byAddress.get(address) ?? 0;
    if (held + bytes > this.perAddress) {
      throw new AppError(
        'RATE_LIMITED',
        `requests without a credential from one address hold at most ${this.perAddress} bytes of bodies at once (this address: ${held}); send a credential, or retry when they are answered`,
        { 'retry-after': '1' },
      );
    }
    if (this.#anonymous + bytes > this.anonymousCapacity) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `the server is at its limit of bodies from callers without a credential (${this.anonymousCapacity} bytes); retry in 1 s, or send a credential`,
        { 'retry-after': '1' },
      );
    }
    this.#byAddress.set(address, held + bytes);
    this.#anonymous += bytes;
  }

  /** @internal */
  giveAnonymous(address: string, bytes: number): void {
    const left = (this.#byAddress.get(address) ?? 0) - bytes;
    if (left > 0) this.#byAddress.set(address, left);
    else this.#byAddress.delete(address);
    this.#anonymous -= bytes;
  }
}

/**
 * What one body holds of the budget: it grows as the body arrives, in steps of BODY_STEP_BYTES up to
 * the body's own limit, and is given back whole, once.
 */
export class BodyHold {
  #charged = 0;
  readonly #releases: (() => void)[] = [];

  constructor(
    private readonly budget: BodyBudget,
    private readonly limit: number,
    private readonly anonymous: string | undefined,
    private readonly deadline: Deadline = NO_DEADLINE,
  ) {}

  get charged(): number {
    return this.#charged;
  }

  /**
   * Charges `bytes` in all, waiting for room in the whole budget (503 after COST_WAIT_MS, TIMEOUT at the request's deadline if that comes first); past the
   * part of callers without a credential, 429 (one address) or 503 (all of them) at once.
   */
  async grow(bytes: number): Promise<void> {
    const step = this.#step(bytes);
    if (step === 0) return;
    this.#takeAnonymous(step);
    try {
      this.#releases.push(await this.budget.total.acquire(step, this.deadline));
    } catch (e) {
      this.#giveAnonymous(step);
      throw e;
    }
    this.#charged += step;
  }

  /** As `grow`, without waiting: for bytes that arrived already (a WebSocket frame); 503 at once when the budget has no room. */
  growNow(bytes: number): void {
    const step = this.#step(bytes);
    if (step === 0) return;
    this.#takeAnonymous(step);
    const release = this.budget.total.tryAcquire(step);
    if (!release) {
      this.#giveAnonymous(step);
      throw this.budget.total.full();
    }
    this.#releases.push(release);
    this.#charged += step;
  }

  release(): void {
    for (const release of this.#releases.splice(0)) release();
    this.#giveAnonymous(this.#charged);
    this.#charged = 0;
  }

  /** What charging `bytes` adds: rounded up to a step, at most the limit. */
  #step(bytes: number): number {
    const target = Math.min(this.limit, Math.ceil(bytes / BODY_STEP_BYTES) * BODY_STEP_BYTES);
    return Math.max(0, target - this.#charged);
  }

  #takeAnonymous(bytes: number): void {
    if (this.anonymous !== undefined) this.budget.takeAnonymous(this.anonymous, bytes);
  }

  #giveAnonymous(bytes: number): void {
    if (this.anonymous !== undefined && bytes > 0) this.budget.giveAnonymous(this.anonymous, bytes);
  }
}
