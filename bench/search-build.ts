// Whether the search engine's work over the whole master holds the event loop (issue 27: no request
// holds it): the same master, read once from PostgreSQL, built, then searched (facets over every
// security, metric sorts) in one go (as before: no pause) and in slices (runtime/slices.ts, as a
// server runs them), side by side in one run, each under perf_hooks.monitorEventLoopDelay and a 1 ms
// timer that stands for a request waiting meanwhile (its longest wait between two firings). Then the
// whole refresh a server runs on a first search (read + build, currentEngine). Appends a dated
// section to bench/RESULTS.md.
//
//   npm run bench -- search-build [--securities 50000] [--url <a database seeded with them>] [--dry-run]
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openDatabase } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import type { MasterRow, SearchEngine } from '../src/search/engine.js';
import { parseFacetBy, parseFilterBy, parseSortBy } from '../src/search/syntax.js';
import { SECURITY_SEARCH_FIELDS } from '../src/search/fields.js';
import type { Pause } from '../src/search/order.js';
import { SLICE_MS, slicer } from '../src/runtime/slices.js';
import {
  buildEngine,
  currentEngine,
  MAX_INDEXED_SECURITIES,
  type Master,
  readMaster,
  setSearchCapacity,
} from '../src/services/security-index.js';
import { cli, JWT_SECRET, machineLine, markdownTable, record, scratchDatabase, utcNow } from './harness.js';

const WRITES = 40;

/**
 * What one changed security costs the engine, by kind of change: median and p90 ms over WRITES
 * writes to securities spread over the master, on an engine of its own built from `master`.
 */
async function writeCosts(master: Master): Promise<[string, string, string][]> {
  const engine = await buildEngine(master, { version: 1n, metricsVersion: 1n, epoch: 1n });
  const kinds: [string, (row: MasterRow, w: number) => MasterRow][] = [
    ['name rewritten, no word changed (a trailing space)', (r, w) => ({ ...r, name: `${r.name}${w % 2 ? ' ' : ''}` })],
    ['a word of the name changed', (r, w) => ({ ...r, name: `${r.name} Renamed${w}` })],
    ['symbol changed', (r, w) => ({ ...r, symbol: `ZZ${w}${r.symbol}` })],
  ];
  let version = 1n;
  const out: [string, string, string][] = [];
  for (const [what, change] of kinds) {
    const times: number[] = [];
    for (let w = 0; w < WRITES; w++) {
      const row = master.rows[(w * 7_919) % master.rows.length]!;
      const t0 = performance.now();
      await engine.upsert([change(row, w)], ++version);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    out.push([what, times[WRITES / 2]!.toFixed(2), times[Math.floor(WRITES * 0.9)]!.toFixed(2)]);
  }
  return out;
}

const { values: args } = parseArgs({
  options: { securities: { type: 'string' }, url: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const SECURITIES = Number(args.securities ?? 50_000);

v8.setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? vm.runInNewContext('gc')) as () => void;

interface Loop {
  ms: number;
  maxDelayMs: number;
  p99DelayMs: number;
  /** The longest time between two firings of a 1 ms timer: what a request arriving meanwhile waits at worst. */
  longestWaitMs: number;
  /** Firings of the 1 ms timer during the work. */
  firings: number;
  /** The longest garbage collection pause during the work (no slicing shortens it). */
  longestGcMs: number;
}

/** `work` under the event-loop monitor (1 ms resolution) and a 1 ms timer. */
async function underMonitor<T>(work: () => Promise<T>): Promise<{ loop: Loop; value: T }> {
  gc();
  let longestGc = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longestGc = Math.max(longestGc, e.duration);
  });
  gcs.observe({ entryTypes: ['gc'] });
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let longest = 0;
  let firings = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    firings++;
  }, 1);
  monitor.enable();
  // the monitor's first firing only starts its clock: a delay before it would go unseen
  await new Promise((resolve) => setTimeout(resolve, 10));
  last = performance.now();
  longest = 0;
  firings = 0;
  const t = performance.now();
  const value = await work();
  const ms = performance.now() - t;
  longest = Math.max(longest, performance.now() - last);
  // turns of the loop after the work: the monitor samples the delay of a turn when it ends
  await new Promise((resolve) => setTimeout(resolve, 20));
  monitor.disable();
  clearInterval(timer);
  gcs.disconnect();
  const loop = {
    ms,
    maxDelayMs: monitor.max / 1e6,
    p99DelayMs: monitor.percentile(99) / 1e6,
    longestWaitMs: longest,
    firings,
    longestGcMs: longestGc,
  };
  return { loop, value };
}

const AT = { version: 0n, metricsVersion: 0n, epoch: 0n };
const f = (n: number) => n.toFixed(n < 10 ? 1 : 0);

/** The pause of work done in one go: the engine before slices. */
const oneGo: Pause = () => undefined;

const columns = (loop: Loop) => [
  f(loop.ms),
  f(loop.maxDelayMs),
  f(loop.p99DelayMs),
  f(loop.longestWaitMs),
  String(loop.firings),
  f(loop.longestGcMs),
];

