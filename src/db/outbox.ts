import { AppError } from '../errors.js';
import {
  decodeEvent,
  encodeEvent,
  mark,
  subscription,
  topicsOf,
  type EventBus,
  type QueuedSubscription,
  type Resume,
  type Subscription,
  type Topics,
} from '../runtime/events.js';
import type { SubscriptionConfig } from '../domain/serving-config.js';
import type { Db } from './client.js';
import { pgOutbox, type OutboxStore, type Retention, type StoredEvent, type Watch } from './outbox-store.js';
import { resumed, type Held } from './outbox-replay.js';

/**
 * The event bus between processes: the table "LiveEvent" of the database every process already
 * shares. A publisher (`cli import`, `cli sync`) appends its events, each taking its position (the
 * row's id) in commit order; a server with subscribers reads the rows newer than the last it read
 * and hands each to the subscribers of its topic. NOTIFY wakes the readers, on a connection of
 * their own. Rows are kept for replay (`resume`) as long as the retention says.
 *
 * Why rows and not NOTIFY payloads: a payload holds at most 8000 bytes (a press release's body is
 * more), and a notice sent while a reader's connection was down is gone. The notice only says
 * "read"; a reader that reconnects reads what it missed from the table.
 */

/** An event whose encoded payload is larger is not published (publishAll says how many). */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** What a publisher says of the `n` events it left out for their size. */
export const tooLargeMessage = (n: number) =>
  `${n} event(s) larger than ${MAX_EVENT_BYTES} bytes encoded were not published`;
/** Rows appended in one transaction, and read at once. */
export const BATCH_ROWS = 1000;

/** How much the database keeps of live events, and how much of it one subscription may replay. */
export interface ReplayLimits extends Retention {
  /** Events one resumed subscription may be behind (REPLAY_MAX_ROWS); more is REPLAY_TOO_OLD. */
  maxRows: number;
}

/** The limits as configured (config.ts, the subscriptions section). */
export const replayLimits = (s: Pick<SubscriptionConfig, 'replayDepthMs' | 'replayKeepRows' | 'replayMaxRows'>) => ({
  ms: s.replayDepthMs,
  rows: s.replayKeepRows,
  maxRows: s.replayMaxRows,
});

export function outboxEventBus(db: Db, limits: ReplayLimits): EventBus {
  return databaseEventBus(pgOutbox(db.driver.pool, db.database.url, limits), limits.maxRows);
}

/**
 * The events encoded, in runs of at most BATCH_ROWS for `append`; an event whose encoding is over
 * MAX_EVENT_BYTES is left out and counted.
 */
async function appendEncoded(
  events: Iterable<readonly [topic: string, payload: unknown]>,
  append: (batch: [string, string][]) => Promise<void>,
): Promise<{ tooLarge: number }> {
  let batch: [string, string][] = [];
  let tooLarge = 0;
  for (const [topic, payload] of events) {
    const text = encodeEvent(payload);
    if (Buffer.byteLength(text) > MAX_EVENT_BYTES) tooLarge++;
    else if (batch.push([topic, text]) === BATCH_ROWS) {
      await append(batch);
      batch = [];
    }
  }
  if (batch.length) await append(batch);
  return { tooLarge };
}

export function databaseEventBus(store: OutboxStore, maxReplayRows: number): EventBus {
  const reader = new OutboxReader(store);
  return {
    async publish(topic, payload) {
      await this.publishAll([[topic, payload]]);
    },
    // stored whether or not a server listens now: a client may resume from any kept position
    async publishAll(events) {
      const { tooLarge } = await appendEncoded(events, (batch) => store.append(batch, Date.now()));
      if (tooLarge) throw new Error(tooLargeMessage(tooLarge));
    },
    publishIn: (client, events) => appendEncoded(events, (batch) => store.appendWithin(client, batch, Date.now())),
    subscribe: (topic) => reader.subscribe(topic),
    resume: <T>(topic: Topics, from: Resume) => {
      const topics = topicsOf(topic);
      const live = reader.join<Held>(topics, (payload, row) => ({ id: row.id, payload }));
      return resumed<T>(store, maxReplayRows, topics, from, live);
    },
    close: () => reader.close(),
  };
}

/**
 * A server's side: while it has subscribers it watches the table and reads, from the newest row it
 * knew when the watch began, every row after the last it read; then it stops watching.
 */
