// The section bench/peers.ts prints (and appends to bench/RESULTS.md): one table of every page,
// connection count and server, and the goals met or not.
import { execFileSync } from 'node:child_process';
import { markdownTable, type DatabaseKind, type LoadResult } from '../harness.js';
import type { Page } from './pages.js';

export type ServerName = 'ours' | 'before' | 'nodirect' | 'bare' | 'postgraphile';

export interface Run extends LoadResult {
  /** Server CPU (user + system) during the run, ms. */
  cpuMs: number;
  /** PostgreSQL's CPU (every postgres process's user + system) during the run, ms. */
  dbCpuMs: number;
  /** Largest resident set of the server during the run, MB. */
  peakRss: number;
}

export interface Cell {
  kind: DatabaseKind;
  page: string;
  connections: number;
  server: ServerName;
  runs: Run[];
  /** SQL statements one page costs on this server. */
  statements: number;
}

export interface Refusal {
  kind: DatabaseKind;
  page: string;
  why: string;
}

export interface ReportInput {
  /** The checkout of the `before` gateway (`--before`), if one ran. */
  before?: string | undefined;
  cells: Cell[];
  refusals: Refusal[];
  kinds: readonly DatabaseKind[];
  pages: readonly Page[];
  connections: readonly number[];
  duration: number;
  rounds: number;
  date: string;
  machine: string;
}

const SERVERS: readonly ServerName[] = ['ours', 'before', 'nodirect', 'bare', 'postgraphile'];
const LABEL: Record<ServerName, string> = {
  ours: 'gateway',
  before: 'gateway before',
  nodirect: 'gateway without the direct path',
  bare: 'bare stack',
  postgraphile: 'PostGraphile 5',
};
/** A fast path earns its place when the gateway with it serves at least this much more of some page than without it. */
export const FAST_PATH_GAIN = 1.15;

/** Pages/s over all rounds, latency as the mean of the rounds' percentiles, CPU per page, peak RSS. */
function summary(c: Cell) {
  const total = c.runs.reduce((s, r) => s + r.total, 0);
  const seconds = c.runs.reduce((s, r) => s + r.seconds, 0);
  const mean = (f: (r: Run) => number) => c.runs.reduce((s, r) => s + f(r), 0) / c.runs.length;
  return {
    rate: total / seconds,
    rounds: c.runs.map((r) => r.total / r.seconds),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    cpuMsPerPage: c.runs.reduce((s, r) => s + r.cpuMs, 0) / total,
    dbCpuMsPerPage: c.runs.reduce((s, r) => s + r.dbCpuMs, 0) / total,
    peakRss: Math.max(...c.runs.map((r) => r.peakRss)),
  };
}

const times = (x: number) => `${x.toFixed(2)}×`;

function rows(input: ReportInput): (string | number)[][] {
  const out: (string | number)[][] = [];
  const find = (kind: DatabaseKind, page: string, connections: number, server: ServerName) =>
    input.cells.find(
      (c) =>
        c.kind === kind && c.page === page && c.connections === connections && c.server === server && c.runs.length,
    );
  for (const kind of input.kinds) {
    // the peer each row is measured against: PostGraphile on PostgreSQL, our bare stack on SQLite
    const peer: ServerName = kind === 'postgresql' ? 'postgraphile' : 'bare';
    for (const page of input.pages) {
      for (const connections of input.connections) {
        const base = find(kind, page.name, connections, peer);
        for (const server of SERVERS) {
          const c = find(kind, page.name, connections, server);
          if (!c) continue;
          const s = summary(c);
          const ratio = base && server !== peer ? `**${times(s.rate / summary(base).rate)}**` : '—';
          out.push([
            kind,
            page.name,
            connections,
            LABEL[server],
            `${s.rate.toFixed(0)} (${s.rounds.map((x) => x.toFixed(0)).join(', ')})`,
            `${s.p50.toFixed(0)} / ${s.p99.toFixed(0)}`,
            ratio,
            c.statements,
            s.cpuMsPerPage.toFixed(2),
            s.dbCpuMsPerPage.toFixed(2),
            s.peakRss.toFixed(0),
          ]);
        }
      }
    }
  }
  return out;
}

