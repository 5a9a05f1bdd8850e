// Our gateway beside PostGraphile 5 on the same data: five pages (bench/peers/pages.ts) through
// (a) the gateway as production runs it, (b) our bare stack (the same schema and resolvers behind a
// bare Yoga, bench/bare-yoga-server.ts) and (c) PostGraphile 5 with the amber preset
// (bench/peers/postgraphile-server.ts) over the same seeded PostgreSQL schema, its relations by
// symbol added as computed columns (bench/peers/relations.sql). Before a page is timed, the
// answers are fetched and compared as normalized records; a page whose answers differ is printed
// and not measured. At each page and connection count the servers alternate, round after round,
// so other work on the machine weighs on all alike. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- peers [--connections 10,50] [--duration 10] [--rounds 3]
//                          [--pages company,floor,point,list,deep,wide] [--before <checkout>]
//                          [--variants nodirect] [--no-bare] [--dry-run]
//
// `--before <checkout>`: a fourth server, the gateway of another checkout of this repository (an
// older commit, with its own node_modules and generated/), measured in the same rounds: before and
// after a change side by side in one run, answers checked equal to the gateway's byte for byte.
//
// `--variants`: the gateway again with one fast path off (`nodirect`: GRAPHQL_DIRECT=false), in the
// same rounds: what the path is worth, with and without it, in one run (the section adds a table of
// the ratios; bench/RESULTS.md "Issue 26: one executor per layer"). `--no-bare` leaves the bare stack out.
//
// Per page, connection count and server: pages/s over all rounds, p50/p99 (mean of the rounds),
// the ratio to PostGraphile, SQL statements per page (ours: mdg_db_statements_total on the
// gateway's /metrics, the bare stack's /stats; theirs: queries sent on its pool's clients, on its
// /stats), server CPU per page (utime+stime from /proc/<pid>/stat around each load run), PostgreSQL's
// CPU per page (every `postgres` process's, the same way) and the peak RSS of the server under load
// (sampled every 250 ms).
// PostGraphile 5 declares Node >= 22: `npm ci` prints EBADENGINE warnings for its packages on
// Node 20, and the server starts with `--import bench/peers/polyfill.mjs`.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parsePostgresUrl } from '../src/config.js';
import {
  cli,
  createKey,
  databaseKinds,
  loadTest,
  machineLine,
  postgresCpu,
  processCpuMs,
  record,
  rssMb,
  scratchDatabase,
  startGateway,
  startProcess,
  utcNow,
  type DatabaseKind,
  type Server,
} from './harness.js';
import { comparePage, PAGES, type Page } from './peers/pages.js';
import { report, type Cell, type Refusal, type ServerName } from './peers/report.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    pages: { type: 'string' },
    before: { type: 'string' },
    variants: { type: 'string' },
    'no-bare': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  },
});
const KINDS = databaseKinds(args.db ?? 'postgresql');
const CONNECTIONS = (args.connections ?? '10,50').split(',').map(Number);
const DURATION = Number(args.duration ?? 10);
const ROUNDS = Number(args.rounds ?? 3);
const PAGE_NAMES = (args.pages ?? PAGES.map((p) => p.name).join(',')).split(',');
for (const n of PAGE_NAMES)
  if (!PAGES.some((p) => p.name === n))
    throw new Error(`--pages: among ${PAGES.map((p) => p.name).join(', ')}; got ${n}`);
const CHOSEN = PAGES.filter((p) => PAGE_NAMES.includes(p.name));
/** The gateway with one fast path off, by its flag. */
const VARIANTS = { nodirect: { GRAPHQL_DIRECT: 'false' } } as const satisfies Partial<
  Record<ServerName, Record<string, string>>
>;
const CHOSEN_VARIANTS = (args.variants ? args.variants.split(',') : []) as (keyof typeof VARIANTS)[];
for (const v of CHOSEN_VARIANTS)
  if (!(v in VARIANTS)) throw new Error(`--variants: among ${Object.keys(VARIANTS).join(', ')}; got ${v}`);
const METRICS_TOKEN = 'bench-peers-metrics-token';

