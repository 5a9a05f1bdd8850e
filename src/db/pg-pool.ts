import type { Client, QueryConfig } from 'pg';
import type { PgResult } from './pg-read.js';

/** Open connections, the idle among them, and queries waiting for one to connect. */
export interface ConnectionCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** A read connection unused this long is closed (as pg's pool does), so an app that is not closed does not hold them. */
const READ_IDLE_MS = 10_000;

interface Slot {
  ready: Promise<Client>;
  pending: number;
  idle?: NodeJS.Timeout;
  /** The statement_timeout the connection's next statement runs under: the last one sent, in pipeline order (NaN: not known). */
  timeout: number;
}

/**
 * Up to `size` PostgreSQL clients in pg's pipeline mode: a client sends each query as it comes,
 * without waiting for the one before (each with its own Sync, so a failing statement fails only
 * itself), and the server answers them in order. A query goes to the least busy open connection,
 * or opens another while every open one is busy. A connection that errors or ends is dropped (its
 * queries fail with pg's connection error, which isDatabaseUnavailable reads as a 503) and the
 * next query opens a new one, so reads come back with the server.
 *
 * Each query may name the statement_timeout it runs under (a request's time left,
 * runtime/deadline.ts): when it differs from the connection's, a `SET statement_timeout` goes
 * just before it in the pipeline, which the server runs in order; the usual value (each
 * connection's own, `defaultTimeoutMs`) costs nothing. A cancel request would not do: it cancels
 * whatever statement the server runs when it arrives, on a pipelined connection possibly another
 * request's.
 */
export class PipelinedConnections implements ConnectionCounts {
  readonly #slots: (Slot | undefined)[];
  #closed = false;
  #waiting = 0;

  constructor(
    private readonly make: () => Client,
    private readonly size: number,
    /** The statement_timeout `make`'s connections start with (0: none). */
    private readonly defaultTimeoutMs = 0,
  ) {
    this.#slots = new Array(size).fill(undefined);
  }

  get totalCount(): number {
    return this.#slots.filter(Boolean).length;
  }

  get idleCount(): number {
    return this.#slots.filter((s) => s && s.pending === 0).length;
  }

  get waitingCount(): number {
    return this.#waiting;
  }

  /** Runs `config` under a statement_timeout of `timeoutMs` (default: the connection's own). */
  async query(config: QueryConfig, timeoutMs = this.defaultTimeoutMs): Promise<PgResult> {
    if (this.#closed) throw new Error('Client was closed and is not queryable');
    const slot = this.#pick();
    if (slot.idle) slot.idle = void clearTimeout(slot.idle);
    slot.pending++;
    try {
      let client: Client;
      this.#waiting++;
      try {
        client = await slot.ready;
      } finally {
        this.#waiting--;
      }
      if (slot.timeout !== timeoutMs) {
        slot.timeout = timeoutMs;
        // not awaited: the statement is written right behind it; a SET that fails leaves the value unknown
        client.query(`SET statement_timeout = ${Math.floor(timeoutMs)}`).catch(() => (slot.timeout = Number.NaN));
      }
      return await client.query(config);
    } finally {
      if (--slot.pending === 0 && !this.#closed)
        slot.idle = setTimeout(() => this.#closeIdle(slot), READ_IDLE_MS).unref();
    }
  }

  async end(): Promise<void> {
    this.#closed = true;
    const open = this.#slots.filter((s): s is Slot => s !== undefined);
    this.#slots.fill(undefined);
    await Promise.all(
      open.map((s) => {
        if (s.idle) clearTimeout(s.idle);
        return s.ready.then(
          (c) => c.end(),
          () => {},
        );
      }),
    );
  }

  #open(i: number): Slot {
    const client = this.make();
    const slot: Slot = { pending: 0, ready: client.connect().then(() => client), timeout: this.defaultTimeoutMs };
    const drop = () => {
      if (this.#slots[i] === slot) this.#slots[i] = undefined;
      if (slot.idle) clearTimeout(slot.idle);
    };
    client.on('error', drop);
    client.on('end', drop);
    slot.ready.catch(() => {
      drop();
      void client.end().catch(() => {});
    });
    this.#slots[i] = slot;
    return slot;
  }

  #pick(): Slot {
    let best: Slot | undefined;
    let empty = -1;
    for (let i = 0; i < this.size; i++) {
      const slot = this.#slots[i];
      if (!slot) {
        if (empty < 0) empty = i;
      } else if (!best || slot.pending < best.pending) best = slot;
    }
    if (best && (best.pending === 0 || empty < 0)) return best;
    return this.#open(empty);
  }

  #closeIdle(slot: Slot): void {
    if (slot.pending > 0) return;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots[i] = undefined;
    void slot.ready.then((c) => c.end()).catch(() => {});
  }
}
