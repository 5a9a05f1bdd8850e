// Snapshots at the size issue 30 names, side by side in one run with a peer:
// - every symbol's snapshot (10,000 symbols) over REST: the gateway (src/server.ts as production
//   runs it) against a hand-written node:http + pg server reading the same Snapshot rows and
//   writing the same JSON (the ceiling), p50 / p95 of sequential requests;
// - the gainers, the same way;
// - trades imported through writeTrades with the snapshot upkeep and without it (the bars kept in
//   both), rows/s, alternating rounds.
// The ticks and bars are generated straight into the tables of a scratch schema and the snapshots
// made from them by the writers' own statement (services/snapshot.ts refreshStatement). Appends a
// dated section to bench/RESULTS.md.
//
//   npm run bench -- snapshots [--samples 50] [--rounds 3] [--dry-run]
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { dayNumber } from '../src/domain/bar-time.js';
import { nyMidnightMs } from '../src/domain/market-calendar.js';
import { createDb } from '../src/db/client.js';
import { parsePostgresUrl } from '../src/config.js';
import { refreshBars } from '../src/services/bar-write.js';
import { ALL_SYMBOLS, MOVERS, refreshStatement } from '../src/services/snapshot.js';
import { writeTicks } from '../src/services/tick.js';
import { writeTrades, type Trade } from '../src/services/trade.js';
import {
  cli,
  createKey,
  machineLine,
  markdownTable,
  quantile,
  record,
  scratchDatabase,
  startGateway,
  utcNow,
} from './harness.js';

