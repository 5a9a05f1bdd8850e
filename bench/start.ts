// `npm start` as a new user meets it: the first start in an empty data directory (the embedded
// PostgreSQL made, migrated, seeded with the sample data) until /healthz answers 200, then SIGTERM
// and a restart of the same directory, and the memory of the server and of its database once it
// serves. With `--before <checkout>` the same steps run for another checkout of this repository
// (an older commit with its own node_modules, e.g. one whose default database was SQLite), the two
// alternating run by run, so that other work on the machine weighs on both alike.
//
//   npm run bench -- start [--runs 3] [--before <checkout>] [--dry-run]
//
// Per checkout: the fastest and the median of the runs for the first start and the restart (ms
// from spawning `npm start` to the first 200), and after the first start the memory of the server
// process and of every PostgreSQL process of its data directory (postmaster and backends): PSS
// from /proc/<pid>/smaps_rollup, each shared page divided among the processes that map it, so the
// sum over PostgreSQL's processes counts its shared buffers once. Appends a dated section to
// bench/RESULTS.md.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/config.js';
import { machineLine, markdownTable, median, record, utcNow } from './harness.js';

const { values: args } = parseArgs({
  options: { runs: { type: 'string' }, before: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const RUNS = Number(args.runs ?? 3);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 20) throw new Error(`--runs: 1 to 20; got ${args.runs}`);
const CHECKOUTS = [
  { name: 'this checkout', root: ROOT },
  ...(args.before
    ? [{ name: `before (${path.basename(path.resolve(args.before))})`, root: path.resolve(args.before) }]
    : []),
];

interface Started {
  child: ChildProcess;
  ms: number;
}

/** A port nothing listens on now: a server a run left behind must not answer for the next. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function start(root: string, dataDir: string, port: number): Promise<Started> {
  const t0 = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: '', DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start in ${root} exited with ${child.exitCode}`);
    if (performance.now() - t0 > 180_000) throw new Error(`npm start in ${root}: no 200 from /healthz within 180 s`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, ms: performance.now() - t0 };
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('close', resolve));
  process.kill(-started.child.pid!, 'SIGTERM');
  await exited;
}

/** PSS (MB) of the server under npm, and of the PostgreSQL processes of `dataDir`. */
function memory(started: Started, dataDir: string): { server: number; database: number } {
  const pss = (pid: number) =>
    Number(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m)?.[1] ?? 0) / 1024;
  const pids = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number);
  const parentOf = new Map(
    pids.map((p) => [p, Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])] as const),
  );
  const descends = (pid: number, from: number): boolean =>
    pid === from || (pid > 1 && descends(parentOf.get(pid) ?? 0, from));
  // node itself, not the shell npm runs it under (whose one argument ends with the same words)
  const isNode = (pid: number) => {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return path.basename(argv[0] ?? '') === 'node' && argv.some((a) => a.endsWith('src/server.ts'));
  };
  const server = pids.find((p) => p !== started.child.pid && descends(p, started.child.pid!) && isNode(p));
  const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
  const postmaster = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : NaN;
  const database = pids
    .filter((p) => p === postmaster || parentOf.get(p) === postmaster)
    .reduce((sum, p) => sum + pss(p), 0);
  return { server: server ? pss(server) : NaN, database };
}

interface Sample {
  first: number;
  restart: number;
  server: number;
  database: number;
}
const samples = new Map<string, Sample[]>(CHECKOUTS.map((c) => [c.name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const checkout of CHECKOUTS) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
    fs.chmodSync(dataDir, 0o755); // as root, the embedded cluster runs as the user postgres
    const port = await freePort();
    try {
      const first = await start(checkout.root, dataDir, port);
      await new Promise((r) => setTimeout(r, 1000)); // the index read at listen, then a quiet process
      const mem = memory(first, dataDir);
      await stop(first);
      const again = await start(checkout.root, dataDir, port);
      await stop(again);
      samples.get(checkout.name)!.push({ first: first.ms, restart: again.ms, ...mem });
      console.log(
        `${checkout.name}, run ${run + 1}: first ${first.ms.toFixed(0)} ms, restart ${again.ms.toFixed(0)} ms, server ${mem.server.toFixed(0)} MB, database ${mem.database.toFixed(0)} MB`,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

const rows = CHECKOUTS.map((c) => {
  const s = samples.get(c.name)!;
  const ms = (xs: number[]) => `${Math.min(...xs).toFixed(0)} / ${median(xs).toFixed(0)}`;
  return [
    c.name,
    ms(s.map((x) => x.first)),
    ms(s.map((x) => x.restart)),
    median(s.map((x) => x.server)).toFixed(0),
    median(s.map((x) => x.database)).toFixed(0),
  ];
});
record(
  [
    `## npm start: first start and restart, ${utcNow()} UTC`,
    '',
    `${await machineLine([])} ${RUNS} run(s) per checkout, alternating; the machine's load average at the start: ${os.loadavg()[0]!.toFixed(1)}.`,
    '',
    markdownTable(
      [
        'checkout',
        'first start to /healthz 200, ms (best / median)',
        'restart, ms (best / median)',
        'server PSS, MB',
        'database PSS, MB (embedded PostgreSQL, all its processes)',
      ],
      rows,
    ),
  ].join('\n'),
  args['dry-run'],
);