interface Target {
  name: ServerName;
  server: Server;
  headers: Record<string, string>;
  query(page: Page): string;
  /** Statements sent so far, as the server counts them. */
  statements(): Promise<number>;
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

async function startTargets(kind: DatabaseKind, url: string, key: string, i: number): Promise<Target[]> {
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const targets: Target[] = [];
  const gatewayTarget = (name: ServerName, gateway: Server): Target => ({
    name,
    server: gateway,
    headers,
    query: (p) => p.ours,
    async statements() {
      const res = await fetch(`${gateway.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const n = /^mdg_db_statements_total(?:\{[^}]*\})? (\S+)$/m.exec(await res.text())?.[1];
      if (n === undefined) throw new Error("the gateway's /metrics has no mdg_db_statements_total");
      return Number(n);
    },
  });
  targets.push(gatewayTarget('ours', await startGateway(url, 4410 + i, { METRICS_TOKEN })));
  if (args.before)
    targets.push(gatewayTarget('before', await startGateway(url, 4440 + i, { METRICS_TOKEN }, args.before)));
  for (const [k, v] of CHOSEN_VARIANTS.entries())
    targets.push(gatewayTarget(v, await startGateway(url, 4450 + 10 * k + i, { METRICS_TOKEN, ...VARIANTS[v] })));
  if (!args['no-bare']) {
    const bare = await startProcess('bench/bare-yoga-server.ts', 4420 + i, { DATABASE_URL: url });
    targets.push({
      name: 'bare',
      server: bare,
      headers,
      query: (p) => p.ours,
      statements: async () => (await json(`${bare.base}/stats`)).statements,
    });
  }
  if (kind === 'postgresql') {
    const theirs = await startProcess(
      'bench/peers/postgraphile-server.ts',
      4430 + i,
      { DATABASE_URL: url, NODE_ENV: 'production' },
      [],
      '/healthz',
      ['--import', './bench/peers/polyfill.mjs'],
    );
    targets.push({
      name: 'postgraphile',
      server: theirs,
      headers: { 'content-type': 'application/json' },
      query: (p) => p.theirs,
      statements: async () => (await json(`${theirs.base}/stats`)).statements,
    });
  }
  return targets;
}

async function answer(t: Target, page: Page): Promise<any> {
  const body = await json(`${t.server.base}/graphql`, {
    method: 'POST',
    headers: t.headers,
    body: JSON.stringify({ query: t.query(page) }),
  });
  if (body.errors)
    throw new Error(`${t.name} answers ${page.name} with errors: ${JSON.stringify(body.errors).slice(0, 500)}`);
  return body.data;
}

/** Why `page` must not be measured (answers that differ, or a page that is not what it claims), or undefined. */
async function check(targets: Target[], page: Page): Promise<string | undefined> {
  const [ours, ...others] = await Promise.all(targets.map((t) => answer(t, page)));
  for (const [k, data] of others.entries()) {
    const other = targets[k + 1]!;
    // the bare stack, the gateway before and the variants run our resolvers: byte-equal; PostGraphile: the same records once normalized
    const c =
      other.name !== 'postgraphile'
        ? {
            same: JSON.stringify(data) === JSON.stringify(ours),
            ours: JSON.stringify(ours),
            theirs: JSON.stringify(data),
          }
        : comparePage(page, ours, data);
    if (!c.same) {
      console.log(`  ${page.name}: ours and ${other.name} differ\n  ours:  ${c.ours}\n  ${other.name}: ${c.theirs}`);
      return `the answers of ours and ${other.name} differ`;
    }
  }
  return page.lacks?.(page.fromOurs(ours));
}

/** Statements one page costs: the counter's difference around one request, less what reading the counter costs. */
async function statementsPerPage(t: Target, page: Page): Promise<number> {
  const a = await t.statements();
  const idle = (await t.statements()) - a;
  const b = await t.statements();
  await answer(t, page);
  return (await t.statements()) - b - idle;
}

async function measure(t: Target, page: Page, connections: number, duration: number) {
  const body = JSON.stringify({ query: t.query(page) });
  let peakRss = rssMb(t.server.pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(t.server.pid))), 250);
  const cpu0 = processCpuMs(t.server.pid);
  const db = postgresCpu();
  try {
    const r = await loadTest({
      url: `${t.server.base}/graphql`,
      connections,
      duration,
      method: 'POST',
      headers: t.headers,
      body,
    });
    if (r.non2xx || r.errors) {
      // what the server said of it: its lines above info (a 4xx/5xx's request line, an error)
      const said = t.server
        .lines()
        .filter((l) => /"level":"(warn|error|fatal)"/.test(l) || /"status":[45]\d\d/.test(l))
        .slice(-5);
      throw new Error(
        `${t.name} ${page.name} at ${connections} connections: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodes)}), ${r.errors} errors; the server's last such lines:\n${said.join('\n')}`,
      );
    }
    const cpuMs = processCpuMs(t.server.pid) - cpu0;
    const dbCpuMs = db.stop();
    return { ...r, cpuMs, dbCpuMs, peakRss: Math.max(peakRss, rssMb(t.server.pid)) };
  } finally {
    clearInterval(sampler);
    db.stop();
  }
}