const { values: args } = parseArgs({
  options: { samples: { type: 'string' }, rounds: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const SAMPLES = Number(args.samples ?? 50);
const ROUNDS = Number(args.rounds ?? 5);
/** How long making every symbol's snapshot took (the seed's and the migration's statement). */
let refreshAllMs = 0;
const SYMBOLS = 10_000;
const TODAY = '2026-11-20';
const PREVIOUS = '2026-11-19';

const db = scratchDatabase('postgresql', 'snapshots');
cli(db.url, ['migrate']);
const key = createKey(db.url, 'pro');

function client(): { pool: pg.Pool } {
  const u = new URL(db.url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  return { pool: new pg.Pool({ connectionString: u.toString(), max: 10, options: `-c search_path="${schema}"` }) };
}

/** Each symbol: yesterday's regular bar, today's bars and one minute, a trade and a quote; then their snapshots. */
async function load(pool: pg.Pool): Promise<void> {
  const today = dayNumber(TODAY);
  const minute = nyMidnightMs(TODAY) / 60_000 + 15 * 60; // 15:00 New York
  const ns = `(${minute}::bigint * 60000000000 + i * 1000)`;
  const price = '(10 + (i * 7919) % 9000 / 100.0)';
  await pool.query(
    `INSERT INTO "DayBar" ("symbol", "extended", "day", "open", "high", "low", "close", "volume", "vwap", "trades")
     SELECT 'S' || i, false, $1::int, 10, 11, 9, 10 + (i % 50) / 10.0, 1e6, 10, 100 FROM generate_series(1, $3::int) i
     UNION ALL SELECT 'S' || i, e, $2::int, 10, 11, 9, ${price}, 5000 + i * 3, 10, 100
       FROM generate_series(1, $3::int) i CROSS JOIN (VALUES (false), (true)) x(e)`,
    [dayNumber(PREVIOUS), today, SYMBOLS],
  );
  await pool.query(
    `INSERT INTO "MinuteBar" ("symbol", "minute", "day", "local", "session", "open", "high", "low", "close", "volume", "vwap", "trades")
     SELECT 'S' || i, $1, $2, 900, 1, 10, 11, 9, ${price}, 500, 10, 5 FROM generate_series(1, $3) i`,
    [minute, today, SYMBOLS],
  );
  await pool.query(
    `INSERT INTO "Trade" ("symbol", "sequenceNumber", "sipTimestamp", "tradeId", "price", "size", "exchange", "tape", "conditions")
     SELECT 'S' || i, 1, ${ns}, 'T' || i, ${price}, 100, 4, 3, '[]'::jsonb FROM generate_series(1, $1) i`,
    [SYMBOLS],
  );
  await pool.query(
    `INSERT INTO "Quote" ("symbol", "sequenceNumber", "sipTimestamp", "askExchange", "askPrice", "askSize", "bidExchange", "bidPrice", "bidSize", "tape", "conditions")
     SELECT 'S' || i, 2, ${ns}, 11, ${price} + 0.01, 3, 12, ${price}, 2, 3, '[1]'::jsonb FROM generate_series(1, $1) i`,
    [SYMBOLS],
  );
  // statistics first, as the seed does: with none the planner reads each symbol's rows by scans
  await pool.query('ANALYZE "DayBar"; ANALYZE "MinuteBar"; ANALYZE "Trade"; ANALYZE "Quote"');
  const t0 = performance.now();
  await pool.query(refreshStatement(ALL_SYMBOLS), [MOVERS.minVolume]);
  refreshAllMs = performance.now() - t0;
  await pool.query('ANALYZE "Snapshot"');
}

const bar = (b: any) => ({ o: b.o, h: b.h, l: b.l, c: b.c, v: b.v, vw: b.vw });

/** The ceiling: /all and /gainers read the Snapshot rows and write Massive's JSON. */
function ceiling(pool: pg.Pool, port: number) {
  const server = createServer(async (req, res) => {
    const gainers = req.url === '/gainers';
    const { rows } = await pool.query(
      gainers
        ? `SELECT * FROM "Snapshot" WHERE "moverPerc" > 0 ORDER BY "moverPerc" DESC, "symbol" DESC LIMIT 20`
        : 'SELECT * FROM "Snapshot" ORDER BY "symbol" LIMIT 20000',
    );
    const tickers = rows.map((r) => ({
      ticker: r.symbol,
      todaysChange: r.todaysChange,
      todaysChangePerc: r.todaysChangePerc,
      updated: Number(r.updated),
      day: bar(r.dayBar),
      min: { av: r.dayBar.v, dav: String(r.dayBar.v), t: r.minuteBar.t, n: r.minuteBar.n, ...bar(r.minuteBar) },
      prevDay: bar(r.prevDayBar),
      lastTrade: {
        c: r.tradeConditions,
        i: r.tradeId,
        p: r.tradePrice,
        s: r.tradeSize,
        ds: String(r.tradeSize),
        t: Number(r.tradeAt),
        x: r.tradeExchange,
      },
      lastQuote: { P: r.askPrice, S: r.askSize, p: r.bidPrice, s: r.bidSize, t: Number(r.quoteAt) },
    }));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(gainers ? { status: 'OK', tickers } : { status: 'OK', count: tickers.length, tickers }));
  });
  return new Promise<{ close(): Promise<void> }>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve({ close: () => new Promise<void>((r) => server.close(() => r())) })),
  );
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; body: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms: performance.now() - t0, body };
}

/** p50 and p95 of `ours` and `theirs`, sampled alternately so both see the same machine. */
async function sideBySide(ours: string, theirs: string) {
  const a: number[] = [];
  const b: number[] = [];
  await timed(ours, { 'x-api-key': key });
  await timed(theirs);
  for (let i = 0; i < SAMPLES; i++) {
    a.push((await timed(ours, { 'x-api-key': key })).ms);
    b.push((await timed(theirs)).ms);
  }
  return { ours: [quantile(a, 0.5), quantile(a, 0.95)], theirs: [quantile(b, 0.5), quantile(b, 0.95)] };
}

/** Trades of 200 symbols, 50 a symbol, a minute apart, new each call. */
let batchNo = 0;
function tradeBatch(): Trade[] {
  const start = BigInt(nyMidnightMs(TODAY) + 10 * 3_600_000) * 1_000_000n;
  const out: Trade[] = [];
  batchNo++;
  for (let s = 0; s < 200; s++)
    for (let j = 0; j < 50; j++)
      out.push({
        symbol: `S${s + 1}`,
        sequenceNumber: BigInt(batchNo * 1_000_000 + s * 100 + j),
        sipTimestamp: start + BigInt(batchNo * 50 + j) * 1_000_000_000n,
        tradeId: `B${batchNo}-${j}`,
        price: 10 + j / 100,
        size: 100,
        exchange: 4,
        tape: 3,
        conditions: [],
      });
  return out;
}

