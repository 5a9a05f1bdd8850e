import type { Client, Pool, PoolClient } from 'pg';

// The table of db/outbox.ts: how rows go in, in id order, and how readers learn of them. An id is
// an event's position in the live stream (docs/architecture.md#live-events-and-their-positions).

/** How long and how many rows are kept for replay (config.ts: REPLAY_DEPTH_SECONDS, REPLAY_KEEP_ROWS). */
export interface Retention {
  /** Rows older than this are pruned (the newest row always stays). */
  ms: number;
  /** Only the newest this many rows are kept. */
  rows: number;
}

export interface StoredEvent {
  id: number;
  topic: string;
  payload: string;
}

/** While a server watches the table: `head` is the newest id when it began. */
export interface Watch {
  head: number;
  stop(): Promise<void>;
}

/** What the database does for the outbox (pgOutbox); tests stand in for it. */
export interface OutboxStore {
  /**
   * Appends `events` in one transaction whose ids follow every committed row's (commits in id
   * order: a reader never passes a row still to commit), wakes the readers and prunes.
   */
  append(events: readonly (readonly [topic: string, payload: string])[], now: number): Promise<void>;
  /**
   * Appends `events` in the caller's open transaction on `client` (appendIn): they take their ids
   * and become visible when it commits, and are gone if it rolls back.
   */
  appendWithin(
    client: PoolClient,
    events: readonly (readonly [topic: string, payload: string])[],
    now: number,
  ): Promise<void>;
  /** The rows after `id`, oldest first, at most `limit`; `oldest` is the smallest id the table holds. */
  read(after: number, limit: number): Promise<{ rows: StoredEvent[]; oldest: number | undefined }>;
  /** The rows of `topics` after `after`, oldest first, at most `limit` (a replay's page). */
  replay(topics: readonly string[], after: number, limit: number): Promise<StoredEvent[]>;
  /**
   * Where a replay of `topics` starts: after the id given, or after the newest id published before
   * `since` (epoch ms; undefined when none kept is); with the oldest and newest ids kept (0 when the
   * table is empty) and how many rows of `topics` follow the start, counted to `cap` at most.
   */
  start(
    topics: readonly string[],
    from: { after: number } | { since: number },
    cap: number,
  ): Promise<{ after: number | undefined; oldest: number; head: number; behind: number }>;
  /** How long rows are kept. */
  readonly retention: Retention;
  /**
   * Calls `wake` whenever rows may have come, until stopped; rejects when the database does not
   * answer.
   */
  watch(wake: () => void): Promise<Watch>;
}

const READ_SQL = `SELECT id, topic, payload, (SELECT min(id) FROM "LiveEvent") AS oldest FROM "LiveEvent" WHERE id > $1 ORDER BY id LIMIT $2`;
const HEAD_SQL = 'SELECT max(id) AS head FROM "LiveEvent"';
/** All but the newest row, when older than the retention or past the newest `rows`. */
const PRUNE_SQL = `DELETE FROM "LiveEvent" WHERE id < $1 AND (at < $2 OR id <= $1 - $3::bigint)`;
const REPLAY_SQL = `SELECT id, topic, payload FROM "LiveEvent" WHERE topic = ANY($1::text[]) AND id > $2 ORDER BY id LIMIT $3`;
// min and max by the primary key, `since` by the index on at; the count stops at $3 rows, read from the (topic, id) index
const START_SQL = `WITH s AS (SELECT CASE WHEN $4::bigint IS NULL THEN $2::bigint
    ELSE (SELECT id FROM "LiveEvent" WHERE at < $4::bigint ORDER BY at DESC, id DESC LIMIT 1) END AS after)
  SELECT (SELECT min(id) FROM "LiveEvent") AS oldest, (SELECT max(id) FROM "LiveEvent") AS head, s.after,
    (SELECT count(*) FROM (SELECT 1 FROM "LiveEvent" WHERE topic = ANY($1::text[]) AND id > coalesce(s.after, 0) LIMIT $3) AS b) AS behind
  FROM s`;

const toEvent = (r: { id: unknown; topic: unknown; payload: unknown }): StoredEvent => ({
  id: Number(r.id),
  topic: String(r.topic),
  payload: String(r.payload),
});
const toRows = (rows: readonly { id: unknown; topic: unknown; payload: unknown; oldest: unknown }[]) => ({
  rows: rows.map(toEvent),
  oldest: rows.length ? Number(rows[0]!.oldest) : undefined,
});