const cells: Cell[] = [];
const refusals: Refusal[] = [];
const cell = (kind: DatabaseKind, page: string, connections: number, server: ServerName) => {
  let c = cells.find((x) => x.kind === kind && x.page === page && x.connections === connections && x.server === server);
  if (!c) cells.push((c = { kind, page, connections, server, runs: [], statements: NaN }));
  return c;
};

async function runPage(kind: DatabaseKind, targets: Target[], page: Page): Promise<void> {
  const refused = await check(targets, page);
  if (refused) {
    refusals.push({ kind, page: page.name, why: refused });
    console.log(`  ${page.name}: not measured, ${refused}`);
    return;
  }
  const statements = new Map<ServerName, number>();
  for (const t of targets) statements.set(t.name, await statementsPerPage(t, page));
  console.log(
    `  ${page.name}: answers equal; statements per page ${[...statements].map(([n, s]) => `${n} ${s}`).join(', ')}`,
  );
  for (const t of targets) await measure(t, page, 10, Math.min(2, DURATION)); // warm-up: JIT, pools, plan caches
  for (const connections of CONNECTIONS) {
    for (let round = 0; round < ROUNDS; round++) {
      // rotate the order each round, so no server always runs first
      for (const t of [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)]) {
        const r = await measure(t, page, connections, DURATION);
        const c = cell(kind, page.name, connections, t.name);
        c.runs.push(r);
        c.statements = statements.get(t.name)!;
        console.log(
          `  ${page.name} ${connections} conn, round ${round + 1}, ${t.name.padEnd(12)} ${(r.total / r.seconds).toFixed(0).padStart(6)} pages/s  p50 ${r.p50} ms  p99 ${r.p99} ms  CPU ${(r.cpuMs / r.total).toFixed(2)} ms/page  PostgreSQL ${(r.dbCpuMs / r.total).toFixed(2)} ms/page  RSS ${r.peakRss.toFixed(0)} MB`,
        );
      }
    }
  }
}

/** bench/peers/relations.sql into the scratch schema, before PostGraphile introspects it. */
async function applyRelations(url: string): Promise<void> {
  const database = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString: database.url, options: `-c search_path="${database.schema}"` });
  await client.connect();
  try {
    await client.query(fs.readFileSync(new URL('./peers/relations.sql', import.meta.url), 'utf8'));
  } finally {
    await client.end();
  }
}

for (const [i, kind] of KINDS.entries()) {
  console.log(`\n${kind}: seeding the default sample`);
  const db = scratchDatabase(kind, 'peers');
  let targets: Target[] = [];
  try {
    cli(db.url, ['seed']);
    const key = createKey(db.url, 'enterprise');
    await applyRelations(db.url);
    targets = await startTargets(kind, db.url, key, i);
    for (const page of CHOSEN) await runPage(kind, targets, page);
  } finally {
    for (const t of targets) await t.server.stop();
    await db.drop();
  }
}

const section = report({
  before: args.before,
  cells,
  refusals,
  kinds: KINDS,
  pages: CHOSEN,
  connections: CONNECTIONS,
  duration: DURATION,
  rounds: ROUNDS,
  date: utcNow(),
  machine: await machineLine(KINDS),
});
record(section, args['dry-run']);
