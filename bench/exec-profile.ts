// What each resolved field costs: CPU ms and wall ms per request of a few pages, measured in this
// process, (a) through the app (createApp + app.fetch, production config, an enterprise key: the
// HTTP path around execution included) and (b) through graphql's `execute` on the schema with a
// context from createContext (execution and JSON.stringify of the result only). Pages: a list of 50
// securities × (5 ratings + 5 news), the same list with 10 + 10 (every rating and news item of each),
// the company page (operations/company-page.graphql) and `{ __typename }`. Prints; appends nothing
// to RESULTS.md.
//
//   npm run bench -- exec-profile [--reps 20] [--rounds 7]
//                                 [--pages list50,list50x10,company,typename] [--via app,execute]
//                                 [--alloc] [--cpu-prof /tmp/prof] [--prof-page list50]
//
// The measuring process runs with `npm start`'s heap flags (it re-executes itself with them), so
// garbage collection weighs as in production. Each round runs `--reps` requests of each page in
// turn; the table gives the median over rounds. `--alloc` adds the bytes allocated per request
// (V8's sampling heap profiler, counting what the collector freed too; it prints each page's
// largest allocation sites, by function and file): unlike CPU time, other
// work on the machine does not move it, so it shows changes of a few percent that CPU hides.
// `--cpu-prof <dir>` writes one .cpuprofile per
// database and way in of `--prof-page` (open it in Chrome DevTools) and prints its top functions.
// Data: `cli seed --securities 50`: the sample's 50 covered companies (src/sample/catalog.ts), so
// every listed security has ratings (4 to 8) and news (3 to 5), checked below. With more securities
// most listings have none (bench/n-plus-one.ts's "with data"), and a list would measure empty lists.
// The sample has no 100 securities with ratings and news, so the larger page asks for 10 + 10.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execute, parse, validate, type DocumentNode } from 'graphql';
import { CallerCache } from '../src/auth/caller.js';
import { createRateLimits } from '../src/auth/rate-limit.js';
import { ROOT } from '../src/config.js';
import { createContext } from '../src/context.js';
import { Deadline } from '../src/runtime/deadline.js';
import { LiveHub } from '../src/graphql/live.js';
import { Registry } from 'prom-client';
import { createFallbacks } from '../src/observability/fallbacks.js';
import { createLogger } from '../src/observability/log.js';
import { OcrPool } from '../src/ocr/pool.js';
import { memoryEventBus } from '../src/runtime/events.js';
import { InFlightBudget } from '../src/runtime/in-flight.js';
import { schema } from '../src/schema/index.js';
import {
  cli,
  databaseKinds,
  inProcessApp,
  markdownTable,
  median,
  scratchDatabase,
  startFlags,
  type InProcess,
} from './harness.js';

// production's heap flags (package.json's start script), as GC weighs on a list page, and its
// NODE_ENV (the Dockerfile's), which graphql-js reads once at import to drop its checks
const flags = startFlags();
if (!process.env.EXEC_PROFILE_CHILD) {
  const r = spawnSync(
    process.execPath,
    [...flags, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, EXEC_PROFILE_CHILD: '1', NODE_ENV: 'production' },
    },
  );
  process.exit(r.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    reps: { type: 'string' },
    rounds: { type: 'string' },
    pages: { type: 'string' },
    via: { type: 'string' },
    alloc: { type: 'boolean' },
    'cpu-prof': { type: 'string' },
    'prof-page': { type: 'string' },
  },
});
const KINDS = databaseKinds(args.db);
const REPS = Number(args.reps ?? 20);
const ROUNDS = Number(args.rounds ?? 7);
const VIAS = (args.via ?? 'app,execute').split(',') as ('app' | 'execute')[];

const list = (n: number, children: number) => `{
  securities(search: "US", searchType: EXCHANGE_COUNTRY, first: ${n}) {
    nodes {
      symbol
      name
      ratings(first: ${children}) { nodes { firm action rating priceTarget createdAt } }
      news(first: ${children}) { nodes { headline type createdAt } }
    }
  }
}`;
const PAGES: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  list50: { query: list(50, 5) },
  list50x10: { query: list(50, 10) },
  company: {
    query: fs.readFileSync(path.join(ROOT, 'operations/company-page.graphql'), 'utf8'),
    variables: { symbol: 'NVLX' },
  },
  typename: { query: '{ __typename }' },
};
const PAGE_NAMES = (args.pages ?? Object.keys(PAGES).join(',')).split(',');
for (const p of PAGE_NAMES) if (!PAGES[p]) throw new Error(`--pages: ${Object.keys(PAGES).join(', ')}; got ${p}`);
const PROF_PAGE = args['prof-page'] ?? 'list50';

