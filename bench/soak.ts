// Soak: 60 s of mixed GraphQL and REST traffic at 50 connections against the production server
// (src/server.ts in its own process), with keys of a free, a pro and an enterprise user made with
// the CLI. Counts answers by status (no 5xx allowed), samples the server's RSS from /proc every
// second (must stay under 300 MB) and reads its log for error lines. Appends a dated section to
// bench/RESULTS.md.
//
//   npm run bench -- soak [--seconds 60] [--connections 50] [--server-root DIR] [--dry-run]
//
// --server-root runs the server of another checkout of this repository (a `git worktree` of an
// older commit) under this mix, for a before/after in one run; server CPU per request (from /proc)
// is the column to compare on a shared machine, where requests a second follow the neighbours' load.
//
// The mix, walked in order by every connection: GraphQL company page, trades page, ratings and
// search; REST logos, search, balance sheets, ratings, news, trades, quotes and lite fundamentals;
// and two answers that must be refusals: the free key asking for trades (403, both APIs). The free
// tier keeps a real limit (RATE_LIMIT_FREE=3000 a minute), so 429s join the mix once it is spent.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/config.js';
import {
  cli,
  createKey,
  databaseKinds,
  loadTest,
  machineLine,
  markdownTable,
  processCpuMs,
  record,
  rssMb,
  scratchDatabase,
  startGateway,
  utcNow,
  type LoadResult,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    'server-root': { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const KINDS = databaseKinds(args.db);
const SECONDS = Number(args.seconds ?? 60);
const CONNECTIONS = Number(args.connections ?? 50);
const RSS_LIMIT_MB = 300;
const FREE_PER_MINUTE = 3000;
const SERVER_ROOT = path.resolve(args['server-root'] ?? ROOT);
const serverCommit = () =>
  execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: SERVER_ROOT, encoding: 'utf8' }).trim();

const gql = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });
const COMPANY = gql(
  `query($s: String!) { security(symbol: $s) { symbol name logo { png { url } } latestQuote { bidPrice askPrice time } latestBalanceSheet { reportingPeriodEnd totalAssets } ratings(first: 5) { nodes { firm rating } } news(first: 5) { nodes { headline } } } }`,
  { s: 'NVLX' },
);
const TRADES = gql(
  `query($s: String!) { trades(symbol: $s, first: 100) { pageInfo { endCursor hasNextPage } nodes { price size sipTimestamp } } }`,
  { s: 'ORBT' },
);
const RATINGS = gql(`{ ratings(first: 20) { nodes { firm ticker rating createdAt } } }`);
const SEARCH = gql(`{ securities(search: "N", searchType: SYMBOL, first: 10) { totalCount nodes { symbol name } } }`);

/** A line of the server's log that reports an error (pino JSON at error/fatal, or any other line naming one). */
function isErrorLine(line: string): boolean {
  if (line.startsWith('{')) return /"level":"(error|fatal)"/.test(line);
  return /error|exception|unhandled|ECONN|EPIPE/i.test(line);
}

interface Outcome {
  kind: string;
  result: LoadResult;
  rss: number[];
  /** The server's CPU (user + system) per answered request, in ms. */
  cpuMs: number;
  lines: number;
  errorLines: string[];
  warnLines: number;
}
const outcomes: Outcome[] = [];

for (const [i, kind] of KINDS.entries()) {
  console.log(`\n${kind}: seeding the default sample`);
  const scratch = scratchDatabase(kind, 'soak');
  try {
    cli(scratch.url, ['seed']);
    const keys = {
      free: createKey(scratch.url, 'free'),
      pro: createKey(scratch.url, 'pro'),
      enterprise: createKey(scratch.url, 'enterprise'),
    };
    const server = await startGateway(scratch.url, 4330 + i, { RATE_LIMIT_FREE: String(FREE_PER_MINUTE) }, SERVER_ROOT);
    try {
      const h = (key: string, json = false) => ({
        'x-api-key': key,
        ...(json ? { 'content-type': 'application/json' } : {}),
      });
      const post = (body: string, key: string) => ({
        path: '/graphql',
        method: 'POST' as const,
        headers: h(key, true),
        body,
      });
      const get = (path: string, key: string) => ({ path, method: 'GET' as const, headers: h(key) });
      const requests = [
        post(COMPANY, keys.enterprise),
        get('/api/v1/logos?symbols=NVLX,ORBT', keys.free),
        post(TRADES, keys.pro),
        get('/search/api/v1/securities?search=N&search_type=symbol', keys.free),
        get('/stocks/v1/fundamentals/balance-sheet?symbols=NVLX&limit=10', keys.pro),
        post(RATINGS, keys.free),
        get('/rating/api/v1/ratings?symbol=ORBT&page_size=10', keys.enterprise),
        get('/news/api/v1/news?symbol=NVLX&page_size=5', keys.pro),
        post(SEARCH, keys.enterprise),
        get('/stocks/v3/trades/NVLX?limit=100', keys.pro),
        get('/stocks/v3/quotes/ORBT?limit=50&order=asc', keys.enterprise),
        get('/delivery/api/v1/fundamentals/lite?symbol=NVLX&page_size=4', keys.free),
        get('/stocks/v3/trades/NVLX?limit=5', keys.free), // 403: trades need pro
        post(TRADES, keys.free), // GraphQL answers 200 with a FORBIDDEN error on the field
      ];
      const linesBefore = server.lines().length;
      const rss: number[] = [rssMb(server.pid)];
      const sampler = setInterval(() => rss.push(rssMb(server.pid)), 1000);
      const cpu0 = processCpuMs(server.pid);
      const result = await loadTest({ url: server.base, connections: CONNECTIONS, duration: SECONDS, requests });
      clearInterval(sampler);
      const cpuMs = (processCpuMs(server.pid) - cpu0) / result.total;
      rss.push(rssMb(server.pid));
      const log = server.lines().slice(linesBefore);
      const errorLines = log.filter(isErrorLine);
      const warnLines = log.filter((l) => /"level":"warn"/.test(l)).length;
      outcomes.push({ kind, result, rss, cpuMs, lines: log.length, errorLines, warnLines });
      console.log(
        `  ${(result.total / result.seconds).toFixed(0)} req/s, ${cpuMs.toFixed(2)} ms server CPU a request, statuses ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, RSS ${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MB, ${log.length} log lines, ${errorLines.length} error lines`,
      );
      for (const l of errorLines.slice(0, 5)) console.log(`    ${l.slice(0, 300)}`);
    } finally {
      await server.stop();
    }
  } finally {
    await scratch.drop();
  }
}