const { pool } = client();
await load(pool);
console.log(`loaded ${SYMBOLS} symbols' bars, ticks and snapshots`);
const gateway = await startGateway(db.url, 4941);
const peer = await ceiling(pool, 4942);
try {
  const all = `${gateway.base}/stocks/v2/snapshot/locale/us/markets/stocks/tickers`;
  const gainers = `${gateway.base}/stocks/v2/snapshot/locale/us/markets/stocks/gainers`;
  const ours = (await timed(all, { 'x-api-key': key })).body;
  const theirs = (await timed('http://127.0.0.1:4942/all')).body;
  if (ours.count !== SYMBOLS || theirs.count !== SYMBOLS)
    throw new Error(`all snapshots: ${ours.count} answered, ${theirs.count} by the ceiling, ${SYMBOLS} stored`);
  const g = (await timed(gainers, { 'x-api-key': key })).body.tickers.map((t: any) => t.ticker);
  const gc = (await timed('http://127.0.0.1:4942/gainers')).body.tickers.map((t: any) => t.ticker);
  if (JSON.stringify(g) !== JSON.stringify(gc)) throw new Error(`gainers differ: ${g} vs ${gc}`);
  const allTimes = await sideBySide(all, 'http://127.0.0.1:4942/all');
  const moverTimes = await sideBySide(gainers, 'http://127.0.0.1:4942/gainers');

  // import with and without the upkeep: the same writer, the hook with or without refreshSnapshots
  const dbc = await createDb(parsePostgresUrl(db.url));
  const rates = { with: [] as number[], without: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of ['with', 'without'] as const) {
      const rows = tradeBatch();
      const t0 = performance.now();
      if (kind === 'with') await writeTrades(dbc, rows);
      else
        await writeTicks(dbc, 'Trade', rows, (c, change) =>
          refreshBars(c, { inserted: change.inserted, recompute: [] }),
        );
      rates[kind].push(rows.length / ((performance.now() - t0) / 1000));
    }
  }
  await dbc.close();
  const f = (x: number) => x.toFixed(1);
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const table = markdownTable(
    ['measure', 'gateway', 'ceiling', 'target', 'met'],
    [
      [
        `every symbol's snapshot (${SYMBOLS}) p50 / p95 ms`,
        `${f(allTimes.ours[0]!)} / ${f(allTimes.ours[1]!)}`,
        `${f(allTimes.theirs[0]!)} / ${f(allTimes.theirs[1]!)}`,
        'p95 ≤ 50',
        allTimes.ours[1]! <= 50 ? 'yes' : 'NO',
      ],
      [
        'gainers p50 / p95 ms',
        `${f(moverTimes.ours[0]!)} / ${f(moverTimes.ours[1]!)}`,
        `${f(moverTimes.theirs[0]!)} / ${f(moverTimes.theirs[1]!)}`,
        'p95 ≤ 10',
        moverTimes.ours[1]! <= 10 ? 'yes' : 'NO',
      ],
      [`every symbol's snapshot made by one statement (the seed's, the migration's) ms`, f(refreshAllMs), '', '', ''],
      [
        `import of 10,000 trades of 200 symbols (${ROUNDS} rounds each), rows/s: with the snapshot upkeep vs without`,
        `${(sum(rates.with) / ROUNDS).toFixed(0)}`,
        `${(sum(rates.without) / ROUNDS).toFixed(0)} (without)`,
        '',
        '',
      ],
    ],
  );
  const section = `## Snapshots and movers (issue 30), ${utcNow()} UTC\n\n${await machineLine(['postgresql'])}\n${SAMPLES} sequential requests per latency (after one warm-up), gateway and ceiling alternating, the gateway as production runs it (src/server.ts), a pro key; the ceiling a node:http + pg server of ${'`bench/snapshots.ts`'} reading the same Snapshot rows and writing the same JSON. The import row's two columns are the gateway's writer with and without the snapshot upkeep (bars kept in both).\n\n${table}\n`;
  record(section, args['dry-run']);
} finally {
  await peer.close();
  await pool.end();
  await gateway.stop();
  await db.drop();
}
