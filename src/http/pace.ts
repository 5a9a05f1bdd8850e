// The slowest a client may send what it started (a request body, a WebSocket message): it holds a
// connection and its bytes meanwhile (docs/security.md, "Bodies in flight").
import type { ConnectionConfig } from '../config.js';
import { AppError } from '../errors.js';

export type Pace = Pick<ConnectionConfig, 'minBytesPerSecond' | 'graceMs'>;

/**
 * Watches one body or message as it arrives: `n` bytes may take `graceMs + n / minBytesPerSecond`
 * from its start. Past that, `late` is called once with the 408 to answer. One timer, set again
 * only when it fires, so a chunk costs an addition.
 */
export class PaceMeter {
  #start = performance.now();
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #pausedAt: number | undefined;
  #stopped = false;

  constructor(
    private readonly pace: Pace,
    private readonly late: (error: AppError) => void,
    /** What arrives, for the 408's message. */
    private readonly what: 'body' | 'message' = 'body',
  ) {
    this.#timer = setTimeout(this.#check, pace.graceMs);
  }

  arrived(bytes: number): void {
    this.#bytes += bytes;
  }

  /** While the server makes the client wait (no room in the budget yet), the time is not the client's. */
  pause(): void {
    this.#pausedAt ??= performance.now();
  }

  resume(): void {
    if (this.#pausedAt === undefined || this.#stopped) return;
    this.#start += performance.now() - this.#pausedAt;
    this.#pausedAt = undefined;
    clearTimeout(this.#timer);
    this.#check();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #check = (): void => {
    if (this.#pausedAt !== undefined) return; // resume() checks again
    const left =
      this.#start + this.pace.graceMs + (this.#bytes / this.pace.minBytesPerSecond) * 1000 - performance.now();
    if (left > 0) this.#timer = setTimeout(this.#check, Math.ceil(left));
    else {
      this.#stopped = true;
      this.late(tooSlow(this.what, this.pace, this.#bytes, performance.now() - this.#start));
    }
  };
}

function tooSlow(what: string, pace: Pace, bytes: number, elapsedMs: number): AppError {
  return new AppError(
    'BODY_TOO_SLOW',
    `a ${what} must arrive at ${pace.minBytesPerSecond} bytes per second or faster after its first ${pace.graceMs / 1000} s; ${bytes} bytes arrived in ${(elapsedMs / 1000).toFixed(1)} s`,
    { connection: 'close' },
  );
}
