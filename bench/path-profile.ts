// What the gateway's request path costs: CPU per request of `{ __typename }` (the floor) and of the
// company page (operations/company-page.graphql) through (a) the gateway, (b) the same schema behind
// a bare Yoga (bench/bare-yoga-server.ts) and (c) graphql-js `execute` on a cached document behind
// node:http (bench/execute-server.ts), the lower bound of any JS GraphQL server. Measured in-process
// (process.cpuUsage around app.fetch / yoga.fetch / the handler) and over a real socket (autocannon,
// the server's CPU from /proc/<pid>/stat). With --profile, a --cpu-prof of the gateway (or the first
// of --variants) under the floor (or the page: --profile page), its time per request by file and package.
// Prints only: the decisions it informs are written up in bench/RESULTS.md by hand.
//
//   npm run bench -- path-profile [--requests 4000] [--duration 3] [--connections 10] [--rounds 3]
//                                 [--profile floor|page] [--only inprocess|socket]
//
// PostgreSQL (BENCH_DATABASE_URL, default the local test database), default sample data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig, ROOT } from '../src/config.js';
import { createLogger } from '../src/observability/log.js';
import {
  bareYoga,
  cli,
  createKey,
  executeOnly,
  inProcessApp,
  JWT_SECRET,
  loadTest,
  median,
  processCpuMs,
  scratchDatabase,
  startGateway,
  startProcess,
  type Server,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    rounds: { type: 'string' },
    profile: { type: 'string' },
    only: { type: 'string' },
    variants: { type: 'string' },
    bodies: { type: 'string' },
  },
});
const REQUESTS = Number(args.requests ?? 4000);
const DURATION = Number(args.duration ?? 3);
const CONNECTIONS = Number(args.connections ?? 10);
const ROUNDS = Number(args.rounds ?? 3);

const FLOOR = JSON.stringify({ query: '{ __typename }' });
const PAGE_QUERY = fs.readFileSync(path.join(ROOT, 'operations/company-page.graphql'), 'utf8');
const PAGE = JSON.stringify({ query: PAGE_QUERY, variables: { symbol: 'NVLX' } });
const BODIES = { floor: FLOOR, page: PAGE } as const;
type Body = keyof typeof BODIES;
type Variant = 'gateway' | 'bare' | 'execute';
const VARIANTS = (args.variants ?? 'gateway,bare,execute').split(',') as Variant[];
const BODY_NAMES = (args.bodies ?? 'floor,page').split(',') as Body[];

/** CPU of this process per call of `fn` in µs, `concurrency` calls in flight, after a warm-up. */
async function cpuPerCall(fn: () => Promise<unknown>, n: number, concurrency = 10): Promise<number> {
  const loop = async (count: number) => {
    let left = count;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await fn();
      }),
    );
  };
  await loop(Math.min(500, n));
  const before = process.cpuUsage();
  await loop(n);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

interface SocketResult {
  rate: number;
  cpuUs: number;
}

async function overSocket(
  server: Server,
  route: string,
  headers: Record<string, string>,
  body: string,
): Promise<SocketResult> {
  const url = `${server.base}${route}`;
  await loadTest({ url, connections: CONNECTIONS, duration: 1, method: 'POST', headers, body });
  const before = processCpuMs(server.pid) * 1000;
  const r = await loadTest({ url, connections: CONNECTIONS, duration: DURATION, method: 'POST', headers, body });
  const used = processCpuMs(server.pid) * 1000 - before;
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rate: r.total / r.seconds, cpuUs: used / r.total };
}

const fmt = (us: number) => `${(us / 1000).toFixed(3)} ms`;

function table(title: string, results: Map<string, number[]>, extra?: Map<string, number[]>): void {
  console.log(`\n${title}`);
  for (const body of BODY_NAMES) {
    const cells = VARIANTS.map((v) => {
      const xs = results.get(`${v}:${body}`) ?? [];
      const rates = extra?.get(`${v}:${body}`);
      return `${v} ${fmt(median(xs))}${rates ? ` (${median(rates).toFixed(0)} req/s)` : ''}`;
    });
    const g = median(results.get(`gateway:${body}`) ?? []);
    const b = median(results.get(`bare:${body}`) ?? []);
    const e = median(results.get(`execute:${body}`) ?? []);
    console.log(
      `  ${body.padEnd(5)}  ${cells.join('   ')}   gateway − bare ${fmt(g - b)}, gateway − execute ${fmt(g - e)}`,
    );
  }
  const pathUs = median(results.get('gateway:floor') ?? []) - median(results.get('execute:floor') ?? []);
  const page = median(results.get('gateway:page') ?? []);
  console.log(
    `  request path (gateway floor − execute floor) = ${fmt(pathUs)} = ${((pathUs / page) * 100).toFixed(0)}% of the gateway's page`,
  );
}

async function inProcess(url: string): Promise<void> {
  // the request log at production's level, written nowhere: its line is part of every request's path
  const bench = await inProcessApp(url, {}, createLogger('info', pino.destination('/dev/null')));
  const config = loadConfig({
    DATABASE_URL: url,
    NODE_ENV: 'production',
    JWT_SECRET,
    SAMPLE_DATA: 'none',
    LOG_LEVEL: 'silent',
  });
  const yoga = bareYoga(config, bench.db);
  const answer = executeOnly(config, bench.db);
  const headers = { 'content-type': 'application/json', 'x-api-key': bench.key };
  const call: Record<Variant, (body: string) => Promise<unknown>> = {
    gateway: async (body) => (await bench.app.fetch('http://bench/graphql', { method: 'POST', headers, body })).text(),
    bare: async (body) => (await yoga.fetch('http://bench/graphql', { method: 'POST', headers, body })).text(),
    execute: answer,
  };
  for (const v of VARIANTS) {
    const text = String(await call[v](PAGE));
    if (!text.includes('"symbol":"NVLX"') || text.includes('"errors"'))
      throw new Error(`${v}: the page did not answer: ${text.slice(0, 300)}`);
  }
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of VARIANTS) {
      for (const body of BODY_NAMES) {
        const us = await cpuPerCall(() => call[v](BODIES[body]), body === 'floor' ? REQUESTS : Math.ceil(REQUESTS / 4));
        results.set(`${v}:${body}`, [...(results.get(`${v}:${body}`) ?? []), us]);
      }
    }
  }
  table(`In-process CPU per request (median of ${ROUNDS} rounds, 10 in flight, this process):`, results);
  await bench.close();
}

