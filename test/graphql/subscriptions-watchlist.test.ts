// Live watchlists: tradeAdded(symbols:) and quoteAdded(symbols:) are one subscription on every
// symbol of the list, over SSE and WebSocket, on each event bus (in memory, the database's outbox); the per-user cap counts subscriptions and symbols apart.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { outboxEventBus } from '../../src/db/outbox.js';
import { REPLAY_LIMITS } from '../helpers.js';
import { MAX_SYMBOLS } from '../../src/domain/symbols.js';
import { importStream } from '../../src/ingest/import-stream.js';
import { importerFor } from '../../src/ingest/registry.js';
import { memoryEventBus, type EventBus } from '../../src/runtime/events.js';
import { createApiKey } from '../../src/services/account.js';
import { authHarness, freshUser, RELAXED, type AuthHarness } from '../auth/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import {
  fetchOf,
  listening,
  ndjson,
  SEQ,
  SIP,
  sse,
  trade,
  within,
  wsClients,
  type EventStream,
} from './subscription-helpers.js';

// symbols of this run's own: Redis delivers a channel's messages to every subscriber of the server
const RUN = randomBytes(3).toString('hex').toUpperCase();
const [NV, OR, HL, LAST] = ['NV', 'OR', 'HL', 'WL22'].map((s) => `${s}${RUN}`) as [string, string, string, string];
/** A watchlist of 25 symbols: NV… and OR… (given in lower case) among 23 more; HL… is not on it. */
const WATCHLIST = [NV.toLowerCase(), OR.toLowerCase(), ...Array.from({ length: 23 }, (_, i) => `WL${i}${RUN}`)];
const TRADES = 'subscription($s: [String!]) { tradeAdded(symbols: $s) { symbol sequenceNumber price } }';
const QUOTES = 'subscription($s: [String!]) { quoteAdded(symbols: $s) { symbol sequenceNumber bidPrice } }';

const quote = (symbol: string, sequence: bigint) => ({
  symbol,
  ask_exchange: 1,
  ask_price: 2.5,
  ask_size: 3,
  bid_exchange: 1,
  bid_price: 2.25,
  bid_size: 3,
  conditions: [],
  sequence_number: sequence,
  sip_timestamp: SIP + sequence,
  tape: 1,
});

const BUSES: { name: string; tags?: string[]; make(h: AuthHarness): EventBus }[] = [
  { name: 'in memory', make: () => memoryEventBus() },
  { name: "the database's outbox", make: (h) => outboxEventBus(h.db, REPLAY_LIMITS) },
];

const tdb = testDatabases()[0]!;

