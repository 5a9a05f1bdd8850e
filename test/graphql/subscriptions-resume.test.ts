// Resumable subscriptions on the database's bus (db/outbox.ts), over SSE and WebSocket: each SSE event's `id:` is its
// position; `after:` and Last-Event-ID replay what was missed, then go live, each event once; a
// client that does not read ends with SLOW_CONSUMER naming the last position delivered (BUFFER),
// or keeps only the newest event of each symbol (LATEST); and streams cut at random while events
// flow, each resumed from the last id it read, together hold exactly the committed events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { createApp, type App } from '../../src/app.js';
import { REPLAY_PAGE_ROWS } from '../../src/domain/limits.js';
import { operationCost } from '../../src/graphql/cost.js';
import { costOptions } from '../../src/graphql/guard.js';
import { schema } from '../../src/schema/index.js';
import { outboxEventBus } from '../../src/db/outbox.js';
import { tradeTopic, type EventBus } from '../../src/runtime/events.js';
import { createApiKey } from '../../src/services/account.js';
import { authHarness, freshUser, RELAXED, type AuthHarness } from '../auth/helpers.js';
import { REPLAY_LIMITS, testConfig, testDatabases } from '../helpers.js';
import { fetchOf, listening, SIP, sse, wsClients } from './subscription-helpers.js';

const TRADES = (symbols: string[], args = '') =>
  `subscription { tradeAdded(symbols: ${JSON.stringify(symbols)}${args}) { symbol sequenceNumber position replay } }`;
/** A trade as the import publishes it (the stored row). */
const row = (symbol: string, n: number) => ({
  symbol,
  sequenceNumber: BigInt(n),
  sipTimestamp: SIP + BigInt(n),
  tradeId: `t${n}`,
  price: 412.5,
  size: 100,
  exchange: 4,
  tape: 3,
  conditions: [12, 37],
});

const tdb = testDatabases()[0]!;