const CHANNEL = 'mdg_live_event';
export const LISTENER_NAME = 'mdg live events';
/**
 * Any constant: one publisher at a time takes ids and commits, so ids become visible as a prefix in
 * commit order, and a reader never passes an id that a later commit fills (test/db/positions.test.ts).
 */
const APPEND_LOCK = 7_390_113;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * PostgreSQL: publishers take a transaction-scoped advisory lock before their ids (BIGSERIAL) and
 * hold it to their commit, so ids commit in order; NOTIFY in the same transaction reaches the
 * readers at commit. Readers LISTEN on a connection of their own, and read through the pool.
 */
export function pgOutbox(pool: Pool, url: string, retention: Retention): OutboxStore {
  return {
    retention,
    async append(events, now) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await appendIn(client, events, now, retention);
        await client.query('COMMIT');
        client.release();
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(e as Error);
        throw e;
      }
    },
    appendWithin: (client, events, now) => appendIn(client, events, now, retention),
    async read(after, limit) {
      return toRows((await pool.query(READ_SQL, [after, limit])).rows);
    },
    async replay(topics, after, limit) {
      return (await pool.query(REPLAY_SQL, [topics, after, limit])).rows.map(toEvent);
    },
    async start(topics, from, cap) {
      const args = 'after' in from ? [topics, from.after, cap, null] : [topics, null, cap, from.since];
      const r = (await pool.query(START_SQL, args)).rows[0]!;
      return {
        after: r.after == null ? undefined : Number(r.after),
        oldest: Number(r.oldest ?? 0),
        head: Number(r.head ?? 0),
        behind: Number(r.behind),
      };
    },
    watch: (wake) => listen(url, wake, async () => Number((await pool.query(HEAD_SQL)).rows[0]?.head ?? 0)),
  };
}

/**
 * The events' rows, in the caller's open transaction, as its last statements: the lock taken here
 * is held to its commit, so no other writer takes a position until this one's are visible.
 */
export async function appendIn(
  client: Pick<Client, 'query'>,
  events: readonly (readonly [topic: string, payload: string])[],
  now: number,
  retention: Retention,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
  const { rows } = await client.query<{ last: string | null }>(
    `WITH added AS (INSERT INTO "LiveEvent" (topic, payload, at) SELECT t, p, $3::bigint FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(t, p, n) ORDER BY n RETURNING id)
     SELECT max(id) AS last FROM added`,
    [events.map((e) => e[0]), events.map((e) => e[1]), now],
  );
  await client.query(PRUNE_SQL, [rows[0]!.last, now - retention.ms, retention.rows]);
  await client.query(`NOTIFY ${CHANNEL}`);
}

/**
 * LISTEN on a connection of its own. When it drops (a server restart, a network cut), it is opened
 * again after RECONNECT_MIN_MS, doubling to RECONNECT_MAX_MS while it fails, and `wake` reads what
 * came meanwhile from the table; nothing is thrown. Only the first connection's failure rejects.
 */
async function listen(url: string, wake: () => void, head: () => Promise<number>): Promise<Watch> {
  const { default: pg } = await import('pg');
  let stopped = false;
  let client: Client | undefined;
  let delay = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<Client> => {
    // named, so an operator finds it in pg_stat_activity
    const c = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: LISTENER_NAME,
    });
    c.on('error', () => {}); // 'end' follows, and reconnects
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (e) {
      void c.end().catch(() => {});
      throw e;
    }
    c.on('notification', wake);
    c.once('end', () => {
      if (client === c) client = undefined;
      if (!stopped) retry();
    });
    return c;
  };
  const retry = () => {
    timer = setTimeout(() => {
      timer = undefined;
      connect().then(
        (c) => {
          if (stopped) return void c.end().catch(() => {});
          client = c;
          delay = RECONNECT_MIN_MS;
          wake();
        },
        () => {
          delay = Math.min(delay * 2, RECONNECT_MAX_MS);
          if (!stopped) retry();
        },
      );
    }, delay);
  };
  client = await connect();
  let first: number;
  try {
    first = await head();
  } catch (e) {
    stopped = true;
    await client.end().catch(() => {});
    throw e;
  }
  return {
    head: first,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
