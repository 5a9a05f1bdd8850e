// Positions of live events (db/outbox-store.ts, db/outbox-replay.ts), on PostgreSQL with real
// connections: a reader never passes a position a later commit fills; a resumed subscription
// replays, then goes live, each event once, even while events are committed during its replay;
// a start before the oldest kept event is refused with REPLAY_TOO_OLD.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresUrl, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseEventBus } from '../../src/db/outbox.js';
import { REPLAY_PAGE_ROWS } from '../../src/domain/limits.js';
import { appendIn, pgOutbox, type OutboxStore } from '../../src/db/outbox-store.js';
import { encodeEvent, markOf, type EventBus } from '../../src/runtime/events.js';
import { REPLAY_LIMITS, testDatabaseUrl } from '../helpers.js';

describe('positions of live events', () => {
  let database: DatabaseConfig;
  let db: Db;
  let store: OutboxStore;
  let bus: EventBus;
  const conns: pg.Client[] = [];
  const connect = async () => {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    conns.push(c);
    return c;
  };
  const ids = async (after: number) => (await store.read(after, 10_000)).rows.map((r) => r.id);

  beforeAll(async () => {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/mdg_positions_${process.pid}_${randomBytes(3).toString('hex')}`;
    database = parsePostgresUrl(url.toString(), true);
    await migrate(database);
    db = await createDb(database);
    store = pgOutbox(db.driver.pool, database.url, REPLAY_LIMITS);
    bus = databaseEventBus(store, 5_000);
  });
  afterAll(async () => {
    await bus.close();
    await Promise.all(conns.map((c) => c.end()));
    await db.close();
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(
      `DROP DATABASE IF EXISTS ${admin.escapeIdentifier(new URL(database.url).pathname.slice(1))} WITH (FORCE)`,
    );
    await admin.end();
  });

  it('without the lock, a plain sequence lets a reader pass a position that commits later (the flaw the lock removes)', async () => {
    const [a, b] = [await connect(), await connect()];
    const start = (await store.read(0, 1)).rows.length ? Math.max(...(await ids(0))) : 0;
    const insert = (c: pg.Client) =>
      c.query(`INSERT INTO "LiveEvent" (topic, payload, at) VALUES ('flaw', '1', 0) RETURNING id`);
    await a.query('BEGIN');
    const first = Number((await insert(a)).rows[0].id);
    await b.query('BEGIN');
    const second = Number((await insert(b)).rows[0].id);
    await b.query('COMMIT');
    expect(second).toBeGreaterThan(first);
    const seen = await ids(start);
    expect(seen).toEqual([second]);
    await a.query('COMMIT');
    // the reader goes on from the last it read: the first position is behind it, never read
    expect(await ids(second)).toEqual([]);
    expect(await ids(start)).toEqual([first, second]);
  });

  it('with it, the first transaction to take a position commits first: a reader polling between the commits misses nothing', async () => {
    const [a, b] = [await connect(), await connect()];
    let cursor = Math.max(0, ...(await ids(0)));
    const read: number[] = [];
    const poll = async () => {
      const got = await ids(cursor);
      read.push(...got);
      cursor = got.at(-1) ?? cursor;
    };
    await a.query('BEGIN');
    await appendIn(a, [['t:A', encodeEvent('first')]], Date.now(), REPLAY_LIMITS);
    // a second writer, on its own connection, waits for the lock the first holds to its commit
    await b.query('BEGIN');
    let bDone = false;
    const bAppend = appendIn(b, [['t:B', encodeEvent('second')]], Date.now(), REPLAY_LIMITS).then(() => (bDone = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(bDone).toBe(false);
    await poll();
    expect(read).toEqual([]);
    await a.query('COMMIT');
    await bAppend;
    await poll(); // between the two commits
    await b.query('COMMIT');
    await poll();
    const rows = (await store.read(0, 10_000)).rows.filter((r) => r.topic === 't:A' || r.topic === 't:B');
    expect(rows.map((r) => r.topic)).toEqual(['t:A', 't:B']);
    expect(read).toEqual(rows.map((r) => r.id));
  });

  it(`resumes: replays ${REPLAY_PAGE_ROWS * 2 + 50} kept events a page at a time while more are committed, then goes live; each once, in order`, async () => {
    const topic = 'trade:SEAM';
    const publish = (from: number, n: number) =>
      bus.publishAll(Array.from({ length: n }, (_, i) => [topic, { n: from + i }] as const));
    const before = Math.max(0, ...(await ids(0)));
    const replayed = REPLAY_PAGE_ROWS * 2 + 50;
    await publish(0, replayed);
    await bus.publish('trade:OTHER', { n: -1 });
    const sub = bus.resume<{ n: number }>(topic, { after: before });
    await sub.ready;
    const got: { n: number; replay: boolean; position: number }[] = [];
    const take = async () => {
      const { value } = await sub.next();
      const m = markOf(value)!;
      got.push({ n: value!.n, replay: m.replay, position: m.position });
    };
    for (let i = 0; i < 10; i++) await take();
    // committed during the replay, in batches from another writer
    const during = publish(replayed, 1_500);
    for (let i = 10; i < replayed + 1_500; i++) await take();
    await during;
    await publish(replayed + 1_500, 5);
    for (let i = 0; i < 5; i++) await take();
    await sub.return!();
    expect(got.map((g) => g.n)).toEqual(Array.from({ length: replayed + 1_505 }, (_, i) => i));
    const positions = got.map((g) => g.position);
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
    expect(got.slice(0, replayed).every((g) => g.replay)).toBe(true);
    expect(got.at(-1)!.replay).toBe(false);
    // once live, never replayed again
    const firstLive = got.findIndex((g) => !g.replay);
    expect(got.slice(firstLive).every((g) => !g.replay)).toBe(true);
  });

  it('resumes since a time: the events published at or after it', async () => {
    const topic = 'news:SINCE';
    await bus.publish(topic, { n: 'old' });
    await new Promise((r) => setTimeout(r, 20));
    const since = Date.now();
    await bus.publish(topic, { n: 'new' });
    const sub = bus.resume<{ n: string }>(topic, { since });
    await sub.ready;
    expect((await sub.next()).value).toEqual({ n: 'new' });
    await sub.return!();
  });

  it('refuses a position older than the oldest kept with REPLAY_TOO_OLD naming it, and one past the newest with BAD_REQUEST', async () => {
    const small = pgOutbox(db.driver.pool, database.url, { ms: REPLAY_LIMITS.ms, rows: 3 });
    const head = Math.max(0, ...(await ids(0)));
    for (let i = 0; i < 5; i++) await small.append([['quote:OLD', encodeEvent(i)]], Date.now());
    const oldest = (await small.read(0, 1)).rows[0]!.id;
    expect(oldest).toBeGreaterThan(head + 1);
    const tight = databaseEventBus(small, 100);
    const old = tight.resume('quote:OLD', { after: head });
    await expect(old.ready).rejects.toMatchObject({
      code: 'REPLAY_TOO_OLD',
      extensions: { oldestPosition: String(oldest) },
      message: expect.stringContaining(`oldest event kept, at position ${oldest}`),
    });
    const ahead = tight.resume('quote:OLD', { after: head + 1_000 });
    await expect(ahead.ready).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // from the oldest kept on, what is kept is replayed
    const ok = tight.resume<number>('quote:OLD', { after: oldest - 1 });
    await ok.ready;
    expect([(await ok.next()).value, (await ok.next()).value, (await ok.next()).value]).toEqual([2, 3, 4]);
    await ok.return!();
    // more behind than a subscription may replay
    const tooMany = databaseEventBus(small, 1).resume('quote:OLD', { after: oldest - 1 });
    await expect(tooMany.ready).rejects.toMatchObject({ code: 'REPLAY_TOO_OLD' });
    await tight.close();
  });
});
