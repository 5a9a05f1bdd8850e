// Bulk import of trades: our path (`cli import trades FILE`: NDJSON parsing, validation, batches of
// 20,000 upserted in one transaction each) against the raw driver inserting the same rows its
// fastest way, side by side in one run. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- import [--rows 1000000] [--reps 1] [--events] [--dry-run (print, do not record)]
//
// With --events, ours runs a third time into an empty table publishing each trade to the database's
// table of live events (db/outbox.ts), as `cli import` does: what keeping events for replay costs.
//
// With --reps N each path runs N times, interleaved, and the fastest run counts (other work on
// the machine only ever slows a run down).
//
// Ours: new rows by COPY, one batch in flight while the next is parsed.
// Raw: COPY FROM STDIN of all rows in one transaction (pg + pg-copy-streams).
// The raw path gets the rows ready in memory: they pay no parsing and no validation, and they
// neither upsert nor count. PostgreSQL: BENCH_DATABASE_URL, default
// postgresql://postgres@127.0.0.1:5432/test, in a scratch schema dropped at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { parsePostgresUrl, type DatabaseConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { DEFAULT_BATCH_SIZE, importStream } from '../src/ingest/import-stream.js';
import { importer } from '../src/ingest/resources/trade.js';
import { migrate } from '../src/db/migrate.js';
import { outboxEventBus, replayLimits } from '../src/db/outbox.js';
import { subscriptionConfig } from '../src/domain/serving-config.js';
import { databaseKinds, machineLine, PG_URL, record, utcNow } from './harness.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string' },
    db: { type: 'string' },
    'dry-run': { type: 'boolean' },
    reps: { type: 'string' },
    events: { type: 'boolean' },
  },
});
const ROWS = Number(args.rows ?? 1_000_000);
if (!Number.isInteger(ROWS) || ROWS < 1) throw new Error(`--rows must be a positive integer; got ${args.rows}`);
const REPS = Number(args.reps ?? 1);
if (!Number.isInteger(REPS) || REPS < 1) throw new Error(`--reps must be a positive integer; got ${args.reps}`);
const DATABASES = databaseKinds(args.db);

const SYMBOLS = Array.from({ length: 50 }, (_, i) => `S${String(i).padStart(3, '0')}`);
const CONDITIONS = [[], [], [], [12, 37], [37], [14, 41]];

interface TradeRow {
  symbol: string;
  sequenceNumber: bigint;
  sipTimestamp: bigint;
  tradeId: string;
  price: number;
  size: number;
  exchange: number;
  tape: number;
  conditions: number[];
}

/** A feed as it arrives: symbols interleaved in time, sequence numbers rising per symbol. */
function* trades(n: number): Generator<TradeRow> {
  const start = 1_795_208_399_000_000_000n;
  for (let i = 0; i < n; i++) {
    const s = i % SYMBOLS.length;
    yield {
      symbol: SYMBOLS[s]!,
      sequenceNumber: 1_000_000n + BigInt(Math.floor(i / SYMBOLS.length)),
      sipTimestamp: start + BigInt(i) * 1_234_567n,
      tradeId: String(50_000_000 + i),
      price: Math.round((100 + s + ((i * 7919) % 1000) / 100) * 10_000) / 10_000,
      size: 100 * (1 + (i % 7)),
      exchange: [4, 11, 12, 15, 19][i % 5]!,
      tape: 1 + (s % 3),
      conditions: CONDITIONS[i % CONDITIONS.length]!,
    };
  }
}

const recordOf = (t: TradeRow) =>
  `{"symbol":"${t.symbol}","conditions":${JSON.stringify(t.conditions)},"exchange":${t.exchange},"id":"${t.tradeId}","price":${t.price},"sequence_number":${t.sequenceNumber},"sip_timestamp":${t.sipTimestamp},"size":${t.size},"tape":${t.tape}}`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