const rows = outcomes.map((o) => {
  const s = o.result.statusCodes;
  return [
    o.kind,
    o.result.total.toLocaleString('en-US'),
    (o.result.total / o.result.seconds).toFixed(0),
    o.cpuMs.toFixed(2),
    `${o.result.p50} / ${o.result.p99}`,
    s['2xx']!,
    s['4xx']!,
    `**${s['5xx']}**`,
    o.result.errors,
    `${o.rss[0]!.toFixed(0)} → **${Math.max(...o.rss).toFixed(0)}** (end ${o.rss.at(-1)!.toFixed(0)})`,
    `${o.lines} / **${o.errorLines.length}** / ${o.warnLines}`,
  ];
});
const verdicts = outcomes.map((o) => {
  const ok5xx = o.result.statusCodes['5xx'] === 0;
  const unanswered = o.result.errors
    ? ` (but ${o.result.errors} requests got no answer within autocannon's 10 s timeout)`
    : '';
  const okRss = Math.max(...o.rss) < RSS_LIMIT_MB;
  const okLog = o.errorLines.length === 0;
  return `${o.kind}: zero 5xx ${ok5xx ? 'met' : 'NOT met'}${unanswered}, RSS < ${RSS_LIMIT_MB} MB ${okRss ? 'met' : 'NOT met'}, no error lines ${okLog ? 'met' : `NOT met (e.g. \`${o.errorLines[0]!.slice(0, 200)}\`)`}`;
});
const section = [
  `## Soak: ${SECONDS} s of mixed GraphQL + REST at ${CONNECTIONS} connections, ${utcNow()} UTC`,
  '',
  await machineLine(KINDS),
  ...(SERVER_ROOT === ROOT ? [] : [`Server: the checkout at \`${SERVER_ROOT}\` (commit ${serverCommit()}).`]),
  `\`src/server.ts\` in its own process (NODE_ENV=production, default sample data, RATE_LIMIT_FREE=${FREE_PER_MINUTE}/min, pro and enterprise unlimited for the run), autocannon from this process. Each connection walks a mix of 14 requests: 5 GraphQL (company page, trades page, ratings, search; trades with the free key: a FORBIDDEN field error in a 200) and 9 REST (logos, search, balance sheets, ratings, news, trades, quotes, lite fundamentals; trades with the free key: 403) with free, pro and enterprise keys made by \`cli users create\` + \`cli apikeys create\`. 4xx are the intended refusals (403) and the free key's rate limit (429). RSS from /proc/<pid>/status every second; log lines = what the server wrote to stdout/stderr during the run (error = pino level error/fatal, or a non-JSON line naming an error).`,
  '',
  markdownTable(
    [
      'database',
      'requests',
      'req/s',
      'server CPU ms / request',
      'p50 / p99 ms',
      '2xx',
      '4xx',
      '5xx',
      'socket errors',
      'RSS MB start → max',
      'log lines / error / warn',
    ],
    rows,
  ),
  '',
  `RSS every 10 s (MB): ${outcomes
    .map(
      (o) =>
        `${o.kind} ${o.rss
          .filter((_, i) => i % 10 === 0)
          .map((x) => x.toFixed(0))
          .join(' → ')}`,
    )
    .join('; ')}.`,
  '',
  `Targets: ${verdicts.join('; ')}.`,
].join('\n');
record(section, args['dry-run']);