describe.each(BUSES)('a live watchlist through $name', ({ tags, make }) => {
  let h: AuthHarness;
  let bus: EventBus;
  let app: App;
  let server: Awaited<ReturnType<typeof listening>>;
  let ws: ReturnType<typeof wsClients>;
  let sequence = SEQ;

  beforeAll(async () => {
    if (tags?.includes('redis') && !process.env.TEST_REDIS_URL) return;
    h = await authHarness(tdb);
    bus = make(h);
    app = createApp({ config: h.config, db: h.db, events: bus });
    server = await listening(app);
    ws = wsClients(() => server.url);
  });
  afterAll(async () => {
    await ws?.disposeAll();
    await server?.close();
    await bus?.close();
    await h?.close();
  });

  async function importOf(resource: 'trades' | 'quotes', records: object[]) {
    const result = await importStream(
      h.db,
      await importerFor(resource),
      { stream: Readable.from([ndjson(records)]) },
      { events: bus },
    );
    expect(result.counts.rejected, JSON.stringify(result.rejects)).toBe(0);
  }
  const trades = (...symbols: string[]) => symbols.map((s) => trade(s, ++sequence, SIP + sequence));
  const quotes = (...symbols: string[]) => symbols.map((s) => quote(s, ++sequence));

  it('one subscription on 25 symbols gets the imported trades of two of them, in order, and none of a symbol outside the list; quotes alike over WebSocket', {
    tags,
  }, async () => {
    const stream = await sse(fetchOf(app), 'http://test', TRADES, { 'x-api-key': 'demo-pro' }, { s: WATCHLIST });
    expect(stream.response.status).toBe(200);
    const op = ws.run(ws.client({ apiKey: 'demo-pro' }).client, QUOTES, { s: WATCHLIST });
    try {
      const first = trades(NV, HL, OR, NV);
      await importOf('trades', first);
      const got = [];
      for (let i = 0; i < 3; i++) got.push((await stream.next()).data.tradeAdded);
      expect(got).toEqual(
        [first[0], first[2], first[3]].map((t) => ({
          symbol: t!.symbol,
          sequenceNumber: String(t!.sequence_number),
          price: 412.5,
        })),
      );
      // the next event is the next listed one: HL…'s were never delivered
      const more = trades(HL, LAST);
      await importOf('trades', more);
      expect((await stream.next()).data.tradeAdded).toMatchObject({
        symbol: LAST,
        sequenceNumber: String(more[1]!.sequence_number),
      });

      // the quote subscription listens once its first result can arrive: import until one does
      await within(
        (async () => {
          while (op.results.length === 0) {
            await importOf('quotes', quotes(HL, OR));
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        })(),
        10_000,
        'a live quote',
      );
      expect(op.error).toBeUndefined();
      expect(op.results.every((r) => r.data.quoteAdded.symbol === OR)).toBe(true);
    } finally {
      op.dispose();
      await stream.cancel();
    }
  });
});

describe('the per-user caps of live watchlists', () => {
  let h: AuthHarness;
  let app: App;
  let bus: EventBus;
  const held: EventStream[] = [];
  beforeAll(async () => {
    h = await authHarness(tdb);
    bus = memoryEventBus();
    app = createApp({
      config: testConfig(
        h.config.database,
        {},
        {
          ...RELAXED,
          SUBSCRIPTIONS_PER_CALLER: '2',
          SUBSCRIPTION_SYMBOLS_PER_CALLER: '30',
        },
      ),
      db: h.db,
      events: bus,
    });
  });
  afterAll(async () => {
    await Promise.all(held.map((s) => s.cancel()));
    await bus.close();
    await h.close();
    await tdb.cleanup();
  });

  const subscribe = (key: string, query: string, symbols: readonly string[]) =>
    sse(fetchOf(app), 'http://test', query, { 'x-api-key': key }, { s: symbols });
  const symbolsOf = (n: number, prefix = 'C') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  /** The one error a refused subscription's stream carries, and its HTTP status. */
  const refusal = async (s: EventStream) => ({
    status: s.response.status,
    retryAfter: s.response.headers.get('retry-after'),
    error: (await s.next()).errors[0],
  });

  it('a 25-symbol watchlist counts once against SUBSCRIPTIONS_PER_CALLER; its symbols count against SUBSCRIPTION_SYMBOLS_PER_CALLER apart', async () => {
    const user = await freshUser(h.db, 'pro');
    const [k1, k2] = await Promise.all(['a', 'b'].map(async (n) => (await createApiKey(h.db, user.id, n, 1_000)).key));
    const watchlist = await subscribe(k1!, TRADES, symbolsOf(25));
    expect(watchlist.response.status).toBe(200);
    held.push(watchlist);
    // 25 + 6 symbols is past 30, whichever key of the user asks
    expect(await refusal(await subscribe(k2!, QUOTES, symbolsOf(6, 'Q')))).toMatchObject({
      status: 429,
      retryAfter: '10',
      error: {
        message:
          "a user's live subscriptions may name 30 symbols at once (SUBSCRIPTION_SYMBOLS_PER_CALLER, all its keys and sessions together); the user's subscriptions name 25 already, this one 6: end one or name fewer",
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      },
    });
    const second = await subscribe(k2!, QUOTES, symbolsOf(5, 'Q'));
    expect(second.response.status).toBe(200);
    held.push(second);
    // 2 subscriptions held: a third is refused however few symbols it names
    const third = await refusal(await subscribe(k1!, TRADES, ['NVLX']));
    expect(third).toMatchObject({ status: 429, error: { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } } });
    expect(third.error.message).toMatch(/^a user may hold 2 live subscriptions at once \(SUBSCRIPTIONS_PER_CALLER/);

    // the watchlist ends: its subscription and its 25 symbols are free again
    await held.shift()!.cancel();
    await expect
      .poll(
        async () => {
          const s = await subscribe(k1!, TRADES, symbolsOf(25, 'N'));
          if (s.response.status === 200) held.push(s);
          else await s.cancel();
          return s.response.status;
        },
        { timeout: 5_000 },
      )
      .toBe(200);
  });

  it('refuses a list past the limit, an empty one, and both arguments or neither, naming the rule', async () => {
    const cases: [string, object, RegExp][] = [
      [TRADES, { s: symbolsOf(MAX_SYMBOLS + 1) }, /argument "symbols" must name 1 to 100 symbols; got 101/],
      [QUOTES, { s: [] }, /argument "symbols" must name 1 to 100 symbols; got 0/],
      ['subscription { tradeAdded(symbol: "A", symbols: ["B"]) { price } }', {}, /got both/],
      ['subscription { quoteAdded { bidPrice } }', {}, /exactly one of the arguments "symbol".*got neither/],
    ];
    for (const [query, variables, message] of cases) {
      const s = await sse(fetchOf(app), 'http://test', query, { 'x-api-key': 'demo-pro' }, variables);
      const error = (await s.next()).errors[0];
      expect(error.extensions.code, query).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(message);
    }
  });
});