describe('resumable subscriptions', () => {
  let h: AuthHarness;
  let bus: EventBus;
  let key: string;
  const apps: App[] = [];

  beforeAll(async () => {
    h = await authHarness(tdb);
    bus = outboxEventBus(h.db, REPLAY_LIMITS);
    const user = await freshUser(h.db, 'pro');
    key = (await createApiKey(h.db, user.id, 'resume', 1_000)).key;
  });
  afterAll(async () => {
    await bus.close();
    await h.close();
  });

  const app = (env: Record<string, string> = {}) => {
    const a = createApp({ config: testConfig(h.config.database, {}, { ...RELAXED, ...env }), db: h.db, events: bus });
    apps.push(a);
    return a;
  };
  const publish = (symbol: string, from: number, n: number) =>
    bus.publishAll(Array.from({ length: n }, (_, i) => [tradeTopic(symbol), row(symbol, from + i)] as const));
  const positions = async (symbol: string) =>
    (
      await h.db.driver.pool.query<{ id: string }>('SELECT id FROM "LiveEvent" WHERE topic = $1 ORDER BY id', [
        tradeTopic(symbol),
      ])
    ).rows.map((r) => r.id);

  it('an event’s SSE id is its position; `after` and Last-Event-ID replay what followed it, flagged, then go live', async () => {
    const fetch = fetchOf(app());
    const live = await sse(fetch, 'http://test', TRADES(['RSMA']), { 'x-api-key': key });
    await publish('RSMA', 0, 3);
    const first = await live.event();
    expect(first.data.data.tradeAdded).toMatchObject({ sequenceNumber: '0', replay: false });
    expect(first.id).toBe(first.data.data.tradeAdded.position);
    await live.cancel();
    const stored = await positions('RSMA');
    expect(stored[0]).toBe(first.id);

    const viaArg = await sse(fetch, 'http://test', TRADES(['RSMA'], `, after: "${first.id}"`), { 'x-api-key': key });
    const viaHeader = await sse(fetch, 'http://test', TRADES(['RSMA']), {
      'x-api-key': key,
      'last-event-id': first.id,
    });
    for (const s of [viaArg, viaHeader]) {
      const replayed = [await s.event(), await s.event()];
      expect(replayed.map((e) => [e.id, e.data.data.tradeAdded.sequenceNumber, e.data.data.tradeAdded.replay])).toEqual(
        [
          [stored[1], '1', true],
          [stored[2], '2', true],
        ],
      );
    }
    await publish('RSMA', 3, 1);
    for (const s of [viaArg, viaHeader]) {
      const next = await s.event();
      expect(next.data.data.tradeAdded).toMatchObject({ sequenceNumber: '3', replay: false });
      await s.cancel();
    }
  });

  it('over WebSocket too: `after` replays, flagged, then goes live', async () => {
    const server = await listening(app());
    const ws = wsClients(() => server.url);
    try {
      await publish('RSMW', 0, 3);
      const stored = await positions('RSMW');
      const op = ws.run(ws.client({ apiKey: key }).client, TRADES(['RSMW'], `, after: "${stored[0]}"`));
      await expect.poll(() => op.results.length, { timeout: 10_000 }).toBe(2);
      await publish('RSMW', 3, 1);
      await expect.poll(() => op.results.length, { timeout: 10_000 }).toBe(3);
      expect(op.results.map((r) => [r.data.tradeAdded.position, r.data.tradeAdded.replay])).toEqual([
        [stored[1], true],
        [stored[2], true],
        [(await positions('RSMW'))[3], false],
      ]);
      op.dispose();
    } finally {
      await ws.disposeAll();
      await server.close();
    }
  });

  it('refuses a Last-Event-ID that is not a position, and a position from before what is kept, with coded errors', async () => {
    const fetch = fetchOf(app());
    const bad = await sse(fetch, 'http://test', TRADES(['RSMB']), { 'x-api-key': key, 'last-event-id': 'abc' });
    expect((await bad.rest()).find((e) => e.event === 'next')?.data.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    await h.db.driver.pool.query('DELETE FROM "LiveEvent" WHERE id < (SELECT max(id) FROM "LiveEvent")');
    const old = await sse(fetch, 'http://test', TRADES(['RSMB'], ', after: "0"'), { 'x-api-key': key });
    const error = (await old.rest()).find((e) => e.event === 'next')?.data.errors[0];
    expect(error.extensions).toMatchObject({ code: 'REPLAY_TOO_OLD', oldestPosition: expect.stringMatching(/^\d+$/) });
  });

  it('BUFFER: a client that does not read ends with SLOW_CONSUMER naming the last position delivered', async () => {
    const fetch = fetchOf(app({ SUBSCRIPTION_BUFFER_BYTES: '4096' }));
    const idle = await sse(fetch, 'http://test', TRADES(['RSMC']), { 'x-api-key': key });
    // of the same group: once it has read the last event, the idle one was handed every event too
    const reader = await sse(fetch, 'http://test', TRADES(['RSMC']), { 'x-api-key': key });
    for (let round = 0; round < 30; round++) {
      await publish('RSMC', round * 30, 30);
      for (let i = 0; i < 30; i++) await reader.next();
    }
    await reader.cancel();
    const events = await idle.rest();
    const error = events.at(-2)!.data.errors[0];
    expect(error.extensions.code).toBe('SLOW_CONSUMER');
    const delivered = events.slice(0, -2);
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(900);
    expect(error.extensions.lastPosition).toBe(delivered.at(-1)!.id);
    // resuming after it gives the rest, none twice
    const rest = await sse(fetch, 'http://test', TRADES(['RSMC'], `, after: "${error.extensions.lastPosition}"`), {
      'x-api-key': key,
    });
    const got = delivered.map((e) => Number(e.data.data.tradeAdded.sequenceNumber));
    while (got.length < 900) got.push(Number((await rest.next()).data.tradeAdded.sequenceNumber));
    expect(got).toEqual(Array.from({ length: 900 }, (_, i) => i));
    await rest.cancel();
  });

  it('LATEST: a client that does not read keeps the newest event of each symbol, in position order, and is not ended', async () => {
    const fetch = fetchOf(app({ SUBSCRIPTION_BUFFER_BYTES: '4096' }));
    const query = TRADES(['RSMD', 'RSME'], ', policy: LATEST');
    const idle = await sse(fetch, 'http://test', query, { 'x-api-key': key });
    const reader = await sse(fetch, 'http://test', query, { 'x-api-key': key });
    for (let i = 0; i < 10; i++) {
      await bus.publishAll(
        Array.from({ length: 40 }, (_, j) => {
          const symbol = j % 2 ? 'RSME' : 'RSMD';
          return [tradeTopic(symbol), row(symbol, i * 40 + j)] as const;
        }),
      );
    }
    // the reader reads as they come: once it has the last, the idle one was handed every event
    for (let n = -1; n !== 399; ) n = Number((await reader.next()).data.tradeAdded.sequenceNumber);
    await reader.cancel();
    const got: { id: string; symbol: string; n: number }[] = [];
    while (!got.some((g) => g.n === 399) || !got.some((g) => g.n === 398)) {
      const e = await idle.event();
      expect(e.data.errors).toBeUndefined();
      got.push({ id: e.id, symbol: e.data.data.tradeAdded.symbol, n: Number(e.data.data.tradeAdded.sequenceNumber) });
    }
    expect(got.length).toBeLessThan(400);
    expect(got.every((g, i) => i === 0 || BigInt(g.id) > BigInt(got[i - 1]!.id))).toBe(true);
    expect(got.every((g) => g.symbol === (g.n % 2 ? 'RSME' : 'RSMD'))).toBe(true);
    await idle.cancel();
  });

  it(`charges a resumed subscription one page of replay (${REPLAY_PAGE_ROWS} units) in its cost, a live one not`, () => {
    const cost = (q: string) => operationCost(schema, parse(q), null, {}, costOptions).cost;
    const live = cost('subscription { tradeAdded(symbol: "A") { price } }');
    expect(cost('subscription { tradeAdded(symbol: "A", after: "5") { price } }')).toBe(live + REPLAY_PAGE_ROWS);
    expect(cost('subscription { tradeAdded(symbol: "A", since: "2026-01-01") { price } }')).toBe(
      live + REPLAY_PAGE_ROWS,
    );
  });

  it('chaos: 20 streams cut at random while 10,000 events are committed by two writers; each resumed from its last id, together they hold every committed event once, in order', async () => {
    const fetch = fetchOf(app());
    const total = 10_000;
    const symbol = 'RSMX';
    // the first stream starts from before the first event: every later one from the last id it read
    let last: string | undefined = String(
      (await h.db.driver.pool.query<{ m: string }>('SELECT coalesce(max(id), 0) AS m FROM "LiveEvent"')).rows[0]!.m,
    );
    // two writers whose transactions interleave, paced so that the streams are cut while they write
    let writing = 2;
    const writers = [0, 1].map(async (w) => {
      for (let b = 0; b < total / 2 / 100; b++) {
        await bus.publishAll(
          Array.from({ length: 100 }, (_, i) => [tradeTopic(symbol), row(symbol, w * 1e6 + b * 100 + i)] as const),
        );
        await new Promise((r) => setTimeout(r, 10));
      }
      writing--;
    });
    let cutWhileWriting = 0;
    const received: string[] = [];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let cut = 0; cut < 20; cut++) {
      const headers = { 'x-api-key': key, 'last-event-id': last };
      const stream = await sse(fetch, 'http://test', TRADES([symbol]), headers);
      const take = 50 + Math.floor(random() * 500);
      for (let i = 0; i < take; i++) {
        const e = await stream.event(20_000);
        received.push(e.id);
        last = e.id;
      }
      await stream.cancel();
      if (writing) cutWhileWriting++;
    }
    await Promise.all(writers);
    expect(cutWhileWriting).toBeGreaterThanOrEqual(10);
    const stored = await positions(symbol);
    expect(stored).toHaveLength(total);
    const final = await sse(fetch, 'http://test', TRADES([symbol]), { 'x-api-key': key, 'last-event-id': last! });
    while (received.length < total) received.push((await final.event(20_000)).id);
    await final.cancel();
    expect(received).toEqual(stored);
  });
});