const file = path.join(dir, 'trades.ndjson');
{
  const out = fs.openSync(file, 'w');
  let buf: string[] = [];
  for (const t of trades(ROWS)) {
    buf.push(recordOf(t));
    if (buf.length === 10_000) {
      fs.writeSync(out, `${buf.join('\n')}\n`);
      buf = [];
    }
  }
  if (buf.length) fs.writeSync(out, `${buf.join('\n')}\n`);
  fs.closeSync(out);
}
const fileMb = fs.statSync(file).size / 1e6;
console.log(`${ROWS} trades as NDJSON: ${fileMb.toFixed(0)} MB`);

let scratch = 0;
async function freshDatabase(): Promise<DatabaseConfig> {
  scratch++;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', `bench_import_${process.pid}_${scratch}`);
  return parsePostgresUrl(url.toString());
}

async function dropScratch(database: DatabaseConfig) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
  await client.end();
}

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function rawPostgres(database: DatabaseConfig, rows: TradeRow[]): Promise<number> {
  const client = new pg.Client({ connectionString: database.url, options: `-c search_path="${database.schema}"` });
  await client.connect();
  try {
    return await timed(async () => {
      await client.query('BEGIN');
      const copy = client.query(
        copyFrom(
          'COPY "Trade" ("symbol", "sequenceNumber", "sipTimestamp", "tradeId", "price", "size", "exchange", "tape", "conditions") FROM STDIN',
        ),
      );
      const done = new Promise<void>((resolve, reject) => {
        copy.on('finish', resolve);
        copy.on('error', reject);
      });
      for (let i = 0; i < rows.length; i += 5_000) {
        const text = rows
          .slice(i, i + 5_000)
          .map(
            (t) =>
              `${t.symbol}\t${t.sequenceNumber}\t${t.sipTimestamp}\t${t.tradeId}\t${t.price}\t${t.size}\t${t.exchange}\t${t.tape}\t${JSON.stringify(t.conditions)}\n`,
          )
          .join('');
        if (!copy.write(text)) await new Promise((r) => copy.once('drain', r));
      }
      copy.end();
      await done;
      await client.query('COMMIT');
    });
  } finally {
    await client.end();
  }
}

async function ours(
  database: DatabaseConfig,
  publish = false,
): Promise<{ ms: number; counts: Awaited<ReturnType<typeof importStream>>['counts'] }> {
  const db = await createDb(database);
  const events = publish ? outboxEventBus(db, replayLimits(subscriptionConfig({}))) : undefined;
  try {
    const result = await importStream(db, importer, file, events ? { events } : {});
    return { ms: result.ms, counts: result.counts };
  } finally {
    await events?.close();
    await db.close();
  }
}

async function tableHash(database: DatabaseConfig): Promise<string> {
  const db = await createDb(database);
  try {
    const [r] = await db.prisma.$queryRawUnsafe<{ n: bigint; s: bigint; t: number }[]>(
      'SELECT COUNT(*) AS n, SUM("sequenceNumber" % 1000003) AS s, SUM("price" * "size") AS t FROM "Trade"',
    );
    return `${r!.n}/${r!.s}/${Math.round(Number(r!.t))}`;
  } finally {
    await db.close();
  }
}

interface Line {
  database: string;
  path: string;
  ms: number;
}
const results: Line[] = [];
/** Per database, ours/raw of each run (raw and ours run back to back). */
const spread = new Map<string, number[]>();
const rows = [...trades(ROWS)];

