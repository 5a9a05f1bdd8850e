// What the HTTP benchmarks (company-page, soak, ...) share: scratch databases, the CLI, a gateway
// server in a process of its own, the machine's description and the append to bench/RESULTS.md.
// Not a benchmark itself: importing it starts nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { execute, parse, validate, type DocumentNode } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { createApp } from '../src/app.js';
import { CallerCache } from '../src/auth/caller.js';
import { createRateLimits } from '../src/auth/rate-limit.js';
import { createContext, type Context } from '../src/context.js';
import { Deadline } from '../src/runtime/deadline.js';
import { LiveHub } from '../src/graphql/live.js';
import { Registry } from 'prom-client';
import { createFallbacks } from '../src/observability/fallbacks.js';
import { createLogger, type Logger } from '../src/observability/log.js';
import { OcrPool } from '../src/ocr/pool.js';
import { memoryEventBus } from '../src/runtime/events.js';
import { InFlightBudget } from '../src/runtime/in-flight.js';
import { schema } from '../src/schema/index.js';
import { openDatabase } from '../src/bootstrap.js';
import { loadConfig, parsePostgresUrl, ROOT, type Config, type DatabaseConfig } from '../src/config.js';
import type { Db } from '../src/db/client.js';
import { createApiKey, createUser } from '../src/services/account.js';
import { editDistance } from '../src/search/text.js';

export const PG_URL = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test';
/** Production refuses to start without one, and config.ts wants about 128 bits in it (this has ~158). */
export const JWT_SECRET = 'bench-only-secret-0123456789abcdef0123456789';
/** The database the benches run on: PostgreSQL (BENCH_DATABASE_URL's server), the gateway's only one. */
export type DatabaseKind = 'postgresql';

export function databaseKinds(arg: string | undefined): DatabaseKind[] {
  const kinds = (arg ?? 'postgresql').split(',');
  for (const k of kinds) if (k !== 'postgresql') throw new Error(`--db: postgresql (the only database); got ${k}`);
  return kinds as DatabaseKind[];
}

