// The young generation's size against the CPU a list page costs: the bare stack
// (bench/bare-yoga-server.ts) serving the list of 50 securities × (5 ratings + 5 news) under
// autocannon, once per --max-semi-space-size, the sizes alternating round by round. Reports
// requests/s, the server's CPU ms per request (from /proc) and its RSS after the run. Prints only.
//
//   npm run bench -- heap-flags [--db postgresql] [--sizes 8,16,32,64] [--connections 10] [--duration 5] [--rounds 3]
import { parseArgs } from 'node:util';
import {
  cli,
  databaseKinds,
  loadTest,
  markdownTable,
  median,
  processCpuMs,
  rssMb,
  scratchDatabase,
  startFlags,
  startProcess,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    sizes: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const KINDS = databaseKinds(args.db ?? 'postgresql');
const SIZES = (args.sizes ?? '8,16,32,64').split(',').map(Number);
const CONNECTIONS = Number(args.connections ?? 10);
const DURATION = Number(args.duration ?? 5);
const ROUNDS = Number(args.rounds ?? 3);
const QUERY = `{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 50) { nodes { symbol name
  ratings(first: 5) { nodes { firm action rating priceTarget createdAt } } news(first: 5) { nodes { headline type createdAt } } } } }`;

const oldSpace = startFlags().filter((f) => f.startsWith('--max-old-space-size'));
const rows: (string | number)[][] = [];
for (const [k, kind] of KINDS.entries()) {
  const scratch = scratchDatabase(kind, 'heap_flags');
  try {
    cli(scratch.url, ['seed', '--securities', '50']);
    const results = new Map<number, { rps: number[]; cpu: number[]; rss: number[] }>(
      SIZES.map((s) => [s, { rps: [], cpu: [], rss: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of round % 2 ? [...SIZES].reverse() : SIZES) {
        // NODE_ENV as the Dockerfile sets it: graphql-js reads it once, at import
        const server = await startProcess(
          'bench/bare-yoga-server.ts',
          4350 + k,
          { DATABASE_URL: scratch.url, NODE_ENV: 'production' },
          [],
          '/healthz',
          [...oldSpace, `--max-semi-space-size=${size}`],
        );
        try {
          const opts = {
            url: `${server.base}/graphql`,
            connections: CONNECTIONS,
            method: 'POST' as const,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: QUERY }),
          };
          await loadTest({ ...opts, duration: 2 }); // warm-up
          const c0 = processCpuMs(server.pid);
          const r = await loadTest({ ...opts, duration: DURATION });
          if (r.non2xx || r.errors) throw new Error(`semi-space ${size}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          const res = results.get(size)!;
          res.rps.push(r.total / r.seconds);
          res.cpu.push((processCpuMs(server.pid) - c0) / r.total);
          res.rss.push(rssMb(server.pid));
          console.log(
            `${kind} round ${round + 1} semi-space ${size} MB: ${(r.total / r.seconds).toFixed(0)} req/s, ${res.cpu.at(-1)!.toFixed(2)} CPU ms/request, RSS ${res.rss.at(-1)!.toFixed(0)} MB`,
          );
        } finally {
          await server.stop();
        }
      }
    }
    for (const [size, r] of results)
      rows.push([kind, size, median(r.rps).toFixed(0), median(r.cpu).toFixed(2), Math.max(...r.rss).toFixed(0)]);
  } finally {
    await scratch.drop();
  }
}
console.log(
  `\nbare stack, list of 50 × (5 + 5), ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds (median; RSS the largest after a run); ${oldSpace.join(' ')}\n`,
);
console.log(
  markdownTable(['database', '--max-semi-space-size (MB)', 'requests/s', 'server CPU ms/request', 'RSS MB'], rows),
);
