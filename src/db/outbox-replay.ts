// A resumed subscription of the database's bus (db/outbox.ts): the kept rows of its topics after a
// position, a page at a time as its consumer reads them, then the live events it held meanwhile
// that come after the last row replayed, then live. One position order throughout: the seam
// neither skips nor repeats (docs/architecture.md#live-events-and-their-positions).
import { REPLAY_PAGE_ROWS } from '../domain/limits.js';
import { AppError } from '../errors.js';
import { decodeEvent, mark, type Resume, type Subscription } from '../runtime/events.js';
import type { OutboxStore, StoredEvent } from './outbox-store.js';

/** A live event as a resumed subscription holds it: with its position, to drop those replayed. */
export interface Held {
  id: number;
  payload: unknown;
}

/** Where a replay starts, or the coded error saying why it cannot (the subscription is then not made). */
async function startOf(store: OutboxStore, topics: readonly string[], from: Resume, maxRows: number): Promise<number> {
  const s = await store.start(topics, from, maxRows + 1);
  const kept = `events are kept ${store.retention.ms / 1000} s (REPLAY_DEPTH_SECONDS), the newest ${store.retention.rows} at most (REPLAY_KEEP_ROWS)`;
  const tooOld = (what: string) =>
    new AppError(
      'REPLAY_TOO_OLD',
      `${what} is older than the oldest event kept, at position ${s.oldest}: ${kept}. Subscribe again without \`after\`/\`since\`, or with a later one, knowing that events in between are not replayed`,
      {},
      { oldestPosition: String(s.oldest) },
    );
  if ('after' in from && from.after > s.head)
    throw new AppError(
      'BAD_REQUEST',
      `\`after\` ${from.after} is past the newest position, ${s.head}: give a position a stream delivered`,
    );
  // pruning drops the oldest rows only, so a start below the oldest kept lost what was between
  if (s.after === undefined ? s.oldest > 1 : s.after + 1 < s.oldest)
    throw tooOld('after' in from ? `position ${from.after}` : `time ${new Date(from.since).toISOString()}`);
  if (s.behind > maxRows)
    throw new AppError(
      'REPLAY_TOO_OLD',
      `more than ${maxRows} events of this subscription's topics follow its start (REPLAY_MAX_ROWS): resume from a later position or time`,
      {},
      { oldestPosition: String(s.oldest) },
    );
  return s.after ?? 0;
}

export function resumed<T>(
  store: OutboxStore,
  maxRows: number,
  topics: readonly string[],
  from: Resume,
  live: Subscription<Held>,
): Subscription<T> {
  let cursor = 0;
  let page: StoredEvent[] = [];
  let at = 0;
  let replaying = true;
  const ready = live.ready.then(async () => {
    cursor = await startOf(store, topics, from, maxRows);
  });
  // the subscription is refused: the live one it began is let go
  ready.catch(() => live.return!());
  const replayed = (row: StoredEvent) => {
    cursor = row.id;
    return mark(decodeEvent(row.payload), { position: row.id, topic: row.topic, replay: true }) as T;
  };
  const sub: Subscription<T> = {
    ready,
    async next() {
      while (at < page.length || replaying) {
        if (at < page.length) return { value: replayed(page[at++]!), done: false };
        try {
          page = await store.replay(topics, cursor, REPLAY_PAGE_ROWS);
        } catch {
          await live.return!();
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            `the replay could not read the database; resume after position ${cursor}, the last delivered`,
          );
        }
        at = 0;
        if (page.length < REPLAY_PAGE_ROWS) replaying = false;
      }
      for (;;) {
        const r = await live.next();
        if (r.done) return r;
        if (r.value.id <= cursor) continue; // replayed already
        cursor = r.value.id;
        return { value: r.value.payload as T, done: false };
      }
    },
    return: () => {
      page = [];
      replaying = false;
      return live.return!() as Promise<IteratorResult<T>>;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return sub;
}
