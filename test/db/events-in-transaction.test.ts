// Live events appended in the same transaction as the rows they announce (EventBus.publishIn,
// ingest/resources/tick.ts writeWithEvents), on PostgreSQL with real connections: a batch that
// fails after its rows leaves neither rows nor events; a reader on another connection never sees
// a batch's rows without their events or the reverse; an event too large is left out, counted.
import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresUrl, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { MAX_EVENT_BYTES, outboxEventBus } from '../../src/db/outbox.js';
import type { WriteCounts } from '../../src/db/upsert.js';
import { importer as quoteImporter } from '../../src/ingest/resources/quote.js';
import { importer as tradeImporter } from '../../src/ingest/resources/trade.js';
import { decodeEvent, type EventBus } from '../../src/runtime/events.js';
import { REPLAY_LIMITS, testDatabaseUrl } from '../helpers.js';

const trade = (symbol: string, seq: number) =>
  tradeImporter.parse({
    symbol,
    conditions: [12],
    exchange: 4,
    id: `t${seq}`,
    price: 10 + seq / 100,
    sequence_number: seq,
    sip_timestamp: 1_795_208_399_869_397_000n + BigInt(seq) * 1_000_000n,
    size: 100,
    tape: 1,
  });
const quote = (symbol: string, seq: number) =>
  quoteImporter.parse({
    symbol,
    ask_exchange: 1,
    ask_price: 2,
    ask_size: 3,
    bid_exchange: 1,
    bid_price: 1.5,
    bid_size: 3,
    conditions: [],
    sequence_number: seq,
    sip_timestamp: 1_795_208_399_869_397_000n + BigInt(seq),
    tape: 1,
  });

describe('live events in the rows’ transaction', () => {
  let database: DatabaseConfig;
  let db: Db;
  let bus: EventBus;
  let reader: pg.Client;

  beforeAll(async () => {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/mdg_events_tx_${process.pid}_${randomBytes(3).toString('hex')}`;
    database = parsePostgresUrl(url.toString(), true);
    await migrate(database);
    db = await createDb(database);
    bus = outboxEventBus(db, REPLAY_LIMITS);
    reader = new pg.Client({ connectionString: database.url });
    await reader.connect();
  });
  afterAll(async () => {
    await bus.close();
    await reader.end();
    await db.close();
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(
      `DROP DATABASE IF EXISTS ${admin.escapeIdentifier(new URL(database.url).pathname.slice(1))} WITH (FORCE)`,
    );
    await admin.end();
  });

  /** Rows of `table` and events of `topic`, read on another connection in one statement (one snapshot). */
  const seen = async (table: 'Trade' | 'Quote', symbol: string, topic: string) => {
    const { rows } = await reader.query<{ rows: string; events: string }>(
      `SELECT (SELECT count(*) FROM "${table}" WHERE symbol = $1) AS rows,
              (SELECT count(*) FROM "LiveEvent" WHERE topic = $2) AS events`,
      [symbol, topic],
    );
    return { rows: Number(rows[0]!.rows), events: Number(rows[0]!.events) };
  };

  /** The bus, with `after` run in the writer's transaction once the events are appended. */
  const busThen = (after: (client: PoolClient) => Promise<void>): EventBus => ({
    ...bus,
    async publishIn(client, events) {
      const r = await bus.publishIn(client, events);
      await after(client);
      return r;
    },
  });

  it('a batch whose transaction fails after its events are appended leaves neither rows nor events', async () => {
    const failing = busThen(async (client) => void (await client.query('SELECT 1 / 0')));
    await expect(tradeImporter.write(db, [trade('RBK', 1), trade('RBK', 2)], failing)).rejects.toThrow(
      /division by zero/,
    );
    await expect(quoteImporter.write(db, [quote('RBK', 1)], failing)).rejects.toThrow(/division by zero/);
    expect(await seen('Trade', 'RBK', 'trade:RBK')).toEqual({ rows: 0, events: 0 });
    expect(await seen('Quote', 'RBK', 'quote:RBK')).toEqual({ rows: 0, events: 0 });
    // nor a snapshot: the whole batch rolled back
    const { rows } = await reader.query(`SELECT count(*)::int AS n FROM "Snapshot" WHERE symbol = 'RBK'`);
    expect(rows[0].n).toBe(0);
    // the same batch through the bus as it is: rows and events together
    expect(await tradeImporter.write(db, [trade('RBK', 1), trade('RBK', 2)], bus)).toMatchObject({
      inserted: 2,
      tooLarge: 0,
    });
    expect(await seen('Trade', 'RBK', 'trade:RBK')).toEqual({ rows: 2, events: 2 });
  });

  it('a reader on another connection sees the rows and their events at the same commit, neither before', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let appended!: () => void;
    const reached = new Promise<void>((r) => (appended = r));
    const held = busThen(async () => {
      appended();
      await gate;
    });
    const write = tradeImporter.write(db, [trade('VIS', 1), trade('VIS', 2), trade('VIS', 3)], held);
    await reached;
    // appended, not committed: the other connection sees nothing of the batch
    expect(await seen('Trade', 'VIS', 'trade:VIS')).toEqual({ rows: 0, events: 0 });
    release();
    expect(await write).toMatchObject({ inserted: 3, tooLarge: 0 });
    expect(await seen('Trade', 'VIS', 'trade:VIS')).toEqual({ rows: 3, events: 3 });
    // each event carries its row as stored, in the order the batch inserted them
    const events = await reader.query<{ payload: string }>(
      `SELECT payload FROM "LiveEvent" WHERE topic = 'trade:VIS' ORDER BY id`,
    );
    const stored = await db.prisma.trade.findMany({ where: { symbol: 'VIS' }, orderBy: { sequenceNumber: 'asc' } });
    expect(events.rows.map((r) => decodeEvent(r.payload))).toEqual(stored);
  });

  it('while batches commit, every snapshot another connection takes holds as many events as rows', async () => {
    let writing = true;
    const samples: { rows: number; events: number }[] = [];
    const sampling = (async () => {
      while (writing) samples.push(await seen('Trade', 'RUN', 'trade:RUN'));
    })();
    let written = 0;
    for (let b = 0; b < 20; b++) {
      const counts: WriteCounts = await tradeImporter.write(
        db,
        Array.from({ length: 50 }, (_, i) => trade('RUN', b * 50 + i)),
        bus,
      );
      written += counts.inserted;
    }
    writing = false;
    await sampling;
    samples.push(await seen('Trade', 'RUN', 'trade:RUN'));
    expect(samples.filter((s) => s.rows !== s.events)).toEqual([]);
    expect(samples.at(-1)).toEqual({ rows: written, events: written });
    expect(written).toBe(1000);
  });

  it(`leaves out an event over ${MAX_EVENT_BYTES} bytes encoded, counts it, and appends the rest`, async () => {
    const client = await db.driver.pool.connect();
    try {
      await client.query('BEGIN');
      const r = await bus.publishIn(client, [
        ['news:BIG', { body: 'x'.repeat(MAX_EVENT_BYTES) }],
        ['news:BIG', { body: 'small' }],
      ]);
      await client.query('COMMIT');
      expect(r).toEqual({ tooLarge: 1 });
    } finally {
      client.release();
    }
    const { rows } = await reader.query<{ payload: string }>(
      `SELECT payload FROM "LiveEvent" WHERE topic = 'news:BIG'`,
    );
    expect(rows.map((r) => decodeEvent(r.payload))).toEqual([{ body: 'small' }]);
  });
});