for (const kind of DATABASES) {
  console.log(`\n${kind}:`);
  const best = { raw: Infinity, fresh: Infinity, again: Infinity, published: Infinity };
  const shares: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const rawDb = await freshDatabase();
    const oursDb = await freshDatabase();
    try {
      await migrate(rawDb);
      await migrate(oursDb);
      const rawMs = await rawPostgres(rawDb, rows);
      console.log(`  raw   ${(rawMs / 1000).toFixed(1)} s`);

      const first = await ours(oursDb);
      if (first.counts.inserted !== ROWS)
        throw new Error(`our import inserted ${first.counts.inserted} of ${ROWS}: ${JSON.stringify(first.counts)}`);
      console.log(`  ours  ${(first.ms / 1000).toFixed(1)} s`);

      const again = await ours(oursDb);
      if (again.counts.unchanged !== ROWS)
        throw new Error(
          `the rerun left ${again.counts.unchanged} of ${ROWS} unchanged: ${JSON.stringify(again.counts)}`,
        );
      console.log(`  rerun ${(again.ms / 1000).toFixed(1)} s`);

      const [a, b] = [await tableHash(rawDb), await tableHash(oursDb)];
      if (a !== b) throw new Error(`the tables differ: raw ${a}, ours ${b}`);
      if (args.events) {
        const pubDb = await freshDatabase();
        try {
          await migrate(pubDb);
          const published = await ours(pubDb, true);
          if (published.counts.inserted !== ROWS) throw new Error(`publishing, ${JSON.stringify(published.counts)}`);
          console.log(`  ours, publishing ${(published.ms / 1000).toFixed(1)} s`);
          best.published = Math.min(best.published, published.ms);
        } finally {
          await dropScratch(pubDb);
        }
      }
      shares.push(rawMs / first.ms);
      best.raw = Math.min(best.raw, rawMs);
      best.fresh = Math.min(best.fresh, first.ms);
      best.again = Math.min(best.again, again.ms);
    } finally {
      await dropScratch(rawDb);
      await dropScratch(oursDb);
    }
  }
  results.push({ database: kind, path: 'raw: COPY FROM STDIN, one transaction', ms: best.raw });
  results.push({ database: kind, path: 'ours: import into an empty table', ms: best.fresh });
  results.push({ database: kind, path: 'ours: same file again (all unchanged)', ms: best.again });
  if (args.events)
    results.push({
      database: kind,
      path: 'ours: into an empty table, each trade published to the live-event table',
      ms: best.published,
    });
  spread.set(kind, shares);
}
fs.rmSync(dir, { recursive: true, force: true });

const rate = (ms: number) => Math.round(ROWS / (ms / 1000));
const lines: string[] = [];
lines.push(`## Bulk import of trades: ours vs the raw driver, ${utcNow()} UTC`);
lines.push('');
lines.push(
  `${await machineLine(DATABASES)} ${ROWS.toLocaleString('en-US')} trades, 50 symbols interleaved, ${fileMb.toFixed(0)} MB of NDJSON; ${REPS === 1 ? 'one run each' : `best of ${REPS} interleaved runs each`}.`,
);
lines.push(
  `Ours: \`importStream\` from the NDJSON file (what \`npm run cli -- import trades FILE\` runs): exact 19-digit parsing, validation, batches of ${DEFAULT_BATCH_SIZE.toLocaleString('en-US')} each upserted in one transaction with exact inserted/updated/unchanged counts, then the derived metrics of the batch's symbols recomputed. Raw: the same rows, already in memory, through the driver's fastest bulk path with no parsing, no validation, no upsert.`,
);
lines.push('');
lines.push('| database | path | seconds | rows/s | ours / raw |');
lines.push('|---|---|---|---|---|');
for (const kind of DATABASES) {
  const raw = results.find((r) => r.database === kind && r.path.startsWith('raw'))!;
  for (const r of results.filter((x) => x.database === kind)) {
    const ratio = r === raw ? '' : `**${((raw.ms / r.ms) * 100).toFixed(0)}%**`;
    lines.push(
      `| ${kind} | ${r.path} | ${(r.ms / 1000).toFixed(1)} | ${rate(r.ms).toLocaleString('en-US')} | ${ratio} |`,
    );
  }
}
const verdicts = DATABASES.map((kind) => {
  const raw = results.find((r) => r.database === kind && r.path.startsWith('raw'))!;
  const fresh = results.find((r) => r.database === kind && r.path.startsWith('ours: import'))!;
  const share = raw.ms / fresh.ms;
  const runs = spread.get(kind)!;
  const range =
    runs.length > 1
      ? `; run by run ${(Math.min(...runs) * 100).toFixed(0)}–${(Math.max(...runs) * 100).toFixed(0)}%`
      : '';
  return `${kind} ${(share * 100).toFixed(0)}% (${share >= 0.5 ? 'met' : 'NOT met'}${range})`;
});
lines.push('');
lines.push(
  `Target: ours ≥ 50% of the raw rate: ${verdicts.join(', ')}. Tables compared after each run (row count and checksums equal).`,
);
record(lines.join('\n'), args['dry-run']);
