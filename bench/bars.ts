// Price history at the sizes issue 29 names, side by side in one run where a peer exists:
// - a REST page of 5,000 minute bars: the gateway (src/server.ts as production runs it) against a
//   hand-written node:http + pg server reading the same stored minute bars and writing the same
//   JSON (the ceiling), pages/s at 10 connections, alternating rounds;
// - one year of regular-session minute bars (~98,000) through next_url: the first page's p95 and
//   the whole year's time;
// - ten years of day bars with every adjustment (splits and dividends), p95;
// - an SMA(50) over a year of day bars, against the year's bars alone: what the indicator adds;
// - grouped daily bars of 10,000 symbols, p95.
// The data is generated straight into the base-bar tables (MinuteBar, DayBar) and the actions
// (Split, Dividend) of a scratch schema. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- bars [--duration 5] [--rounds 3] [--samples 50] [--dry-run]
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { dayNumber } from '../src/domain/bar-time.js';
import { nyMidnightMs, sessionsOf, tradingDaysBetween } from '../src/domain/market-calendar.js';
import {
  cli,
  createKey,
  loadTest,
  machineLine,
  markdownTable,
  quantile,
  record,
  scratchDatabase,
  startGateway,
  utcNow,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    rounds: { type: 'string' },
    samples: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const DURATION = Number(args.duration ?? 5);
const ROUNDS = Number(args.rounds ?? 3);
const SAMPLES = Number(args.samples ?? 50);
const SYMBOL = 'BARS';
const GROUPED_SYMBOLS = 10_000;
const GROUPED_DAY = '2026-11-20';

const db = scratchDatabase('postgresql', 'bars');
cli(db.url, ['migrate']);
const key = createKey(db.url, 'pro');

/** Rows through COPY-free multi-row inserts of unnest arrays, a table at a time. */
async function load(): Promise<{ minutes: number; days: number }> {
  const u = new URL(db.url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  // one symbol: ten years of day bars, one year of regular-session minute bars
  const days = tradingDaysBetween('2016-11-21', '2026-11-20');
  let price = 50;
  const day: unknown[][] = [[], [], [], [], [], [], [], []];
  for (const d of days) {
    const open = price;
    price = Math.max(1, price * (1 + 0.02 * (Math.random() - 0.5)));
    const row = [
      dayNumber(d),
      open,
      Math.max(open, price) * 1.01,
      Math.min(open, price) * 0.99,
      price,
      1e6,
      (open + price) / 2,
      5000,
    ];
    row.forEach((v, i) => day[i]!.push(v));
  }
  await client.query(
    `INSERT INTO "DayBar" ("symbol", "extended", "day", "open", "high", "low", "close", "volume", "vwap", "trades")
     SELECT $1, false, * FROM unnest($2::int[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::int[])`,
    [SYMBOL, ...day],
  );
  const minute: unknown[][] = [[], [], [], [], [], [], [], [], [], [], []];
  for (const d of days.filter((x) => x >= '2025-11-21')) {
    const s = sessionsOf(d)!;
    for (let ms = s.regular.start; ms < s.regular.end; ms += 60_000) {
      const m = ms / 60_000;
      const row = [
        m,
        dayNumber(d),
        (ms - nyMidnightMs(d)) / 60_000,
        1,
        price,
        price * 1.001,
        price * 0.999,
        price,
        1000,
        price,
        10,
      ];
      row.forEach((v, i) => minute[i]!.push(v));
      price = Math.max(1, price * (1 + 0.001 * (Math.random() - 0.5)));
    }
  }
  await client.query(
    `INSERT INTO "MinuteBar" ("symbol", "minute", "day", "local", "session", "open", "high", "low", "close", "volume", "vwap", "trades")
     SELECT $1, * FROM unnest($2::int[], $3::int[], $4::smallint[], $5::smallint[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[], $12::int[])`,
    [SYMBOL, ...minute],
  );
  // splits and quarterly dividends across the ten years
  for (const [i, d] of days.entries()) {
    if (i % 63 === 30)
      await client.query(
        `INSERT INTO "Dividend" ("id", "ticker", "cashAmount", "exDividendDate", "frequency", "dividendType") VALUES ($1, $2, 0.2, $3, 4, 'CD')`,
        [`D${i}`, SYMBOL, d],
      );
    if (i % 630 === 300)
      await client.query(
        `INSERT INTO "Split" ("id", "ticker", "executionDate", "splitFrom", "splitTo") VALUES ($1, $2, $3, 1, 2)`,
        [`S${i}`, SYMBOL, d],
      );
  }
  // grouped: 10,000 symbols' bars of one day
  await client.query(
    `INSERT INTO "DayBar" ("symbol", "extended", "day", "open", "high", "low", "close", "volume", "vwap", "trades")
     SELECT 'G' || i, false, $1, 10 + i % 90, 11 + i % 90, 9 + i % 90, 10.5 + i % 90, 1e5, 10 + i % 90, 100
     FROM generate_series(1, $2) i`,
    [dayNumber(GROUPED_DAY), GROUPED_SYMBOLS],
  );
  await client.query('ANALYZE "DayBar"; ANALYZE "MinuteBar"');
  await client.end();
  return { minutes: minute[0]!.length, days: days.length };
}

/** The ceiling: GET /bars?from=&limit= answers the aggregates route's JSON for 1-minute bars. */
function ceiling(port: number) {
  const u = new URL(db.url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  const pool = new pg.Pool({ connectionString: u.toString(), max: 10, options: `-c search_path="${schema}"` });
  const server = createServer(async (req, res) => {
    const u = new URL(req.url!, 'http://x');
    const q = u.searchParams;
    const limit = Number(q.get('limit'));
    // /bars: minute bars from `from` (epoch ms); /days: the regular-session day bars, unadjusted, each
    // at 05:00 UTC (the cost of the answer, not its exact values: a floor for the ten-year latency)
    const { rows } =
      u.pathname === '/days'
        ? await pool.query(
            `SELECT "day" * 1440 + 300 AS "minute", "open", "high", "low", "close", "volume", "vwap", "trades" FROM "DayBar"
             WHERE "symbol" = $1 AND "extended" = false ORDER BY "day" LIMIT $2`,
            [SYMBOL, limit],
          )
        : await pool.query(
            `SELECT "minute", "open", "high", "low", "close", "volume", "vwap", "trades" FROM "MinuteBar"
             WHERE "symbol" = $1 AND "minute" >= $2 ORDER BY "minute" LIMIT $3`,
            [SYMBOL, Math.ceil(Number(q.get('from')) / 60_000), limit],
          );
    const results = rows.map((r) => ({
      o: r.open,
      h: r.high,
      l: r.low,
      c: r.close,
      v: r.volume,
      vw: r.vwap,
      t: r.minute * 60_000,
      n: r.trades,
    }));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(
      JSON.stringify({
        ticker: SYMBOL,
        adjusted: true,
        queryCount: rows.length,
        resultsCount: rows.length,
        status: 'OK',
        results,
      }),
    );
  });
  return new Promise<{ close(): Promise<void> }>((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ close: () => new Promise<void>((r) => server.close(() => pool.end().then(() => r()))) }),
    ),
  );
}

async function timed(url: string): Promise<{ ms: number; body: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'x-api-key': key } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms: performance.now() - t0, body };
}