/**
 * Each fast path measured on its own: the gateway's pages/s over the same gateway's with the path
 * off, same rounds; a path is worth keeping when some page gains FAST_PATH_GAIN or more.
 */
function fastPaths(input: ReportInput): string[] {
  const variants = (['nodirect'] as const).filter((v) => input.cells.some((c) => c.server === v && c.runs.length));
  if (!variants.length) return [];
  const rate = (kind: DatabaseKind, page: string, connections: number, server: ServerName) => {
    const c = input.cells.find(
      (x) =>
        x.kind === kind && x.page === page && x.connections === connections && x.server === server && x.runs.length,
    );
    return c ? summary(c).rate : undefined;
  };
  const best = new Map<string, number>();
  const out: (string | number)[][] = [];
  for (const kind of input.kinds) {
    for (const page of input.pages) {
      for (const connections of input.connections) {
        const ours = rate(kind, page.name, connections, 'ours');
        if (ours === undefined) continue;
        const row: (string | number)[] = [kind, page.name, connections, ours.toFixed(0)];
        for (const v of variants) {
          const without = rate(kind, page.name, connections, v);
          const ratio = without === undefined ? undefined : ours / without;
          if (ratio !== undefined) best.set(v, Math.max(best.get(v) ?? 0, ratio));
          row.push(without === undefined ? '—' : without.toFixed(0), ratio === undefined ? '—' : `**${times(ratio)}**`);
        }
        out.push(row);
      }
    }
  }
  const name = { nodirect: 'the direct path' } as const;
  return [
    '',
    `Each fast path on its own: the gateway's pages/s over the same gateway's with the path off (${variants.map((v) => `${v}: GRAPHQL_DIRECT=false`).join(', ')}), same rounds. A path stays if some page gains ≥ ${Math.round((FAST_PATH_GAIN - 1) * 100)}%.`,
    '',
    markdownTable(
      [
        'database',
        'page',
        'connections',
        'gateway pages/s',
        ...variants.flatMap((v) => [`without ${name[v]}`, 'with / without']),
      ],
      out,
    ),
    '',
    ...variants.map(
      (v) =>
        `- ${name[v]}: best gain ${times(best.get(v) ?? NaN)} (${(best.get(v) ?? 0) >= FAST_PATH_GAIN ? 'at or above' : 'below'} the bar in this run; a gain on a shared machine counts once another run repeats it).`,
    ),
  ];
}

/** The goals of the comparison on PostgreSQL, each met or not, with its numbers. */
function goals(input: ReportInput): string[] {
  if (!input.kinds.includes('postgresql'))
    return ['No PostGraphile on SQLite: the goals against it are not measured here.'];
  const rate = (page: string, connections: number, server: ServerName) => {
    const c = input.cells.find(
      (x) =>
        x.kind === 'postgresql' &&
        x.page === page &&
        x.connections === connections &&
        x.server === server &&
        x.runs.length,
    );
    return c ? summary(c).rate : undefined;
  };
  const verdict = (page: string, target: number) =>
    input.connections.map((n) => {
      const ours = rate(page, n, 'ours');
      const theirs = rate(page, n, 'postgraphile');
      if (ours === undefined || theirs === undefined) return `${page} at ${n}: not measured`;
      return `${page} at ${n}: ${times(ours / theirs)} (${ours / theirs >= target ? 'met' : 'NOT met'})`;
    });
  const peak = (server: ServerName) => {
    const rss = input.cells
      .filter((c) => c.kind === 'postgresql' && c.server === server)
      .flatMap((c) => c.runs.map((r) => r.peakRss));
    return rss.length ? Math.max(...rss) : undefined;
  };
  const [ours, theirs] = [peak('ours'), peak('postgraphile')];
  const rss =
    ours === undefined || theirs === undefined
      ? 'not measured'
      : `gateway ${ours.toFixed(0)} MB, PostGraphile ${theirs.toFixed(0)} MB (${ours <= theirs ? 'met' : 'NOT met'})`;
  return [
    // issue 26's targets: the company page at twice PostGraphile's pages/s, the list and point pages at par
    `- Gateway ≥ 2.0× PostGraphile pages/s on the company page: ${verdict('company', 2).join('; ')}.`,
    `- Gateway ≥ 1.0× PostGraphile pages/s on the list and point pages: ${[...verdict('list', 1), ...verdict('point', 1)].join('; ')}.`,
    `- Gateway peak RSS ≤ PostGraphile's over the run: ${rss}.`,
  ];
}