async function socket(url: string, key: string): Promise<void> {
  const start: Record<Variant, () => Promise<Server>> = {
    gateway: () => startGateway(url, 4410),
    bare: () => startProcess('bench/bare-yoga-server.ts', 4411, { DATABASE_URL: url }),
    execute: () => startProcess('bench/execute-server.ts', 4412, { DATABASE_URL: url }),
  };
  const servers = {} as Record<Variant, Server>;
  for (const v of VARIANTS) servers[v] = await start[v]();
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const cpu = new Map<string, number[]>();
  const rates = new Map<string, number[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of VARIANTS) {
        for (const body of BODY_NAMES) {
          const r = await overSocket(servers[v], '/graphql', headers, BODIES[body]);
          cpu.set(`${v}:${body}`, [...(cpu.get(`${v}:${body}`) ?? []), r.cpuUs]);
          rates.set(`${v}:${body}`, [...(rates.get(`${v}:${body}`) ?? []), r.rate]);
        }
      }
    }
  } finally {
    for (const s of Object.values(servers)) await s.stop();
  }
  table(
    `Over a socket: server CPU per request (median of ${ROUNDS} rounds of ${DURATION} s, ${CONNECTIONS} connections; autocannon in this process):`,
    cpu,
    rates,
  );
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `src/<file>`, a package, a Node internal module, or the VM's own. */
function placeOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(builtin)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  const own = /\/((?:src|bench)\/.*)$/.exec(url)?.[1];
  if (own) return own;
  return url.startsWith('node:') ? url : '(other)';
}

/** Self and total (inclusive) time per place and per src/ function over the samples after `fromUs`. */
function summarise(profile: Profile, fromUs: number, requests: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const functions = new Map<string, number>();
  let t = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    const delta = profile.timeDeltas[i + 1] ?? 0; // the time this sample stands for
    if (t < fromUs) return;
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') return;
    busy += delta;
    const leafPlace = placeOf(leaf.callFrame);
    self.set(leafPlace, (self.get(leafPlace) ?? 0) + delta);
    const places = new Set<string>();
    const fns = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const place = placeOf(n.callFrame);
      places.add(place);
      if (place.startsWith('src/'))
        fns.add(`${place}:${n.callFrame.lineNumber + 1} ${n.callFrame.functionName || '(anonymous)'}`);
    }
    for (const p of places) total.set(p, (total.get(p) ?? 0) + delta);
    for (const f of fns) functions.set(f, (functions.get(f) ?? 0) + delta);
  });
  const per = (us: number) =>
    `${(us / requests).toFixed(1).padStart(6)} µs  ${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(`\n  busy CPU ${(busy / requests).toFixed(1)} µs per request over ${requests} requests`);
  console.log('  self time by place (per request, share of busy):');
  for (const [k, v] of top(self, 25)) console.log(`    ${per(v)}  ${k}`);
  console.log('  total time (inclusive) by place:');
  for (const [k, v] of top(total, 30)) console.log(`    ${per(v)}  ${k}`);
  console.log('  total time (inclusive) of src/ functions:');
  for (const [k, v] of top(functions, 40)) console.log(`    ${per(v)}  ${k}`);
}

async function profile(url: string, key: string, body: Body): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'path-profile-'));
  const flags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const variant = VARIANTS[0]!;
  const server =
    variant === 'gateway'
      ? await startGateway(url, 4413, {}, ROOT, flags)
      : await startProcess(
          `bench/${variant === 'bare' ? 'bare-yoga' : 'execute'}-server.ts`,
          4413,
          { DATABASE_URL: url },
          [],
          '/healthz',
          flags,
        );
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  await loadTest({
    url: `${server.base}/graphql`,
    connections: CONNECTIONS,
    duration: 2,
    method: 'POST',
    headers,
    body: BODIES[body],
  });
  const started = performance.now();
  const r = await loadTest({
    url: `${server.base}/graphql`,
    connections: CONNECTIONS,
    duration: DURATION,
    method: 'POST',
    headers,
    body: BODIES[body],
  });
  await server.stop();
  const window = (performance.now() - started) * 1000; // µs from the load's start to the exit
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const prof = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile;
  console.log(
    `\nProfile of ${variant} (--cpu-prof) under ${body === 'floor' ? '`{ __typename }`' : 'the company page'}, ${CONNECTIONS} connections, ${r.total} requests in ${DURATION} s (${path.join(dir, file)}):`,
  );
  summarise(prof, prof.endTime - window, r.total);
}

const scratch = scratchDatabase('postgresql', 'path_profile');
try {
  console.log('seeding the default sample (PostgreSQL)');
  cli(scratch.url, ['seed']);
  const key = createKey(scratch.url, 'enterprise');
  if (args.profile) await profile(scratch.url, key, args.profile === 'page' ? 'page' : 'floor');
  else {
    if (args.only !== 'socket') await inProcess(scratch.url);
    if (args.only !== 'inprocess') await socket(scratch.url, key);
  }
} finally {
  await scratch.drop();
}