/** Runs one request of a page; resolves to the answer's length in bytes (so the answer is made in full). */
type Runner = (page: string) => Promise<number>;

function appRunner(h: InProcess): Runner {
  return async (page) => {
    const { query, variables } = PAGES[page]!;
    const res = await h.app.fetch('http://bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': h.key },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"'))
      throw new Error(`${page}: ${res.status} ${text.slice(0, 300)}`);
    return text.length;
  };
}

/** The schema executed directly: a context as app.ts builds it, one enterprise caller, no HTTP, no plugin. */
function executeRunner(h: InProcess): Runner {
  const callers = new CallerCache();
  const cfg = h.config;
  const sessions = {
    db: h.db,
    auth: { ...cfg.auth, jwtSecret: cfg.auth.jwtSecret! },
    limits: createRateLimits(cfg.auth, undefined),
    callers,
  };
  const work = { budget: new InFlightBudget(Number.MAX_SAFE_INTEGER, 1), rowUnits: () => 0 };
  const live = new LiveHub({
    config: cfg.subscriptions,
    callerCacheMs: cfg.auth.callerCacheMs,
    db: h.db,
    callers,
    logger: createLogger('silent'),
  });
  const fallbacks = createFallbacks({ metrics: { registry: new Registry() }, logger: createLogger('silent') });
  const caller = {
    userId: 'bench',
    email: 'bench@example.com',
    username: 'bench',
    tier: 'enterprise' as const,
    via: 'apikey' as const,
  };
  const ocr = new OcrPool(cfg.ocr);
  const events = memoryEventBus();
  const documents = new Map<string, DocumentNode>();
  for (const p of PAGE_NAMES) {
    const document = parse(PAGES[p]!.query);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`${p}: ${errors.join('; ')}`);
    documents.set(p, document);
  }
  const request = new Request('http://bench/graphql', { method: 'POST' });
  return async (page) => {
    const ctx = {
      ...createContext({
        config: cfg,
        db: h.db,
        requestId: 'bench',
        request,
        deadline: new Deadline(cfg.requestTimeoutMs),
        ip: '127.0.0.1',
        sessions,
        callers,
        ocr,
        events,
        work,
        live,
        fallbacks,
      }),
      caller,
    };
    const result = await execute({
      schema,
      document: documents.get(page)!,
      contextValue: ctx,
      variableValues: PAGES[page]!.variables,
    });
    const text = JSON.stringify(result);
    if (result.errors) throw new Error(`${page}: ${text.slice(0, 300)}`);
    return text.length;
  };
}

// the pauses of the garbage collector, as they are reported (some milliseconds after they happen)
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
const gcSettled = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

interface Sample {
  cpu: number;
  wall: number;
  gc: number;
}
async function measure(run: Runner, page: string, reps: number): Promise<Sample> {
  await gcSettled();
  const g0 = gcMs;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await run(page);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  await gcSettled();
  return { cpu: (c.user + c.system) / 1000 / reps, wall: wall / reps, gc: (gcMs - g0) / reps };
}