export function report(input: ReportInput): string {
  const peers = input.kinds.includes('postgresql')
    ? "PostGraphile 5.1.5 with the amber preset (`bench/peers/postgraphile-server.ts`: no GraphiQL, watch or explain; a pg pool of 10, as the gateway's Prisma pool; plain `node`, no heap flags) over the same schema, its relations by symbol as STABLE SQL functions exposed as computed columns (`bench/peers/relations.sql`)"
    : 'no PostGraphile (it needs PostgreSQL): on SQLite the gateway is compared with the bare stack only';
  const table = markdownTable(
    [
      'database',
      'page',
      'connections',
      'server',
      'pages/s (rounds)',
      'p50 / p99 ms',
      'vs peer',
      'SQL statements / page',
      'server CPU ms / page',
      'PostgreSQL CPU ms / page',
      'peak RSS MB',
    ],
    rows(input),
  );
  return [
    input.kinds.includes('postgresql')
      ? `## Peers: the gateway, its bare stack and PostGraphile 5 on the same data, ${input.date} UTC`
      : `## Peers on SQLite: the gateway against its bare stack (no PostGraphile), ${input.date} UTC`,
    '',
    input.machine,
    `Default sample data (\`cli seed\`: 50 securities, all covered), one scratch database. Servers each in their own process: the gateway (\`src/server.ts\` with \`npm start\`'s flags, NODE_ENV=production, an enterprise user's API key made with the CLI, rate limits raised out of the way); the bare stack (\`bench/bare-yoga-server.ts\`: the same schema and resolvers behind a bare Yoga); ${peers}. autocannon drives them from a fourth process on the same CPUs; ${input.rounds} round(s) of ${input.duration} s per page, connection count and server, the servers alternating. Before a page is timed the answers are compared as records (field names mapped, date-times as instants, cursors left out; the bare stack's byte-equal to the gateway's). "vs peer": pages/s over PostGraphile's (SQLite: over the bare stack's). Statements: the gateway's \`mdg_db_statements_total\` (/metrics) and the bare stack's count around one request; PostGraphile's, the queries its pool's clients sent. CPU: utime + stime of the server process over the load run ÷ pages; PostgreSQL's, of every \`postgres\` process on the machine the same way. RSS: the server's, sampled every 250 ms under load.`,
    '',
    ...(input.cells.some((c) => c.server === 'nodirect')
      ? [
          '"without the direct path": the gateway started the same way with `GRAPHQL_DIRECT=false`, in the same rounds.',
          '',
        ]
      : []),
    ...(input.before
      ? [
          `"gateway before": the gateway of the checkout \`${input.before}\` (\`git -C ${input.before} log -1 --format=%h\`: ${commitOf(input.before)}), started the same way, in the same rounds.`,
          '',
        ]
      : []),
    'Pages:',
    ...input.pages.map((p) => `- ${p.title}`),
    '',
    table,
    '',
    ...goals(input),
    ...fastPaths(input),
    ...input.refusals.map((r) => `- Not measured on ${r.kind}: ${r.page}, ${r.why}.`),
  ].join('\n');
}

function commitOf(checkout: string): string {
  try {
    return execFileSync('git', ['-C', checkout, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}
