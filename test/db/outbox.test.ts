// The database's event bus (db/outbox.ts), in one process: what a publisher appends reaches a
// subscriber of another bus on the same database, in order, whole; and its bounds.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { BATCH_ROWS, databaseEventBus, MAX_EVENT_BYTES, outboxEventBus } from '../../src/db/outbox.js';
import { LISTENER_NAME, type OutboxStore, type StoredEvent } from '../../src/db/outbox-store.js';
import { parsePostgresUrl, type DatabaseConfig } from '../../src/config.js';
import { encodeEvent, type EventBus } from '../../src/runtime/events.js';
import { REPLAY_LIMITS, testDatabaseUrl } from '../helpers.js';

// A database of its own, not a schema of the run's: whether anyone listens is asked of the database
describe('the outbox event bus', () => {
  let database: DatabaseConfig;
  let publisherDb: Db;
  let serverDb: Db;
  let publisher: EventBus;
  let server: EventBus;

  beforeAll(async () => {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/mdg_outbox_${process.pid}_${randomBytes(3).toString('hex')}`;
    database = parsePostgresUrl(url.toString(), true);
    await migrate(database);
    // two clients, as the CLI and the server each have their own
    [publisherDb, serverDb] = await Promise.all([createDb(database), createDb(database)]);
    publisher = outboxEventBus(publisherDb, REPLAY_LIMITS);
    server = outboxEventBus(serverDb, REPLAY_LIMITS);
  });
  afterAll(async () => {
    await Promise.all([publisher.close(), server.close()]);
    await Promise.all([publisherDb.close(), serverDb.close()]);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(
      `DROP DATABASE IF EXISTS ${admin.escapeIdentifier(new URL(database.url).pathname.slice(1))} WITH (FORCE)`,
    );
    await admin.end();
  });

  it(`delivers what was published after the subscription was ready, in order, bigints and dates whole, past ${BATCH_ROWS} rows at a time`, async () => {
    // stored before the subscription: not delivered
    await publisher.publish('trade:NVLX', { n: -1, seq: 0n, at: new Date(0) });
    const sub = server.subscribe<{ n: number; seq: bigint; at: Date }>('trade:NVLX');
    await sub.ready;
    const n = BATCH_ROWS * 2 + 5;
    const at = new Date('2026-11-20T14:30:00.123Z');
    await publisher.publishAll(
      Array.from(
        { length: n },
        (_, i) => [i % 2 ? 'trade:ORBT' : 'trade:NVLX', { n: i, seq: 9_007_199_254_740_993n + BigInt(i), at }] as const,
      ),
    );
    const got: number[] = [];
    for (let i = 0; i < Math.ceil(n / 2); i++) {
      const { value } = await sub.next();
      expect(value).toEqual({ n: i * 2, seq: 9_007_199_254_740_993n + BigInt(i * 2), at });
      got.push(value!.n);
    }
    expect(got).toHaveLength(Math.ceil(n / 2));
    await sub.return!();
  });

  it(`does not store an event over ${MAX_EVENT_BYTES} bytes, says so, and publishes the rest`, async () => {
    const sub = server.subscribe<{ body: string }>('news:NVLX');
    await sub.ready;
    await expect(
      publisher.publishAll([
        ['news:NVLX', { body: 'x'.repeat(MAX_EVENT_BYTES) }],
        ['news:NVLX', { body: 'small' }],
      ]),
    ).rejects.toThrow(`1 event(s) larger than ${MAX_EVENT_BYTES} bytes encoded were not published`);
    expect((await sub.next()).value).toEqual({ body: 'small' });
    await sub.return!();
  });

  it('stores every event whether or not a server watches: a client may resume from any kept position', async () => {
    const count = async () =>
      Number((await publisherDb.driver.pool.query<{ n: string }>('SELECT count(*) AS n FROM "LiveEvent"')).rows[0]!.n);
    for (
      let i = 0;
      i < 100 &&
      (
        await publisherDb.driver.pool.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [
          LISTENER_NAME,
        ])
      ).rowCount;
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
    const before = await count();
    await publisher.publish('quote:NVLX', { n: 2 });
    expect(await count()).toBe(before + 1);
  });
});

describe('the outbox reader', () => {
  /** A table in memory whose rows `prune` drops, and whose watch wakes on demand. */
  function memoryStore() {
    const rows: StoredEvent[] = [];
    let wake = () => {};
    const store: OutboxStore = {
      async append(events) {
        for (const [topic, payload] of events) rows.push({ id: (rows.at(-1)?.id ?? 0) + 1, topic, payload });
      },
      appendWithin: () => Promise.reject(new Error('no transactions here')),
      async read(after, limit) {
        return { rows: rows.filter((r) => r.id > after).slice(0, limit), oldest: rows[0]?.id };
      },
      async watch(w) {
        wake = w;
        return { head: rows.at(-1)?.id ?? 0, stop: async () => void (wake = () => {}) };
      },
      replay: async () => [],
      start: async () => ({ after: 0, oldest: rows[0]?.id ?? 0, head: rows.at(-1)?.id ?? 0, behind: 0 }),
      retention: REPLAY_LIMITS,
    };
    return { store, rows, wake: () => wake() };
  }

  it('ends its subscriptions with SERVICE_UNAVAILABLE when rows were pruned before it read them, rather than skip them', async () => {
    const { store, rows, wake } = memoryStore();
    await store.append([['t', encodeEvent(1)]], 0);
    const bus = databaseEventBus(store, REPLAY_LIMITS.maxRows);
    const sub = bus.subscribe('t');
    await sub.ready;
    await store.append(
      [
        ['t', encodeEvent(2)],
        ['t', encodeEvent(3)],
        ['t', encodeEvent(4)],
      ],
      0,
    );
    rows.splice(0, 3); // 1, 2 and 3 pruned: 2 and 3 were never read
    wake();
    await expect(sub.next()).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('pruned before this instance read them'),
    });
    expect(await sub.next()).toEqual({ value: undefined, done: true });
    await bus.close();
  });

  it('reads again from where it was after a read that failed (the database was away)', async () => {
    const { store, wake } = memoryStore();
    let down = false;
    const read = store.read.bind(store);
    store.read = async (after, limit) => {
      if (down) throw new Error('connection refused');
      return read(after, limit);
    };
    const bus = databaseEventBus(store, REPLAY_LIMITS.maxRows);
    const sub = bus.subscribe('t');
    await sub.ready;
    await store.append([['t', encodeEvent('a')]], 0);
    down = true;
    wake();
    down = false;
    await new Promise((r) => setImmediate(r));
    wake();
    expect((await sub.next()).value).toBe('a');
    await bus.close();
  });
});
