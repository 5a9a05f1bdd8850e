// The heavy half of our attack suite (the rest runs in `npm test`: test/attack/): requests, bursts
// and callers that once took the service down, sent to the production server in its own process,
// each scenario against a fresh server over the same seeded database. Reports how each was
// answered, whether the process survived, its largest RSS and its slowest /healthz.
//
//   npm run bench -- attack [--scenarios alias-bomb,flood,ocr-burst,fan-out,fan-out-uncapped,metric-sorts,
//                             rebuild-storm,search-load,dripping-bodies,half-sent-frames] [--securities 50000]
//                           [--server-root DIR] [--label after] [--dry-run]
//
// The last five are issue 27's (bench/attack/time.ts; search-load is the rebuild storm without its
// writes, its control): each beside a victim's small query, with the
// server's event-loop delay. The master is the sample's securities plus `--securities` more
// (default 50,000 when metric-sorts, rebuild-storm or search-load run, as the attacker had).
//
// --server-root runs the server of another checkout of this repository (e.g. a `git worktree` of
// an older commit, with node_modules and generated/ in place) against the same database and keys:
// the "before" of a before/after pair.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/config.js';
import { fanOut } from './attack/fan-out.js';
import { ocrBurst } from './attack/ocr-burst.js';
import { aliasBomb, largestPagesFlood } from './attack/requests.js';
import { drippingBodies, halfSentFrames, METRICS_TOKEN, metricSorts, rebuildStorm } from './attack/time.js';
import type { AttackReport } from './attack/common.js';
import {
  cli,
  createKey,
  databaseKinds,
  machineLine,
  markdownTable,
  record,
  scratchDatabase,
  startFlags,
  startGateway,
  utcNow,
  type Server,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    scenarios: { type: 'string' },
    'server-root': { type: 'string' },
    label: { type: 'string' },
    securities: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const [KIND] = databaseKinds(args.db ?? 'postgresql');
const ROOT_UNDER_TEST = path.resolve(args['server-root'] ?? ROOT);
const LABEL = args.label ?? (args['server-root'] ? 'before' : 'after');

type Keys = Record<'free' | 'pro' | 'enterprise', string>;
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
interface Scenario {
  /** More environment for its server. */
  env?: Record<string, string>;
  run(server: Server, keys: Keys, databaseUrl: string): Promise<AttackReport | AttackReport[]>;
}
const SCENARIOS: Record<string, Scenario> = {
  'alias-bomb': { run: (server, keys) => aliasBomb(server, keys.pro) },
  flood: { run: (server, keys) => largestPagesFlood(server, keys.enterprise) },
  'ocr-burst': { run: (server, keys) => ocrBurst(server, keys.enterprise) },
  // one key opening 200 streams: past SUBSCRIPTIONS_PER_CALLER (20) they are refused
  'fan-out': {
    env: { REDIS_URL },
    run: (server, keys, databaseUrl) => fanOut(server, keys.enterprise, { databaseUrl, redisUrl: REDIS_URL }),
  },
  // the fan-out itself: the per-caller cap raised so that all 200 stream
  'fan-out-uncapped': {
    env: { REDIS_URL, SUBSCRIPTIONS_PER_CALLER: '1000' },
    run: async (server, keys, databaseUrl) => ({
      ...(await fanOut(server, keys.enterprise, { databaseUrl, redisUrl: REDIS_URL })),
      scenario: 'fan-out, SUBSCRIPTIONS_PER_CALLER=1000',
    }),
  },
  'metric-sorts': { run: (server, keys) => metricSorts(server, keys.free, keys.enterprise) },
  'rebuild-storm': { run: (server, keys, databaseUrl) => rebuildStorm(server, databaseUrl, keys.pro, keys.enterprise) },
  'search-load': {
    run: (server, keys, databaseUrl) => rebuildStorm(server, databaseUrl, keys.pro, keys.enterprise, null),
  },
  'dripping-bodies': { run: (server, keys) => drippingBodies(server, keys.enterprise, keys.pro) },
  'half-sent-frames': { run: (server, keys) => halfSentFrames(server, keys.enterprise, keys.pro) },
};
/** The scenarios that want the attacker's large master. */
const LARGE_MASTER = ['metric-sorts', 'rebuild-storm', 'search-load'];
const chosen = (args.scenarios ?? Object.keys(SCENARIOS).join(',')).split(',');
for (const name of chosen)
  if (!SCENARIOS[name]) throw new Error(`--scenarios: one of ${Object.keys(SCENARIOS).join(', ')}; got ${name}`);

const scratch = scratchDatabase(KIND!, 'attack');
const reports: AttackReport[] = [];
try {
  console.log(`${KIND}: seeding the default sample; server from ${ROOT_UNDER_TEST} (${LABEL})`);
  const extra = Number(args.securities ?? (chosen.some((n) => LARGE_MASTER.includes(n)) ? 50_000 : 0));
  cli(scratch.url, extra ? ['seed', '--securities', String(extra)] : ['seed']);
  const keys: Keys = {
    free: createKey(scratch.url, 'free'),
    pro: createKey(scratch.url, 'pro'),
    enterprise: createKey(scratch.url, 'enterprise'),
  };
  for (const [i, name] of chosen.entries()) {
    const scenario = SCENARIOS[name]!;
    const server = await startGateway(
      scratch.url,
      4360 + i,
      { RATE_LIMIT_FREE: '60', METRICS_TOKEN, ...scenario.env },
      ROOT_UNDER_TEST,
    );
    try {
      const got = await scenario.run(server, keys, scratch.url);
      for (const report of Array.isArray(got) ? got : [got]) {
        reports.push(report);
        console.log(
          `  ${report.scenario}: ${JSON.stringify(report.answered)}, alive ${report.alive}, RSS max ${report.rssMaxMb} MB, /healthz max ${report.healthMaxMs} ms (${report.healthFailures} failed)`,
        );
        if (!report.alive)
          console.log(
            `    last lines:\n      ${server
              .lines()
              .slice(-5)
              .map((l) => l.slice(0, 300))
              .join('\n      ')}`,
          );
      }
    } finally {
      await server.stop();
    }
  }
} finally {
  await scratch.drop();
}

const rows = reports.map((r) => [
  r.scenario,
  r.sent,
  Object.entries(r.answered)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', '),
  r.alive ? 'yes' : '**no**',
  r.rssMaxMb,
  `${r.healthMaxMs}${r.healthFailures ? ` (**${r.healthFailures} failed**)` : ''}`,
  r.notes.join('; '),
]);
record(
  [
    `## Attack (${LABEL}): ${chosen.join(', ')}, ${utcNow()} UTC`,
    '',
    await machineLine([KIND!]),
    `Server: \`src/server.ts\` of ${ROOT_UNDER_TEST === ROOT ? 'this commit' : `\`${ROOT_UNDER_TEST}\``} in its own process (NODE_ENV=production, \`npm start\`'s node flags \`${startFlags(ROOT_UNDER_TEST).join(' ')}\`, default sample data), a fresh one per scenario; keys made with the CLI. /healthz probed every 200 ms with a 3 s timeout; RSS from /proc every 200 ms.`,
    '',
    markdownTable(
      ['scenario', 'sent', 'answered (HTTP status: count)', 'alive', 'RSS max MB', '/healthz max ms', 'notes'],
      rows,
    ),
  ].join('\n'),
  args['dry-run'],
);
