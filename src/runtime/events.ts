import type { PoolClient } from 'pg';
import { AppError } from '../errors.js';

/**
 * Publish/subscribe for rows as they are stored (an import publishes each trade, quote, press
 * release and news item it inserts). Payloads are the service shape of the stored row (`Trade`,
 * `Quote`, `PressRelease` with its tickers ...: camelCase, bigint sequence numbers and
 * timestamps), neutral to GraphQL and REST alike.
 *
 * In one process the in-memory bus does. Between processes (an import CLI and the servers that
 * serve subscriptions) the database's outbox (db/outbox.ts) carries them, each with its position,
 * and keeps them for replay; bootstrap.ts makes it. Not Redis: its channels carry no positions
 * (docs/architecture.md#live-events-and-their-positions).
 */
export interface EventBus {
  publish(topic: string, payload: unknown): Promise<void>;
  /** Many events at once: one transaction per batch on the database. */
  publishAll(events: Iterable<readonly [topic: string, payload: unknown]>): Promise<void>;
  /**
   * The events of a writer's open transaction on `client`, given as its last work (the importers
   * of trades and quotes, ingest/importer.ts). The database's bus appends them there, under a lock
   * held to the commit: they take their positions and become visible exactly when the
   * transaction's rows do, and are gone if it rolls back. The in-memory bus has no transaction to
   * join: it hands them out when the writer, its transaction committed, calls `committed`. An event
   * too large to keep is left out, and counted.
   */
  publishIn(
    client: PoolClient,
    events: Iterable<readonly [topic: string, payload: unknown]>,
  ): Promise<{ tooLarge: number; committed?: () => Promise<void> }>;
  /**
   * Events of `topic` (or of any of a list of topics, in the order they are published, as one
   * queue) from the moment `ready` resolves; `return()` (or a `break` out of `for await`)
   * unsubscribes. A subscriber more than MAX_QUEUED events behind is ended with
   * SERVICE_UNAVAILABLE (its next `next()` rejects): events are never skipped silently.
   */
  subscribe<T = unknown>(topic: Topics): Subscription<T>;
  /**
   * The events of `topic` after a position, or published since a time, replayed from storage and
   * then live, each once and in position order; each object payload carries its mark (`markOf`).
   * Only the database's bus keeps events: the others refuse with BAD_REQUEST.
   */
  resume<T = unknown>(topic: Topics, from: Resume): Subscription<T>;
  close(): Promise<void>;
}

/** What a subscription does for a client that reads slower than its events come (schema/stream.ts). */
export type StreamPolicy = 'BUFFER' | 'LATEST';

/** Where a resumed subscription starts: after a position, or at a time (epoch milliseconds). */
export type Resume = { after: number } | { since: number };

/** Where an event stands in the live stream: its position (the database's), its topic, whether it is replayed. */
export interface StreamMark {
  position: number;
  topic: string;
  replay: boolean;
}

const MARK = Symbol('stream mark');

/** The mark the database's bus set on an object payload; undefined for any other. */
export const markOf = (payload: unknown): StreamMark | undefined =>
  payload !== null && typeof payload === 'object' ? (payload as { [MARK]?: StreamMark })[MARK] : undefined;

/** Marks an object payload (a decoded event, one per row read, so a mark never changes after). */
export function mark<T>(payload: T, m: StreamMark): T {
  // not enumerable: a payload compares and serializes as the row it is
  if (payload !== null && typeof payload === 'object') Object.defineProperty(payload, MARK, { value: m });
  return payload;
}

/** What a bus that keeps no events answers a resumed subscription. */
export const noReplay = () =>
  new AppError(
    'BAD_REQUEST',
    '`after` and `since` need the live events kept in the database: this server was started with an event bus that keeps none',
  );

export interface Subscription<T> extends AsyncIterableIterator<T> {
  ready: Promise<void>;
}

/** One topic, or several whose events one subscription takes together (a live watchlist). */
export type Topics = string | readonly string[];

/** The distinct topics of `topic`. */
export const topicsOf = (topic: Topics): string[] => (typeof topic === 'string' ? [topic] : [...new Set(topic)]);

export const tradeTopic = (symbol: string) => `trade:${symbol}`;
export const quoteTopic = (symbol: string) => `quote:${symbol}`;
/** Every new press release, whatever it names: subscribers filter by its tickers. */
export const PRESS_RELEASE_TOPIC = 'press-release';
export const newsTopic = (symbol: string) => `news:${symbol}`;

/**
 * Events one bus subscription may hold unread. Its consumer is the instance itself (one per group
 * of identical GraphQL subscriptions, graphql/live.ts), not a client; the payloads are shared by
 * every subscription of a topic, so this bounds references, ~50,000 rows of one import at most.
 */
export const MAX_QUEUED = 50_000;