/** The engine's build, and searches that go through every security, each run with a given pause. */
function heavyWork(master: Master): [string, (pause: Pause) => Promise<unknown>][] {
  let engine: SearchEngine | undefined;
  const built = async () => (engine ??= await buildEngine(master, AT, slicer()));
  const field = (names: string) => parseFacetBy(names, SECURITY_SEARCH_FIELDS);
  const FACETS = field('exchange_info.mic_code,classification.gics,ticker_meta.active,financials.market_cap');
  const bySort = (sort: string) => parseSortBy(sort, SECURITY_SEARCH_FIELDS);
  return [
    ['build', (pause) => buildEngine(master, AT, pause)],
    ['q=* with 4 facets', async (pause) => (await (await built()).search({}, 10, pause)).facetsOf(FACETS, pause)],
    [
      'metric sort (P/E asc), page 1',
      async (pause) => (await built()).search({ sort: bySort('metrics.pe_ratio:asc') }, 11, pause),
    ],
    [
      'metric sort (P/E asc), 10,000 deep',
      async (pause) => (await built()).search({ sort: bySort('metrics.pe_ratio:asc') }, 10_011, pause),
    ],
    [
      'market cap > 0, sorted by ROIC, 4 facets',
      async (pause) =>
        (
          await (
            await built()
          ).search(
            {
              filter: parseFilterBy('financials.market_cap:>0', SECURITY_SEARCH_FIELDS),
              sort: bySort('metrics.roic:desc'),
            },
            11,
            pause,
          )
        ).facetsOf(FACETS, pause),
    ],
  ];
}

const scratch = scratchDatabase('postgresql', 'search_build');
try {
  if (!args.url) {
    console.log(`seeding ${SECURITIES} securities`);
    cli(scratch.url, ['seed', '--securities', String(SECURITIES)]);
  }
  const db = await openDatabase(
    loadConfig({
      DATABASE_URL: args.url ?? scratch.url,
      NODE_ENV: 'production',
      JWT_SECRET,
      SAMPLE_DATA: 'none',
      LOG_LEVEL: 'silent',
    }),
  );
  try {
    const master = await readMaster(db);
    if (master.rows.length !== SECURITIES)
      throw new Error(`expected ${SECURITIES} securities, read ${master.rows.length}`);
    const works = heavyWork(master);
    const rows: string[][] = [];
    const ratios: string[] = [];
    for (const [name, run] of works) {
      // one of each way first, unmeasured: both then run warm
      await run(oneGo);
      await run(slicer());
      const before = await underMonitor(() => run(oneGo));
      const after = await underMonitor(() => run(slicer()));
      for (const [way, { loop }] of [
        ['in one go (before)', before],
        ['in slices (after)', after],
      ] as const) {
        rows.push([name, way, ...columns(loop)]);
        console.log(`  ${name}, ${way}: ${f(loop.ms)} ms, loop max delay ${f(loop.maxDelayMs)} ms`);
      }
      ratios.push(
        `${name}: max delay ${f(before.loop.maxDelayMs)} -> ${f(after.loop.maxDelayMs)} ms, wall time x${(after.loop.ms / before.loop.ms).toFixed(2)}`,
      );
    }
    setSearchCapacity(db, MAX_INDEXED_SECURITIES); // drops the engine: the next search reads the master whole
    const refresh = await underMonitor(async () => (await currentEngine(db))!);
    rows.push(['refresh on a first search (read + build)', 'in slices (after)', ...columns(refresh.loop)]);
    const writes = await writeCosts(master);
    record(
      [
        `## Search engine work over the whole master and the event loop, ${utcNow()} UTC`,
        '',
        await machineLine(['postgresql']),
        '',
        `\`npm run bench -- search-build\` (bench/search-build.ts): \`cli seed --securities ${SECURITIES}\` into a scratch PostgreSQL schema, the master read once (readMaster). Each piece of work over the whole master is run in one go (no pause: what the engine did before) and in slices (runtime/slices.ts: ${SLICE_MS} ms of work, then a turn of the event loop, as a server runs it), once warm and once measured, side by side: the engine's build (buildEngine), and the searches that go through every security (the engine's search and facets; without the version statement and the rows' fetch of a request). Loop delay: perf_hooks.monitorEventLoopDelay at 1 ms resolution; longest wait: the longest gap between two firings of a 1 ms timer (what a request arriving meanwhile waits at worst); the longest GC pause, which no slicing shortens. Last, the refresh a server runs on its first search (currentEngine: the read and the build in slices).`,
        '',
        markdownTable(
          [
            'work',
            'way',
            'ms',
            'loop max delay ms',
            'loop p99 delay ms',
            'longest wait ms',
            '1 ms timer firings',
            'longest GC pause ms',
          ],
          rows,
        ),
        '',
        ...ratios.map((r) => `- ${r}`),
        '',
        `A write into the built engine (SearchEngine.upsert, what keeps it current between searches: services/security-index.ts), one security at a time, ${WRITES} writes each, in one go: ${writes.map(([what, median, p90]) => `${what}: median ${median} ms, p90 ${p90} ms`).join('; ')}.`,
      ].join('\n'),
      args['dry-run'],
    );
  } finally {
    await db.close();
  }
} finally {
  if (!args.url) await scratch.drop();
}
