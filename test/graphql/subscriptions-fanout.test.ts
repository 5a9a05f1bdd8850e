// Fan-out: identical subscriptions (same document, variables and caller tier) share one execution
// and one serialization per event, over SSE and WebSocket alike; live subscriptions count against
// a per-user and a per-instance cap on both transports together; a subscriber that does not read
// is ended with SLOW_CONSUMER while one that reads gets every event; and delivering a burst lets
// the event loop turn (timers, I/O: /healthz) before it is over.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { tradeTopic } from '../../src/runtime/events.js';
import { schema } from '../../src/schema/index.js';
import { createApiKey, type Tier } from '../../src/services/account.js';
import { authHarness, freshUser, RELAXED, type AuthHarness } from '../auth/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import { countingBus, fetchOf, listening, SIP, sse, wsClients, type EventStream } from './subscription-helpers.js';

const FIELDS = 'id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time';
const TRADES = (symbol: string) => `subscription { tradeAdded(symbol: "${symbol}") { ${FIELDS} } }`;
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

describe.each(testDatabases())('fan-out on $name', (tdb) => {
  let h: AuthHarness;
  let counted: ReturnType<typeof countingBus>;
  const servers: { close(): Promise<void> }[] = [];
  const clients: ReturnType<typeof wsClients>[] = [];

  beforeAll(async () => {
    h = await authHarness(tdb);
    counted = countingBus();
  });
  afterAll(async () => {
    for (const c of clients) await c.disposeAll();
    for (const s of servers) await s.close();
    await counted.bus.close();
    await h.close();
    await tdb.cleanup();
  });

  /** An app over the suite's database and bus with `env`, listening for WebSocket clients too. */
  async function gateway(env: Record<string, string>) {
    const app = createApp({
      config: testConfig(h.config.database, {}, { ...RELAXED, ...env }),
      db: h.db,
      events: counted.bus,
    });
    const server = await listening(app);
    servers.push(server);
    const ws = wsClients(() => server.url);
    clients.push(ws);
    const subscribe = (key: string, query = TRADES('NVLX')) =>
      sse(fetchOf(app), 'http://test', query, { 'x-api-key': key });
    return { app, ws, subscribe };
  }

  async function keys(tier: Tier, n = 1): Promise<string[]> {
    const user = await freshUser(h.db, tier);
    return Promise.all(
      Array.from({ length: n }, async (_, i) => (await createApiKey(h.db, user.id, `k${i}`, 1_000)).key),
    );
  }

  /** Counts the executions of `tradeAdded` (its resolver runs once per event per execution) and the serializations of its results. */
  function spies() {
    const field = schema.getSubscriptionType()!.getFields().tradeAdded!;
    const resolve = field.resolve!;
    const counts = { executions: 0 };
    field.resolve = (...args) => {
      counts.executions++;
      return resolve(...args);
    };
    const stringify = vi.spyOn(JSON, 'stringify');
    return {
      counts,
      serializations: () =>
        stringify.mock.calls.filter(([v]) => (v as { data?: { tradeAdded?: unknown } } | undefined)?.data?.tradeAdded)
          .length,
      restore() {
        field.resolve = resolve;
        stringify.mockRestore();
      },
    };
  }

  it('200 identical subscriptions over SSE: each event is executed once and serialized once, and all 200 get it', async () => {
    const { subscribe } = await gateway({ SUBSCRIPTIONS_PER_CALLER: '1000' });
    const [key] = await keys('enterprise');
    const streams: EventStream[] = [];
    for (let i = 0; i < 200; i++) streams.push(await subscribe(key!));
    const spy = spies();
    try {
      await counted.bus.publishAll([0, 1, 2].map((n) => [tradeTopic('NVLX'), row('NVLX', n)] as const));
      for (const s of streams)
        expect([
          (await s.next()).data.tradeAdded.sequenceNumber,
          (await s.next()).data.tradeAdded.sequenceNumber,
          (await s.next()).data.tradeAdded.sequenceNumber,
        ]).toEqual(['0', '1', '2']);
      expect(spy.counts.executions).toBe(3);
      expect(spy.serializations()).toBe(3);
    } finally {
      spy.restore();
      await Promise.all(streams.map((s) => s.cancel()));
    }
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('SSE and WebSocket subscribers of one document share the execution and the payload JSON; each gets the same event', async () => {
    const { ws, subscribe } = await gateway({});
    const [a, b] = await keys('pro', 2);
    const before = counted.started();
    const streams = [await subscribe(a!), await subscribe(b!), await subscribe(a!)];
    const ops = [ws.client({ apiKey: a }), ws.client({ apiKey: b })].flatMap(({ client }) => [
      ws.run(client, TRADES('NVLX')),
      ws.run(client, TRADES('NVLX')),
    ]);
    await expect.poll(() => counted.started() - before, { timeout: 5_000 }).toBe(7);
    const spy = spies();
    try {
      await counted.bus.publish(tradeTopic('NVLX'), row('NVLX', 7));
      const got = await Promise.all(streams.map((s) => s.next()));
      await expect.poll(() => ops.every((o) => o.results.length === 1), { timeout: 5_000 }).toBe(true);
      for (const r of [...got, ...ops.map((o) => o.results[0])]) expect(r).toEqual(got[0]);
      expect(got[0].data.tradeAdded).toMatchObject({
        sequenceNumber: '7',
        sipTimestamp: String(SIP + 7n),
        conditions: [12, 37],
      });
      expect(spy.counts.executions).toBe(1);
      expect(spy.serializations()).toBe(1);
    } finally {
      spy.restore();
      await Promise.all(streams.map((s) => s.cancel()));
      for (const o of ops) o.dispose();
    }
  });

  it('caps count SSE and WebSocket together: a user past SUBSCRIPTIONS_PER_CALLER gets 429 TOO_MANY_SUBSCRIPTIONS, anyone past SUBSCRIPTIONS_PER_INSTANCE 503 SUBSCRIPTIONS_FULL', async () => {
    const { ws, subscribe } = await gateway({ SUBSCRIPTIONS_PER_CALLER: '3', SUBSCRIPTIONS_PER_INSTANCE: '5' });
    const [k1, k2] = await keys('pro', 2); // one user, two keys: one budget
    const news = (symbol: string) => `subscription { newsAdded(symbol: "${symbol}") { headline } }`;
    const before = counted.started();
    const held = [await subscribe(k1!, news('A')), await subscribe(k2!, news('B'))];
    const conn = ws.client({ apiKey: k2 }).client;
    const third = ws.run(conn, news('C'));
    await expect.poll(() => counted.started() - before, { timeout: 5_000 }).toBe(3);

    const refusedSse = await subscribe(k1!, news('D'));
    expect(refusedSse.response.status).toBe(429);
    expect(refusedSse.response.headers.get('retry-after')).toBe('10');
    expect(await refusedSse.rest()).toEqual([
      {
        event: 'next',
        data: {
          errors: [
            expect.objectContaining({
              message: expect.stringMatching(
                /^a user may hold 3 live subscriptions at once \(SUBSCRIPTIONS_PER_CALLER.*this one holds 3/,
              ),
              extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
            }),
          ],
        },
      },
      { event: 'complete', data: '' },
    ]);
    const refusedWs = ws.run(conn, news('E'));
    await expect.poll(() => refusedWs.done, { timeout: 5_000 }).toBe(true);
    expect(refusedWs.results).toEqual([
      { errors: [expect.objectContaining({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } })] },
    ]);
    expect(third.done).toBe(false);

    // one ends: the user has room again
    await held.shift()!.cancel();
    await expect
      .poll(
        async () => {
          const s = await subscribe(k1!, news('F'));
          if (s.response.status === 200) held.push(s);
          return s.response.status;
        },
        { timeout: 5_000 },
      )
      .toBe(200);

    // 3 held by that user; 2 more by another fill the instance
    const [other] = await keys('free');
    held.push(await subscribe(other!, news('G')));
    const otherConn = ws.client({ apiKey: other }).client;
    const fifth = ws.run(otherConn, news('H'));
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(5);
    const [third_user] = await keys('free');
    const full = await subscribe(third_user!, news('I'));
    expect(full.response.status).toBe(503);
    expect(full.response.headers.get('retry-after')).toBe('10');
    expect((await full.next()).errors[0]).toMatchObject({
      message: expect.stringMatching(
        /^this instance serves its maximum of 5 live subscriptions \(SUBSCRIPTIONS_PER_INSTANCE\)/,
      ),
      extensions: { code: 'SUBSCRIPTIONS_FULL' },
    });
    const fullWs = ws.run(ws.client({ apiKey: third_user }).client, news('J'));
    await expect.poll(() => fullWs.done, { timeout: 5_000 }).toBe(true);
    expect(fullWs.results[0].errors[0].extensions).toEqual({ code: 'SUBSCRIPTIONS_FULL' });
    expect(fifth.done).toBe(false);

    await Promise.all(held.map((s) => s.cancel()));
    third.dispose();
    fifth.dispose();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('a subscriber that does not read is ended with SLOW_CONSUMER past SUBSCRIPTION_BUFFER_BYTES, after a gapless prefix of the events; one that reads gets every event', async () => {
    const { subscribe } = await gateway({ SUBSCRIPTION_BUFFER_BYTES: '4096' });
    const [key] = await keys('pro');
    const reader = await subscribe(key!, TRADES('SLOW'));
    const idle = await subscribe(key!, TRADES('SLOW'));
    const got: string[] = [];
    const reading = (async () => {
      while (got.length < 300) got.push((await reader.next(10_000)).data.tradeAdded.sequenceNumber);
    })();
    for (let round = 0; round < 10; round++) {
      await counted.bus.publishAll(
        Array.from({ length: 30 }, (_, i) => [tradeTopic('SLOW'), row('SLOW', round * 30 + i)] as const),
      );
      await expect.poll(() => got.length, { timeout: 10_000 }).toBe((round + 1) * 30);
    }
    await reading;
    expect(got).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));

    const events = await idle.rest();
    expect(events.slice(-2)).toEqual([
      {
        event: 'next',
        data: {
          errors: [
            {
              message: expect.stringMatching(
                /^this subscription left more than 4096 bytes of events unread \(SUBSCRIPTION_BUFFER_BYTES\)/,
              ),
              extensions: { code: 'SLOW_CONSUMER' },
            },
          ],
        },
      },
      { event: 'complete', data: '' },
    ]);
    const delivered = events.slice(0, -2).map((e) => e.data.data.tradeAdded.sequenceNumber);
    expect(delivered.length).toBeLessThan(300);
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, i) => String(i)));
    await reader.cancel();
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('a burst is delivered in turns: a timer set when 8,000 events are published fires before the last one is delivered', async () => {
    const { subscribe } = await gateway({});
    const [key] = await keys('pro');
    const stream = await subscribe(key!, 'subscription { tradeAdded(symbol: "BURST") { sequenceNumber } }');
    const total = 8_000;
    let got = 0;
    let gotWhenTimerFired: number | undefined;
    const reading = (async () => {
      for (; got < total; got++) await stream.next(30_000);
    })();
    await counted.bus.publishAll(
      Array.from({ length: total }, (_, i) => [tradeTopic('BURST'), row('BURST', i)] as const),
    );
    setTimeout(() => (gotWhenTimerFired = got), 0);
    await reading;
    expect(gotWhenTimerFired).toBeDefined();
    expect(gotWhenTimerFired).toBeLessThan(total);
    await stream.cancel();
  });
});