/** One subscription of a bus: its iterator, and what the bus does to it. */
export interface QueuedSubscription<T> {
  sub: Subscription<T>;
  push(v: T): void;
  /** Ends it: its consumer reads the events already queued, then `done`. */
  end(): void;
  /** Ends it with `error`: the queued events are let go, and its next `next()` rejects with it. */
  fail(error: Error): void;
}

/**
 * A subscription's queue: events wait here until the consumer asks for them. One more than
 * MAX_QUEUED waiting ends it: the queue is let go and its next `next()` rejects with
 * SERVICE_UNAVAILABLE, rather than holding memory without end or skipping events unnoticed.
 */
export function subscription<T>(ready: Promise<void>, unsubscribe: () => void): QueuedSubscription<T> {
  // a head index, not shift(): a queue thousands long must not move on every event
  let queue: (T | undefined)[] = [];
  let head = 0;
  let failure: Error | undefined;
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let rejectWaiting: ((e: Error) => void) | undefined;
  let done = false;
  let listening = true;
  const leave = () => {
    if (listening) (listening = false), unsubscribe();
  };
  const finish = (): IteratorResult<T> => {
    if (!done) {
      done = true;
      queue = [];
      head = 0;
      leave();
      waiting?.({ value: undefined, done: true });
      waiting = rejectWaiting = undefined;
    }
    return { value: undefined, done: true };
  };
  const fail = (error: Error) => {
    if (done || failure) return;
    queue = [];
    head = 0;
    leave();
    if (rejectWaiting) {
      const r = rejectWaiting;
      waiting = rejectWaiting = undefined;
      finish();
      r(error);
    } else failure = error;
  };
  const sub: Subscription<T> = {
    ready,
    next() {
      if (head < queue.length) {
        const value = queue[head]!;
        queue[head++] = undefined;
        if (head === queue.length) (queue = []), (head = 0);
        else if (head >= 1024 && head * 2 >= queue.length) (queue = queue.slice(head)), (head = 0);
        return Promise.resolve({ value, done: false });
      }
      if (failure) {
        const e = failure;
        failure = undefined;
        finish();
        return Promise.reject(e);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => ((waiting = resolve), (rejectWaiting = reject)));
    },
    return: () => Promise.resolve(finish()),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return {
    sub,
    push(v) {
      if (done || failure) return;
      if (waiting) {
        const w = waiting;
        waiting = rejectWaiting = undefined;
        w({ value: v, done: false });
      } else if (queue.length - head >= MAX_QUEUED) {
        fail(
          new AppError(
            'SERVICE_UNAVAILABLE',
            `live events came faster than this instance could deliver them (more than ${MAX_QUEUED} waiting); subscribe again`,
          ),
        );
      } else {
        queue.push(v);
      }
    },
    end: finish,
    fail,
  };
}

export function memoryEventBus(): EventBus {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const subscriptions = new Set<() => void>();
  const publishAll = async (events: Iterable<readonly [topic: string, payload: unknown]>) => {
    if (listeners.size === 0) return;
    for (const [topic, payload] of events) for (const l of listeners.get(topic) ?? []) l(payload);
  };
  return {
    async publish(topic, payload) {
      for (const l of listeners.get(topic) ?? []) l(payload);
    },
    publishAll,
    async publishIn(_client, events) {
      const held = [...events];
      return { tooLarge: 0, committed: () => publishAll(held) };
    },
    subscribe<T>(topic: Topics) {
      const topics = topicsOf(topic);
      const s = subscription<T>(Promise.resolve(), () => {
        for (const t of topics) {
          const set = listeners.get(t);
          set?.delete(push);
          if (set?.size === 0) listeners.delete(t);
        }
        subscriptions.delete(s.end);
      });
      const push = (p: unknown) => s.push(p as T);
      for (const t of topics) {
        const set = listeners.get(t) ?? new Set();
        listeners.set(t, set);
        set.add(push);
      }
      subscriptions.add(s.end);
      return s.sub;
    },
    resume() {
      throw noReplay();
    },
    async close() {
      for (const end of subscriptions) end();
      subscriptions.clear();
    },
  };
}

/** JSON that keeps bigints and Dates (as tagged objects), so subscribers get the service shape back. */
export function encodeEvent(payload: unknown): string {
  return JSON.stringify(payload, function (this: Record<string, unknown>, key, value) {
    const raw = this[key];
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (raw instanceof Date) return { $date: raw.toISOString() };
    return value;
  });
}

export function decodeEvent(text: string): unknown {
  return JSON.parse(text, (_key, value) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      if (typeof value.$bigint === 'string' && Object.keys(value).length === 1) return BigInt(value.$bigint);
      if (typeof value.$date === 'string' && Object.keys(value).length === 1) return new Date(value.$date);
    }
    return value;
  });
}
