// Deep pages of trades: with ≥ 10 million trades, the time of the first page and of a page one
// million rows deep (GET /stocks/v3/trades/NVLX, newest first, via its cursor), for limit 10 and
// 5000; and the 5000-row page against the raw driver fetching the same rows with the same keyset
// query and JSON.stringify-ing them in the legacy REST shape. In this process (app.fetch, no socket);
// the variants alternate request by request. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- deep-pages [--scale 334] [--reps 9]
//                               [--pg-url postgresql://…?schema=…] [--keep] [--note TEXT] [--dry-run]
//
// Without --pg-url it seeds a scratch database (`cli seed --scale N`: N × 30,000
// trades and as many quotes; 334 gives 10.02M trades, 2.2M of them NVLX's) and drops it at the end;
// with them it reuses a database seeded before (--note says how it was seeded, in RESULTS.md), and
// --keep leaves the scratch ones in place.
// Depth: 200 pages of 5000 are walked by following next_url; that cursor, opened and sealed again
// with limit=10 as the route seals its own, gives the limit-10 page at the same depth.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parsePostgresUrl } from '../src/config.js';
import { openCursor, sealCursor } from '../src/rest/next-url.js';
import {
  cli,
  databaseKinds,
  inProcessApp,
  JWT_SECRET,
  machineLine,
  markdownTable,
  median,
  record,
  scratchDatabase,
  utcNow,
  type Scratch,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    scale: { type: 'string' },
    reps: { type: 'string' },
    'pg-url': { type: 'string' },
    keep: { type: 'boolean' },
    note: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const KINDS = databaseKinds(args.db);
const SCALE = Number(args.scale ?? 334);
const REPS = Number(args.reps ?? 9);
const SYMBOL = 'NVLX';
const DEPTH = 1_000_000;
const WALK_LIMIT = 5000;
const ROUTE = `Trade:${SYMBOL}`;

/** The raw path: the same keyset statement the service sends, on the driver under Prisma. */
const RAW_SQL = (after: boolean) =>
  `SELECT * FROM "Trade" WHERE "symbol" = $1${after ? ' AND ("sipTimestamp", "sequenceNumber") < ($3, $4)' : ''} ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC LIMIT $2`;

/** The legacy trade keys, 19-digit timestamps as JSON numbers (JSON.stringify cannot write a bigint, so they are unquoted after). */
function rawJson(
  rows: {
    tradeId: string;
    sipTimestamp: bigint | string;
    sequenceNumber: bigint | string;
    price: number;
    size: number;
    exchange: number;
    tape: number;
    conditions: unknown;
  }[],
): string {
  const results = rows.map((t) => ({
    conditions: typeof t.conditions === 'string' ? JSON.parse(t.conditions) : t.conditions,
    exchange: Number(t.exchange),
    id: t.tradeId,
    price: t.price,
    sequence_number: `${t.sequenceNumber}`,
    sip_timestamp: `${t.sipTimestamp}`,
    size: t.size,
    tape: Number(t.tape),
  }));
  return JSON.stringify({ results, status: 'OK' }).replace(/"(sequence_number|sip_timestamp)":"(\d+)"/g, '"$1":$2');
}

type RawFetch = (limit: number, after?: [string, string]) => Promise<string>;

function rawFetcher(url: string): { fetch: RawFetch; close(): Promise<void> } {
  const database = parsePostgresUrl(url);
  const pool = new pg.Pool({ connectionString: database.url, max: 2, options: `-c search_path="${database.schema}"` });
  return {
    fetch: async (limit, after) => {
      const r = after
        ? await pool.query({ name: 'deep', text: RAW_SQL(true), values: [SYMBOL, limit, after[0], after[1]] })
        : await pool.query({ name: 'first', text: RAW_SQL(false), values: [SYMBOL, limit] });
      return rawJson(r.rows);
    },
    close: () => pool.end(),
  };
}

interface Timing {
  kind: string;
  name: string;
  ms: number[];
}
const timings: Timing[] = [];
const notes: string[] = args.note ? [args.note] : [];

for (const kind of KINDS) {
  const given = args['pg-url'];
  let scratch: Scratch | undefined;
  let url = given;
  if (!url) {
    scratch = scratchDatabase(kind, 'deep_pages');
    url = scratch.url;
    console.log(`\n${kind}: seeding --scale ${SCALE}`);
    const t0 = Date.now();
    cli(url, ['seed', '--scale', String(SCALE)]);
    notes.push(`${kind}: \`cli seed --scale ${SCALE}\` took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  try {
    const h = await inProcessApp(url);
    const raw = rawFetcher(url);
    try {
      const trades = Number(await h.db.prisma.trade.count());
      const mine = await h.db.prisma.trade.count({ where: { symbol: SYMBOL } });
      console.log(`\n${kind}: ${trades.toLocaleString('en-US')} trades, ${mine.toLocaleString('en-US')} of ${SYMBOL}`);
      if (mine <= DEPTH + WALK_LIMIT)
        throw new Error(`${SYMBOL} has ${mine} trades; a page ${DEPTH} deep needs more (raise --scale)`);
      notes.push(`${kind}: ${trades.toLocaleString('en-US')} trades, ${mine.toLocaleString('en-US')} of ${SYMBOL}`);

      // walk to 1M rows deep, following next_url as a client does
      let next = `/stocks/v3/trades/${SYMBOL}?limit=${WALK_LIMIT}`;
      const t0 = performance.now();
      for (let page = 0; page < DEPTH / WALK_LIMIT; page++) {
        const body = JSON.parse(await h.get(next)) as { next_url: string; results: unknown[] };
        if (body.results.length !== WALK_LIMIT) throw new Error(`page ${page} had ${body.results.length} rows`);
        next = new URL(body.next_url).pathname + new URL(body.next_url).search;
      }
      const walkS = (performance.now() - t0) / 1000;
      console.log(`  walked ${DEPTH.toLocaleString('en-US')} rows in ${walkS.toFixed(1)} s`);
      notes.push(
        `${kind}: walking the first ${DEPTH.toLocaleString('en-US')} rows (200 pages of 5000 via next_url) took ${walkS.toFixed(1)} s`,
      );

      const token = new URL(next, 'http://x').searchParams.get('cursor')!;
      const state = openCursor(JWT_SECRET, ROUTE, token);
      const deepUrl = (limit: number) =>
        `/stocks/v3/trades/${SYMBOL}?cursor=${sealCursor(JWT_SECRET, { ...state, params: { ...state.params, limit: String(limit) } })}`;
      // the keyset position inside the cursor: [tag, direction, sipTimestamp, sequenceNumber]
      const position = JSON.parse(Buffer.from(state.after, 'base64url').toString()).slice(2) as [string, string];

      const variants: [string, () => Promise<string>][] = [
        ['ours, limit 10, first page', () => h.get(`/stocks/v3/trades/${SYMBOL}?limit=10`)],
        ['ours, limit 10, 1M deep', () => h.get(deepUrl(10))],
        ['ours, limit 5000, first page', () => h.get(`/stocks/v3/trades/${SYMBOL}?limit=5000`)],
        ['ours, limit 5000, 1M deep', () => h.get(deepUrl(5000))],
        ['raw driver + JSON.stringify, 5000, first page', () => raw.fetch(5000)],
        ['raw driver + JSON.stringify, 5000, 1M deep', () => raw.fetch(5000, position)],
      ];
      // the same rows either way: the deep page's first row is the raw deep query's
      const oursDeep = JSON.parse(await h.get(deepUrl(5000))).results;
      const rawDeep = JSON.parse(await raw.fetch(5000, position)).results;
      if (
        oursDeep.length !== 5000 ||
        JSON.stringify(oursDeep[0]) !== JSON.stringify(rawDeep[0]) ||
        JSON.stringify(oursDeep.at(-1)) !== JSON.stringify(rawDeep.at(-1))
      ) {
        throw new Error(
          `ours and raw differ at depth: ${JSON.stringify(oursDeep[0])} vs ${JSON.stringify(rawDeep[0])}`,
        );
      }
      const mineT = variants.map(([name]) => ({ kind, name, ms: [] as number[] }));
      for (const [, run] of variants) await run(); // warm-up
      for (let rep = 0; rep < REPS; rep++) {
        // rotate the order each repetition, so no variant always follows the same one
        for (let j = 0; j < variants.length; j++) {
          const i = (j + rep) % variants.length;
          const t = performance.now();
          await variants[i]![1]();
          mineT[i]!.ms.push(performance.now() - t);
        }
      }
      for (const t of mineT) console.log(`  ${t.name.padEnd(48)} median ${median(t.ms).toFixed(1)} ms`);
      timings.push(...mineT);
    } finally {
      await raw.close();
      await h.close();
    }
  } finally {
    if (scratch && !args.keep) await scratch.drop();
  }
}

const med = (kind: string, name: string) => median(timings.find((t) => t.kind === kind && t.name === name)!.ms);
const rows: (string | number)[][] = [];
const verdicts: string[] = [];
for (const kind of KINDS) {
  for (const limit of [10, 5000]) {
    const first = med(kind, `ours, limit ${limit}, first page`);
    const deep = med(kind, `ours, limit ${limit}, 1M deep`);
    const row: (string | number)[] = [
      kind,
      limit,
      first.toFixed(1),
      deep.toFixed(1),
      `**${(deep / first).toFixed(2)}**`,
    ];
    verdicts.push(
      `deep/first ${kind} limit ${limit}: ${(deep / first).toFixed(2)} (${deep / first <= 1.3 ? 'met' : 'NOT met'})`,
    );
    if (limit === 5000) {
      const rawFirst = med(kind, 'raw driver + JSON.stringify, 5000, first page');
      const rawDeep = med(kind, 'raw driver + JSON.stringify, 5000, 1M deep');
      row.push(
        `${rawFirst.toFixed(1)} / ${rawDeep.toFixed(1)}`,
        `**${(first / rawFirst).toFixed(2)}× / ${(deep / rawDeep).toFixed(2)}×**`,
      );
      verdicts.push(
        `ours/raw ${kind} 5000 rows: ${(first / rawFirst).toFixed(2)}× first, ${(deep / rawDeep).toFixed(2)}× deep (${Math.max(first / rawFirst, deep / rawDeep) <= 1.5 ? 'met' : 'NOT met'})`,
      );
    } else row.push('', '');
    rows.push(row);
  }
}
const section = [
  `## Deep pages of trades: first page vs 1,000,000 rows deep, ${utcNow()} UTC`,
  '',
  await machineLine(KINDS),
  `In-process (\`createApp\` + \`app.fetch\`, no socket), production config, an enterprise key. \`GET /stocks/v3/trades/${SYMBOL}\` newest first; depth reached by following next_url through 200 pages of 5000; the limit-10 deep page uses that cursor sealed again with limit=10 (as the route seals its own). Raw: the same keyset statement on the driver under Prisma (libsql with safe integers / pg, named statement), rows mapped to the legacy REST keys and JSON.stringify-ed. Median of ${REPS} requests per variant, the six variants alternating request by request (the order rotated each round); the rows are in the page cache (the walk read them). ${notes.join('; ')}.`,
  '',
  markdownTable(
    [
      'database',
      'limit',
      'first page ms',
      '1M deep ms',
      'deep / first',
      'raw first / deep ms',
      'ours / raw (first / deep)',
    ],
    rows,
  ),
  '',
  `Targets deep/first ≤ 1.3 and ours ≤ 1.5× raw: ${verdicts.join('; ')}.`,
].join('\n');
record(section, args['dry-run']);
