// Resuming a subscription far behind: a client of tradeAdded(symbols:, after:) over SSE reads N
// replayed events (db/outbox-replay.ts, a page of REPLAY_PAGE_ROWS at a time, each executed and
// serialized as GraphQL), side by side with a bare reader of the same rows through pg (the same
// paged statement on the (topic, id) index, each payload decoded): events/s of each, and their ratio.
// Also how fast a publisher appends events (the lock and the insert, db/outbox-store.ts).
//
//   npm run bench -- replay [--events 50000] [--repeat 3] [--dry-run]
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { createEventBus, openDatabase } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { REPLAY_PAGE_ROWS } from '../src/domain/limits.js';
import { decodeEvent, tradeTopic } from '../src/runtime/events.js';
import { createApiKey, createUser } from '../src/services/account.js';
import { JWT_SECRET, machineLine, markdownTable, median, record, scratchDatabase, utcNow } from './harness.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string' }, repeat: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const N = Number(args.events ?? 50_000);
const REPEAT = Number(args.repeat ?? 3);
const SYMBOLS = ['NVLX', 'ORBT'];
const QUERY = `subscription($after: BigInt) { tradeAdded(symbols: ${JSON.stringify(SYMBOLS)}, after: $after) { position replay symbol sequenceNumber sipTimestamp price size exchange conditions } }`;
const REPLAY_SQL = `SELECT id, topic, payload FROM "LiveEvent" WHERE topic = ANY($1::text[]) AND id > $2 ORDER BY id LIMIT $3`;

const scratch = scratchDatabase('postgresql', 'replay');
try {
  const config = loadConfig({
    DATABASE_URL: scratch.url,
    NODE_ENV: 'production',
    JWT_SECRET,
    PUBLIC_URL: 'http://bench',
    SAMPLE_DATA: 'none',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENTERPRISE: '100000000',
    REPLAY_MAX_ROWS: String(N * 2),
  });
  const db = await openDatabase(config);
  const bus = createEventBus(config, db);
  const app = createApp({ config, db, events: bus });
  const user = await createUser(db, {
    email: `bench-replay-${process.pid}@example.com`,
    password: 'bench password, long enough',
    tier: 'enterprise',
  });
  const { key } = await createApiKey(db, user.id, 'bench', config.auth.apiKeysPerUser);
  try {
    const pool = db.driver.pool;
    const start = Number((await pool.query('SELECT coalesce(max(id), 0) AS m FROM "LiveEvent"')).rows[0].m);
    const t0 = performance.now();
    for (let b = 0; b < N; b += 1000) {
      await bus.publishAll(
        Array.from({ length: Math.min(1000, N - b) }, (_, i) => {
          const n = b + i;
          const symbol = SYMBOLS[n % 2]!;
          const row = {
            symbol,
            sequenceNumber: BigInt(n),
            sipTimestamp: 1_767_312_000_000_000_000n + BigInt(n),
            tradeId: `t${n}`,
            price: 10 + (n % 100) / 100,
            size: 100,
            exchange: 4,
            tape: 3,
            conditions: [12, 37],
          };
          return [tradeTopic(symbol), row] as const;
        }),
      );
    }
    const appendPerS = N / ((performance.now() - t0) / 1000);

    const overSse = async (): Promise<number> => {
      const t = performance.now();
      const res = await app.fetch('http://bench/graphql', {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: QUERY, variables: { after: String(start) } }),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let got = 0;
      while (got < N) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended after ${got} events`);
        text += decoder.decode(value, { stream: true });
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          if (text.startsWith('id: ')) got++;
          else if (text.includes('"errors"')) throw new Error(text.slice(0, 300));
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
        }
      }
      await reader.cancel();
      return N / ((performance.now() - t) / 1000);
    };
    const bare = async (): Promise<number> => {
      const t = performance.now();
      const topics = SYMBOLS.map(tradeTopic);
      let after = start;
      let got = 0;
      for (;;) {
        const { rows } = await pool.query(REPLAY_SQL, [topics, after, REPLAY_PAGE_ROWS]);
        for (const r of rows) decodeEvent(r.payload);
        got += rows.length;
        if (rows.length < REPLAY_PAGE_ROWS) break;
        after = Number(rows.at(-1).id);
      }
      if (got !== N) throw new Error(`the bare reader read ${got} rows, not ${N}`);
      return N / ((performance.now() - t) / 1000);
    };
    await overSse();
    await bare();
    const sse: number[] = [];
    const pg: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      sse.push(await overSse());
      pg.push(await bare());
    }
    const [s, p] = [median(sse), median(pg)];
    const f = (x: number) => Math.round(x).toLocaleString('en-US');
    record(
      [
        `## Replay: a subscription resumed ${N.toLocaleString('en-US')} events behind (issue 30), ${utcNow()} UTC`,
        '',
        await machineLine(['postgresql']),
        '',
        markdownTable(
          ['reader', `events/s (median of ${REPEAT})`, 'vs the bare reader'],
          [
            [
              'tradeAdded(symbols:, after:) over SSE, in process (GraphQL executed and serialized per event)',
              f(s),
              `${(s / p).toFixed(2)}×`,
            ],
            [`bare pg: the same paged statement (${REPLAY_PAGE_ROWS} rows), payloads decoded`, f(p), '1.00×'],
          ],
        ),
        '',
        `Appending the ${N.toLocaleString('en-US')} events (one publisher, 1000 a transaction, under the lock): ${f(appendPerS)} events/s.`,
      ].join('\n'),
      args['dry-run'],
    );
  } finally {
    await bus.close();
    await db.close();
  }
} finally {
  await scratch.drop();
}