async function p95(url: string): Promise<{ p50: number; p95: number }> {
  await timed(url);
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i++) ms.push((await timed(url)).ms);
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
}

const loaded = await load();
console.log(
  `loaded ${loaded.minutes} minute bars and ${loaded.days} day bars of ${SYMBOL}, and ${GROUPED_SYMBOLS} symbols' bars of ${GROUPED_DAY}`,
);
const gateway = await startGateway(db.url, 4931);
const peer = await ceiling(4932);
const yearFrom = nyMidnightMs('2025-11-21');
try {
  // the two answer the same bars
  const page = `${gateway.base}/stocks/v2/aggs/ticker/${SYMBOL}/range/1/minute/${yearFrom}/2026-11-20?limit=5000&session=regular&adjustment=raw`;
  const ours = (await timed(page)).body;
  const theirs = await (await fetch(`http://127.0.0.1:4932/bars?from=${yearFrom}&limit=5000`)).json();
  // the same bars; the volume-weighted price to 1e-12 (the gateway's is a weighted sum over the bucket)
  const same = (a: any, b: any) =>
    a.t === b.t &&
    a.o === b.o &&
    a.h === b.h &&
    a.l === b.l &&
    a.c === b.c &&
    a.v === b.v &&
    a.n === b.n &&
    Math.abs(a.vw - b.vw) <= 1e-12 * Math.abs(b.vw);
  if (
    ours.results.length !== theirs.results.length ||
    !ours.results.every((b: unknown, i: number) => same(b, theirs.results[i]))
  )
    throw new Error(
      `the gateway and the ceiling answer different bars: ${JSON.stringify(ours.results[0])} vs ${JSON.stringify(theirs.results[0])} (${ours.results.length} vs ${theirs.results.length})`,
    );
  const rounds: { ours: number[]; theirs: number[] } = { ours: [], theirs: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const a = await loadTest({ url: page, connections: 10, duration: DURATION, headers: { 'x-api-key': key } });
    const b = await loadTest({
      url: `http://127.0.0.1:4932/bars?from=${yearFrom}&limit=5000`,
      connections: 10,
      duration: DURATION,
    });
    if (a.non2xx || b.non2xx) throw new Error(`non-2xx answers: ours ${a.non2xx}, ceiling ${b.non2xx}`);
    rounds.ours.push(a.total / a.seconds);
    rounds.theirs.push(b.total / b.seconds);
    console.log(
      `round ${r + 1}: gateway ${rounds.ours.at(-1)!.toFixed(0)} pages/s, ceiling ${rounds.theirs.at(-1)!.toFixed(0)} pages/s`,
    );
  }
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const ratio = sum(rounds.ours) / sum(rounds.theirs);

  // the same client reading the ceiling's answers: the floor of each latency on this machine
  const firstPage = await p95(page);
  const firstPageFloor = await p95(`http://127.0.0.1:4932/bars?from=${yearFrom}&limit=5000`);
  const t0 = performance.now();
  let url: string | undefined =
    `${gateway.base}/stocks/v2/aggs/ticker/${SYMBOL}/range/1/minute/${yearFrom}/2026-11-20?limit=50000&session=regular&adjustment=raw`;
  let bars = 0;
  let pages = 0;
  while (url) {
    const { body } = await timed(url);
    bars += body.resultsCount;
    pages++;
    url = body.next_url;
  }
  const wholeYear = performance.now() - t0;
  const tenYears = await p95(
    `${gateway.base}/stocks/v2/aggs/ticker/${SYMBOL}/range/1/day/2016-11-21/2026-11-20?adjustment=all`,
  );
  const tenYearsFloor = await p95('http://127.0.0.1:4932/days?limit=5000');
  const yearDays = await p95(`${gateway.base}/stocks/v2/aggs/ticker/${SYMBOL}/range/1/day/2025-11-21/2026-11-20`);
  const sma = await p95(
    `${gateway.base}/stocks/v1/indicators/sma/${SYMBOL}?timespan=day&window=50&timestamp.gte=2025-11-21&limit=300&order=asc`,
  );
  const grouped = await p95(`${gateway.base}/stocks/v2/aggs/grouped/locale/us/market/stocks/${GROUPED_DAY}`);
  const f = (x: number) => x.toFixed(1);
  const table = markdownTable(
    ['measure', 'result', 'target', 'met'],
    [
      [
        '5,000 minute bars a page, 10 connections: gateway ÷ ceiling pages/s',
        `${ratio.toFixed(2)}× (${sum(rounds.ours).toFixed(0)} vs ${sum(rounds.theirs).toFixed(0)} over ${ROUNDS} rounds)`,
        '≥ 0.7×',
        ratio >= 0.7 ? 'yes' : 'NO',
      ],
      [
        'a year of regular-session minute bars: first page (5,000) p50 / p95 ms',
        `${f(firstPage.p50)} / ${f(firstPage.p95)} (ceiling ${f(firstPageFloor.p50)} / ${f(firstPageFloor.p95)})`,
        'p95 ≤ 50',
        firstPage.p95 <= 50 ? 'yes' : 'NO',
      ],
      [
        `the whole year through next_url (${bars} bars, ${pages} pages) ms`,
        f(wholeYear),
        '≤ 1,000',
        wholeYear <= 1000 ? 'yes' : 'NO',
      ],
      [
        'ten years of day bars, splits and dividends, p50 / p95 ms',
        `${f(tenYears.p50)} / ${f(tenYears.p95)} (ceiling, unadjusted: ${f(tenYearsFloor.p50)} / ${f(tenYearsFloor.p95)})`,
        'p95 ≤ 20',
        tenYears.p95 <= 20 ? 'yes' : 'NO',
      ],
      [
        "SMA(50) over a year of day bars vs the year's bars alone, p50 ms",
        `${f(sma.p50)} vs ${f(yearDays.p50)} (+${f(sma.p50 - yearDays.p50)})`,
        '+ ≤ 10',
        sma.p50 - yearDays.p50 <= 10 ? 'yes' : 'NO',
      ],
      [
        `grouped daily of ${GROUPED_SYMBOLS} symbols p50 / p95 ms`,
        `${f(grouped.p50)} / ${f(grouped.p95)}`,
        'p95 ≤ 100',
        grouped.p95 <= 100 ? 'yes' : 'NO',
      ],
    ],
  );
  const section = `## Price history (issue 29), ${utcNow()} UTC\n\n${await machineLine(['postgresql'])}\n${SAMPLES} sequential requests per latency (after one warm-up), the gateway as production runs it (src/server.ts), a pro key; the ceiling a node:http + pg server of ${'`bench/bars.ts`'} answering the same bars as the same JSON.\n\n${table}\n`;
  record(section, args['dry-run']);
} finally {
  await peer.close();
  await gateway.stop();
  await db.drop();
}