class OutboxReader {
  readonly #handlers = new Map<string, Set<(payload: unknown, row: StoredEvent) => void>>();
  readonly #subscriptions = new Set<QueuedSubscription<unknown>>();
  #watching: Promise<Watch> | undefined;
  /** Bumped when a watch ends, so that a read begun under it changes nothing after. */
  #generation = 0;
  #cursor = 0;
  /** Whether the cursor belongs to the current watch (a wake may come before its head is read). */
  #positioned = false;
  #reading = false;
  #again = false;

  constructor(private readonly store: OutboxStore) {}

  subscribe<T>(topic: Topics): Subscription<T> {
    return this.join<T>(topicsOf(topic), (payload) => payload as T);
  }

  /** A subscription to `topics` whose queue takes what `item` makes of each event and its row. */
  join<T>(topics: readonly string[], item: (payload: unknown, row: StoredEvent) => T): Subscription<T> {
    const ready = this.#start().then(() => {});
    const s = subscription<T>(ready, () => {
      for (const t of topics) {
        const set = this.#handlers.get(t);
        set?.delete(push);
        if (set?.size === 0) this.#handlers.delete(t);
      }
      this.#subscriptions.delete(s as QueuedSubscription<unknown>);
      if (this.#subscriptions.size === 0) void this.#stop();
    });
    const push = (p: unknown, row: StoredEvent) => s.push(item(p, row));
    for (const t of topics) {
      let set = this.#handlers.get(t);
      if (!set) this.#handlers.set(t, (set = new Set()));
      set.add(push);
    }
    this.#subscriptions.add(s as QueuedSubscription<unknown>);
    ready.catch(() => s.end());
    return s.sub;
  }

  async close(): Promise<void> {
    for (const s of [...this.#subscriptions]) s.end();
    await this.#stop();
  }

  readonly #wake = () => void this.#pump();

  #start(): Promise<Watch> {
    if (this.#watching) return this.#watching;
    const w = this.store.watch(this.#wake).then((watch) => {
      if (this.#watching !== w) return watch;
      this.#cursor = watch.head;
      this.#positioned = true;
      this.#wake(); // for a notice that came before the head was known
      return watch;
    });
    this.#watching = w;
    w.catch(() => {
      if (this.#watching === w) this.#watching = undefined; // the next subscription tries again
    });
    return w;
  }

  async #stop(): Promise<void> {
    const w = this.#watching;
    this.#watching = undefined;
    this.#generation++;
    this.#positioned = false;
    await w?.then(
      (watch) => watch.stop(),
      () => {},
    );
  }

  async #pump(): Promise<void> {
    if (this.#reading) return void (this.#again = true);
    if (!this.#positioned) return;
    this.#reading = true;
    const gen = this.#generation;
    try {
      do {
        this.#again = false;
        const { rows, oldest } = await this.store.read(this.#cursor, BATCH_ROWS);
        if (gen !== this.#generation) return;
        if (this.#lost(rows, oldest)) {
          this.#cursor = rows.at(-1)!.id;
          const error = new AppError(
            'SERVICE_UNAVAILABLE',
            `live events were pruned before this instance read them (more than ${this.store.retention.rows} rows, or older than ${this.store.retention.ms / 1000} s); subscribe again`,
          );
          for (const s of [...this.#subscriptions]) s.fail(error);
          return;
        }
        if (rows.length) this.#cursor = rows.at(-1)!.id;
        this.#dispatch(rows);
        if (rows.length === BATCH_ROWS) this.#again = true;
      } while (this.#again && this.#subscriptions.size > 0);
    } catch {
      // the database does not answer: the next wake (a poll, a reconnection) reads again from the cursor
    } finally {
      this.#reading = false;
      // a wake that came during a read begun under a watch since ended
      if (this.#again && this.#subscriptions.size > 0) void this.#pump();
    }
  }

  /** Rows between the last read and the first of these are gone from the table: pruned unread. */
  #lost(rows: readonly StoredEvent[], oldest: number | undefined): boolean {
    const first = rows[0]?.id;
    return (
      first !== undefined && this.#cursor > 0 && first > this.#cursor + 1 && oldest !== undefined && oldest >= first
    );
  }

  #dispatch(rows: readonly StoredEvent[]): void {
    for (const row of rows) {
      const set = this.#handlers.get(row.topic);
      if (!set?.size) continue;
      const payload = mark(decodeEvent(row.payload), { position: row.id, topic: row.topic, replay: false });
      for (const h of [...set]) h(payload, row);
    }
  }
}
