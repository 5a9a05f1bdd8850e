import type { Client, Pool } from 'pg';

// The table of db/outbox.ts: how rows go in, in id order, and how readers learn of them.

/** Rows kept: the newest this many, none older than RETENTION_MS (the newest row always stays). */
export const MAX_ROWS = 100_000;
export const RETENTION_MS = 60_000;

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
  /** The rows after `id`, oldest first, at most `limit`; `oldest` is the smallest id the table holds. */
  read(after: number, limit: number): Promise<{ rows: StoredEvent[]; oldest: number | undefined }>;
  /**
   * Calls `wake` whenever rows may have come, until stopped; rejects when the database does not
   * answer. A watch is visible to `readers` before it resolves.
   */
  watch(wake: () => void): Promise<Watch>;
  /**
   * Whether any process may be watching: when none is, a publisher stores nothing (an import into a
   * database no server reads live costs no more than without the outbox). Asked after the rows an
   * event reports were committed, so a subscription ready before the answer gets their events.
   */
  readers(): Promise<boolean>;
}

const READ_SQL = `SELECT id, topic, payload, (SELECT min(id) FROM "LiveEvent") AS oldest FROM "LiveEvent" WHERE id > $1 ORDER BY id LIMIT $2`;
const HEAD_SQL = 'SELECT max(id) AS head FROM "LiveEvent"';
/** All but the newest row, when older than the retention or past the newest MAX_ROWS. */
const PRUNE_SQL = `DELETE FROM "LiveEvent" WHERE id < $1 AND (at < $2 OR id <= $1 - ${MAX_ROWS})`;

const toRows = (rows: readonly { id: unknown; topic: unknown; payload: unknown; oldest: unknown }[]) => ({
  rows: rows.map((r): StoredEvent => ({ id: Number(r.id), topic: String(r.topic), payload: String(r.payload) })),
  oldest: rows.length ? Number(rows[0]!.oldest) : undefined,
});

const CHANNEL = 'mdg_live_event';
export const LISTENER_NAME = 'mdg live events';
/** Any constant: one publisher at a time takes ids and commits, so ids commit in order. */
const APPEND_LOCK = 7_390_113;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * PostgreSQL: publishers take a transaction-scoped advisory lock before their ids (BIGSERIAL) and
 * hold it to their commit, so ids commit in order; NOTIFY in the same transaction reaches the
 * readers at commit. Readers LISTEN on a connection of their own, and read through the pool.
 */
export function pgOutbox(pool: Pool, url: string): OutboxStore {
  return {
    async append(events, now) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
        const { rows } = await client.query<{ last: string | null }>(
          `WITH added AS (INSERT INTO "LiveEvent" (topic, payload, at) SELECT t, p, $3::bigint FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(t, p, n) ORDER BY n RETURNING id)
           SELECT max(id) AS last FROM added`,
          [events.map((e) => e[0]), events.map((e) => e[1]), now],
        );
        await client.query(PRUNE_SQL, [rows[0]!.last, now - RETENTION_MS]);
        await client.query(`NOTIFY ${CHANNEL}`);
        await client.query('COMMIT');
        client.release();
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(e as Error);
        throw e;
      }
    },
    async read(after, limit) {
      return toRows((await pool.query(READ_SQL, [after, limit])).rows);
    },
    watch: (wake) => listen(url, wake, async () => Number((await pool.query(HEAD_SQL)).rows[0]?.head ?? 0)),
    // every session's application_name is visible to every role (only the query text is not)
    readers: async () =>
      (
        await pool.query(
          'SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() LIMIT 1',
          [LISTENER_NAME],
        )
      ).rowCount! > 0,
  };
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