/** MB allocated per request of `page`, by the sampling heap profiler (a sample every 4 KiB on average). */
async function allocated(run: Runner, page: string): Promise<number> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // the flags exist in Node 20's V8 but not in its protocol types
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as object);
  const reps = REPS * 5;
  for (let i = 0; i < reps; i++) await run(page);
  const { profile: p } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let bytes = 0;
  // where the bytes are allocated: by function and file, printed for the page's largest sites
  const sites = new Map<string, number>();
  const walk = (n: typeof p.head): void => {
    bytes += n.selfSize;
    const f = n.callFrame;
    const at = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(`file://${process.cwd()}/`, '')}`;
    sites.set(at, (sites.get(at) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(p.head);
  console.log(`  ${page}: the largest allocation sites, KB per request`);
  for (const [at, b] of [...sites].sort((x, y) => y[1] - x[1]).slice(0, ALLOC_SITES))
    console.log(`    ${(b / reps / 1024).toFixed(1).padStart(7)}  ${at}`);
  return bytes / reps / 1e6;
}

/** Allocation sites `--alloc` prints per page. */
const ALLOC_SITES = 12;

async function profile(run: Runner, page: string, file: string): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  await measure(run, page, REPS * 5);
  const { profile: p } = await session.post('Profiler.stop');
  session.disconnect();
  fs.writeFileSync(file, JSON.stringify(p));
  const self = new Map<string, number>();
  const dt = new Map<number, number>();
  p.samples!.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (p.timeDeltas![i] ?? 0)));
  let total = 0;
  for (const n of p.nodes) {
    const t = dt.get(n.id) ?? 0;
    total += t;
    const f = n.callFrame;
    const where = f.url
      ? `${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/src\//, 'src/')}:${f.lineNumber + 1}`
      : '';
    const name = `${f.functionName || '(anonymous)'} ${where}`;
    self.set(name, (self.get(name) ?? 0) + t);
  }
  console.log(`  profile of ${page} written to ${file}; top self time:`);
  for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`    ${((100 * t) / total).toFixed(1).padStart(5)}%  ${name}`);
}

const rows: (string | number)[][] = [];
for (const kind of KINDS) {
  console.log(`\n${kind}: seeding 50 securities`);
  const scratch = scratchDatabase(kind, 'exec_profile');
  try {
    cli(scratch.url, ['seed', '--securities', '50']);
    const h = await inProcessApp(scratch.url);
    try {
      const nodes = (await h.gql(PAGES.list50x10!.query)).securities.nodes as any[];
      const covered = nodes.filter((s) => s.ratings.nodes.length && s.news.nodes.length).length;
      const children = nodes.reduce((n, s) => n + s.ratings.nodes.length + s.news.nodes.length, 0);
      if (nodes.length !== 50 || covered !== 50)
        throw new Error(
          `list50x10: ${covered} of ${nodes.length} listed securities have ratings and news; want 50 of 50`,
        );
      console.log(`  list50x10: 50 securities with ${children} ratings and news items`);
      const runners = { app: appRunner(h), execute: executeRunner(h) };
      const samples = new Map<string, Sample[]>();
      for (const via of VIAS) {
        const run = runners[via];
        const bytes = new Map<string, number>();
        for (const page of PAGE_NAMES) bytes.set(page, await run(page));
        console.log(`  ${via}: ${PAGE_NAMES.map((p) => `${p} ${bytes.get(p)} bytes`).join(', ')}`);
        for (let i = 0; i < 3; i++) for (const page of PAGE_NAMES) await measure(run, page, REPS); // warm-up: JIT, pools
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const via of VIAS) {
          for (const page of PAGE_NAMES) {
            const key = `${via} ${page}`;
            samples.set(key, [...(samples.get(key) ?? []), await measure(runners[via], page, REPS)]);
          }
        }
      }
      for (const via of VIAS) {
        for (const page of PAGE_NAMES) {
          const s = samples.get(`${via} ${page}`)!;
          const mb = args.alloc ? (await allocated(runners[via], page)).toFixed(2) : '';
          const line = [
            kind,
            via,
            page,
            median(s.map((x) => x.cpu)).toFixed(2),
            median(s.map((x) => x.gc)).toFixed(2),
            median(s.map((x) => x.wall)).toFixed(2),
            mb,
          ];
          console.log(`  ${line.slice(1).join('  ')}`);
          rows.push(line);
        }
      }
      if (args['cpu-prof']) {
        fs.mkdirSync(args['cpu-prof'], { recursive: true });
        for (const via of VIAS)
          await profile(runners[via], PROF_PAGE, path.join(args['cpu-prof'], `${kind}-${via}-${PROF_PAGE}.cpuprofile`));
      }
    } finally {
      await h.close();
    }
  } finally {
    await scratch.drop();
  }
}

console.log(`\n${REPS} requests per page per round, ${ROUNDS} rounds, median over rounds; node ${flags.join(' ')}\n`);
console.log(
  markdownTable(
    ['database', 'via', 'page', 'CPU ms/request', 'GC pause ms/request', 'ms/request', 'MB allocated/request'],
    rows,
  ),
);