export interface Scratch {
  kind: DatabaseKind;
  /** DATABASE_URL for the server and the CLI. */
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/** An empty database of its own: a PostgreSQL schema `bench_<name>_<pid>`. */
export function scratchDatabase(kind: DatabaseKind, name: string): Scratch {
  const u = new URL(PG_URL);
  const schema = `bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  u.searchParams.set('schema', schema);
  const url = u.toString();
  return { kind, url, config: parsePostgresUrl(url), drop: () => dropSchema(schema) };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** `npm run cli -- <args>` against `url`, as production runs it (no demo accounts); returns stdout. */
export function cli(url: string, args: string[], stdin?: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'production', JWT_SECRET },
    encoding: 'utf8',
    input: stdin ?? '',
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** A user of `tier` with one API key, made through the CLI; returns the key. */
export function createKey(
  url: string,
  tier: 'free' | 'pro' | 'enterprise',
  email = `bench-${tier}@example.com`,
): string {
  cli(url, ['users', 'create', '--email', email, '--tier', tier, '--password-stdin'], 'bench password, long enough\n');
  const out = cli(url, ['apikeys', 'create', '--user', email, '--name', 'bench']);
  const key = out.match(/key \(shown once[^)]*\): (\S+)/)?.[1];
  if (!key) throw new Error(`apikeys create printed no key: ${out}`);
  return key;
}

export interface Server {
  pid: number;
  base: string;
  /** Every line the process wrote to stdout and stderr so far (read from its log file). */
  lines(): string[];
  stop(): Promise<void>;
}

/**
 * Spawns `node <script>` with `env` on `port` and waits until GET `probe` answers 200. Its stdout
 * and stderr go to a file, as a production log goes to a collector: read through a pipe, the
 * request lines (thousands a second) took CPU from autocannon in this process, on the other core,
 * and capped what it measured.
 * BENCH_SERVER_NODE_ARGS adds node flags, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server.
 */
export async function startProcess(
  script: string,
  port: number,
  env: Record<string, string>,
  args: string[] = [],
  probe = '/healthz',
  nodeFlags: string[] = [],
  root = ROOT,
): Promise<Server> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-log-'));
  const logFile = path.join(logDir, 'output.log');
  const fd = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeFlags,
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      script,
      ...args,
    ],
    {
      cwd: root,
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', fd, fd],
    },
  );
  fs.closeSync(fd);
  let final: string[] | undefined; // the output once the process ended and its file was removed
  const lines = () => final ?? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  let exited: number | null = null;
  child.on('exit', (code) => {
    final = lines();
    fs.rmSync(logDir, { recursive: true, force: true });
    exited = code ?? -1;
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`${script} exited (${exited}) before it served:\n${lines().join('\n')}`);
    const ok = await fetch(base + probe).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`${script} did not answer ${probe} within 60 s:\n${lines().join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    pid: child.pid!,
    base,
    lines,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The node flags of `npm start` (the package.json of `root`), so a benchmark runs the server as production does. */
export function startFlags(root = ROOT): string[] {
  const start: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  return start.split(/\s+/).filter((t) => /^--max-/.test(t));
}

/**
 * The gateway as production runs it (src/server.ts with `npm start`'s node flags), with rate limits
 * out of the way; `root` another checkout of this repository (an older commit, for before/after).
 */
export function startGateway(
  url: string,
  port: number,
  env: Record<string, string> = {},
  root = ROOT,
  nodeFlags: string[] = [],
): Promise<Server> {
  return startProcess(
    'src/server.ts',
    port,
    {
      DATABASE_URL: url,
      NODE_ENV: 'production',
      JWT_SECRET,
      // production builds next_url from it; clients here reach the gateway on this address
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SAMPLE_DATA: 'none',
      RATE_LIMIT_FREE: '100000000',
      RATE_LIMIT_PRO: '100000000',
      RATE_LIMIT_ENTERPRISE: '100000000',
      ...env,
    },
    [],
    '/healthz',
    [...startFlags(root), ...nodeFlags],
    root,
  );
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  // the fields after the parenthesized command name: utime and stime are the 12th and 13th of them
  const fields = fs
    .readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The CPU time (ms) of each process named `postgres` on this machine, by pid. */
function postgresProcesses(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/stat`, 'utf8').includes('(postgres)'))
        out.set(Number(name), processCpuMs(Number(name)));
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

/**
 * PostgreSQL's CPU time (user + system of every `postgres` process) from now until `stop`, in ms:
 * each process sampled every `everyMs`, its time counted from its value at the start (0 for one
 * started since), so a backend that ends meanwhile (another server's idle connection closing)
 * takes away none of the time already counted, and adds at most one interval of its own unseen.
 */
export function postgresCpu(everyMs = 250): { stop(): number } {
  const start = postgresProcesses();
  const last = new Map(start);
  const sample = () => {
    for (const [pid, ms] of postgresProcesses()) last.set(pid, ms);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, ms] of last) total += ms - (start.get(pid) ?? 0);
      return total;
    },
  };
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const kb = Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
  return kb / 1024;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The q-quantile (0..1) of `xs` by nearest rank. */
export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};

export function markdownTable(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** One line naming the commit, the machine, Node, the databases (if any) and the load on the machine. */
export async function machineLine(kinds: readonly DatabaseKind[]): Promise<string> {
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown').trim();
  let commit = 'unknown';
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    commit = dirty ? `${head} + uncommitted changes` : head;
  } catch {
    // not a git checkout
  }
  let dbs = '';
  if (kinds.includes('postgresql')) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const v = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    await client.end();
    dbs += `${dbs ? '; ' : ''}PostgreSQL ${v} (pg)`;
  }
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
  return `Commit ${commit}; ${cpu}, ${os.cpus().length} logical CPUs; Node ${process.version}${dbs ? `; ${dbs}` : ''}. Load average when the run ended (1/5/15 min): ${load}, on a machine shared with other work.`;
}

/** Prints `section` and appends it to bench/RESULTS.md unless `dryRun`. */
export function record(section: string, dryRun: boolean | undefined): void {
  console.log(`\n${section}`);
  if (dryRun) return;
  const file = path.join(ROOT, 'bench', 'RESULTS.md');
  if (!fs.existsSync(file))
    fs.writeFileSync(
      file,
      '# Benchmark results\n\nEach section is appended by a bench script (`npm run bench -- <name>`), with its machine and commit.\n',
    );
  fs.appendFileSync(file, `\n${section.trimEnd()}\n`);
  console.log(`appended to ${path.relative(ROOT, file)}`);
}

export const utcNow = () => new Date().toISOString().slice(0, 16).replace('T', ' ');

/** The subset of autocannon's options and result the benchmarks use (the package ships no types). */
export interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Each connection walks these in order, round and round. */
  requests?: { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }[];
}
export interface LoadResult {
  /** Completed requests, seconds, and latency percentiles in ms. */
  total: number;
  seconds: number;
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
  errors: number;
  /** Responses by status class, e.g. { '2xx': 10, '5xx': 0 }. */
  statusCodes: Record<string, number>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<{
  requests: { total: number };
  duration: number;
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
}>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function loadTest(opts: LoadOptions): Promise<LoadResult> {
  const r = await autocannon({ ...opts, pipelining: 1 });
  return {
    total: r.requests.total,
    seconds: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.average,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statusCodes: { '2xx': r['2xx'], '3xx': r['3xx'], '4xx': r['4xx'], '5xx': r['5xx'] },
  };
}

export interface InProcess {
  app: ReturnType<typeof createApp>;
  config: Readonly<Config>;
  db: Db;
  /** An enterprise user's API key. */
  key: string;
  /** GET `path` through app.fetch with the key; throws unless 200. */
  get(path: string): Promise<string>;
  /** POST a GraphQL query through app.fetch with the key; throws on a non-200 or errors in the body. */
  gql(query: string, variables?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/**
 * The app over `url` in this process (app.fetch, no socket), as production configures it, with an
 * enterprise user and key; the caller cache outlives the run, so statement counts measure queries only.
 * `env` adds to (or overrides) that environment; `logger` replaces the silent one.
 */
let inProcessApps = 0;
export async function inProcessApp(url: string, env: Record<string, string> = {}, logger?: Logger): Promise<InProcess> {
  // PUBLIC_URL: the origin `get` and `gql` fetch from, as production requires one
  const config = loadConfig({
    DATABASE_URL: url,
    NODE_ENV: 'production',
    JWT_SECRET,
    PUBLIC_URL: 'http://bench',
    SAMPLE_DATA: 'none',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENTERPRISE: '100000000',
    AUTH_CACHE_SECONDS: '86400',
    ...env,
  });
  const db = await openDatabase(config);
  const app = createApp({ config, db, ...(logger ? { logger } : {}) });
  const user = await createUser(db, {
    email: `bench-inproc-${process.pid}-${++inProcessApps}@example.com`,
    password: 'bench password, long enough',
    tier: 'enterprise',
  });
  const { key } = await createApiKey(db, user.id, 'bench', config.auth.apiKeysPerUser);
  const self: InProcess = {
    app,
    config,
    db,
    key,
    async get(path) {
      const res = await app.fetch(`http://bench${path}`, { headers: { 'x-api-key': key } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
      return text;
    },
    async gql(query, variables) {
      const res = await app.fetch('http://bench/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: any; errors?: unknown[] };
      if (res.status !== 200 || body.errors)
        throw new Error(`GraphQL: ${res.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
      return body.data;
    },
    close: () => db.close(),
  };
  await self.gql('{ me { userId } }'); // the key's lookup, before anything is counted
  return self;
}

/**
 * The per-request context of the bare stacks (bareYoga, executeOnly): the gateway's own Context,
 * made as app.ts makes it, with one fixed enterprise caller and no work budget drawn on.
 */
function bareContexts(config: Readonly<Config>, db: Db): (request: Request) => Context {
  const callers = new CallerCache();
  const sessions = {
    db,
    auth: { ...config.auth, jwtSecret: config.auth.jwtSecret! },
    limits: createRateLimits(config.auth, undefined),
    callers,
  };
  const ocr = new OcrPool(config.ocr);
  const events = memoryEventBus();
  const work = { budget: new InFlightBudget(Number.MAX_SAFE_INTEGER, 1), rowUnits: () => 0 };
  const live = new LiveHub({
    config: config.subscriptions,
    callerCacheMs: config.auth.callerCacheMs,
    db,
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
  return (request) => ({
    ...createContext({
      config,
      db,
      requestId: 'bench',
      request,
      deadline: new Deadline(config.requestTimeoutMs),
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
  });
}

/**
 * The gateway's schema and resolvers behind a bare Yoga: no plugin of ours, no authentication, rate
 * limit, request log, metrics or body bound (bench/bare-yoga-server.ts serves it over HTTP).
 */
export function bareYoga(config: Readonly<Config>, db: Db) {
  const contextOf = bareContexts(config, db);
  return createYoga<object, Context>({
    schema,
    logging: false,
    landingPage: false,
    graphiql: false,
    context: ({ request }) => contextOf(request),
  });
}

/**
 * The lower bound of any JS GraphQL server over this schema: a JSON body in, graphql-js `execute`
 * on a document parsed and validated once per text, the result as JSON text out. No HTTP framework,
 * no plugin (bench/execute-server.ts serves it over node:http).
 */
export function executeOnly(config: Readonly<Config>, db: Db): (body: string) => Promise<string> {
  const contextOf = bareContexts(config, db);
  const documents = new Map<string, DocumentNode>();
  const request = new Request('http://bench/graphql', { method: 'POST' });
  return async (body) => {
    const { query, variables, operationName } = JSON.parse(body) as {
      query: string;
      variables?: Record<string, unknown>;
      operationName?: string;
    };
    let document = documents.get(query);
    if (!document) {
      document = parse(query);
      const errors = validate(schema, document);
      if (errors.length) return JSON.stringify({ errors });
      documents.set(query, document);
    }
    return JSON.stringify(
      await execute({ schema, document, variableValues: variables, operationName, contextValue: contextOf(request) }),
    );
  };
}

/** A deterministic PRNG (mulberry32), so every run asks the same queries. */
export function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `word` in lower case with `n` typos (substitutions, swaps of two different neighbours, deletions),
 * exactly `n` by the search's own distance, and long enough to be allowed them (4 characters for
 * one, 7 for two: domain/search-text.ts typoBudget).
 */
export function withTypos(word: string, n: 1 | 2, random: () => number): string {
  const w = word.toLowerCase();
  for (;;) {
    let t = w;
    for (let k = 0; k < n; k++) {
      const op = Math.floor(random() * 3);
      const at = Math.floor(random() * t.length);
      if (op === 0) {
        const letters = 'abcdefghijklmnopqrstuvwxyz'.replace(t[at]!, '');
        t = t.slice(0, at) + letters[Math.floor(random() * letters.length)] + t.slice(at + 1);
      } else if (op === 1) {
        if (at + 1 < t.length && t[at] !== t[at + 1]) t = t.slice(0, at) + t[at + 1] + t[at] + t.slice(at + 2);
      } else {
        t = t.slice(0, at) + t.slice(at + 1);
      }
    }
    if (t.length >= (n === 1 ? 4 : 7) && editDistance(w, t, n) === n) return t;
  }
}
