// Attack scenario "fan-out" (issue 16, finding 7): one key opens many SSE `tradeAdded`
// subscriptions to one symbol (half read their streams, half never read a byte), then the CLI
// imports a burst of trades for that symbol in another process, publishing them through Redis.
// Reports how the subscriptions were answered, how /healthz held up meanwhile, what the reading
// subscribers received and how the silent ones were ended.
//
// The server must run with REDIS_URL (the CLI's events reach it only through Redis); `fanOut`
// gives the CLI `options.redisUrl`. One key holds at most SUBSCRIPTIONS_PER_CALLER (20) of them:
// the rest are refused, which is the answer to the attack; to measure the fan-out of all of them,
// start the server with SUBSCRIPTIONS_PER_CALLER=1000.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { ROOT } from '../../src/config.js';
import { JWT_SECRET, median, type Server } from '../harness.js';
import { tally, watch, type AttackReport } from './common.js';

const SYMBOL = 'FANOUT';
/** Every field of a trade: ~330 bytes an event, 10 MB a subscriber for 30,000 trades, more than a socket's buffers hold. */
const BODY = JSON.stringify({
  query: `subscription { tradeAdded(symbol: "${SYMBOL}") { id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time } }`,
});
/** After the import, how long the readers may stay silent before delivery counts as over. */
const QUIET_MS = 5_000;
/** Longest wait for delivery after the import. */
const SETTLE_MS = 120_000;
/** How long the silent subscribers read, at last, what waits for them. */
const DRAIN_MS = 10_000;
const NEXT = Buffer.from('event: next\n');

/** What one subscriber was answered: status, `next` events seen, error codes in events, and how its stream ended. */
interface Seen {
  status: number | 'error';
  events: number;
  codes: string[];
  /** `complete` (the event), `closed` (the body ended without it), `cut` (connection reset), `open` (still running). */
  end: 'complete' | 'closed' | 'cut' | 'open';
  lastEventAt: number;
}

const seen = (): Seen => ({ status: 'error', events: 0, codes: [], end: 'open', lastEventAt: performance.now() });

/** Counts the `next` events, error codes and `complete` that `chunk` holds. */
function count(s: Seen, chunk: Buffer): void {
  for (let i = chunk.indexOf(NEXT); i >= 0; i = chunk.indexOf(NEXT, i + NEXT.length)) s.events++;
  if (chunk.includes('"errors"')) for (const m of chunk.toString().matchAll(/"code":"([A-Z_]+)"/g)) s.codes.push(m[1]!);
  if (chunk.includes('event: complete')) s.end = 'complete';
  s.lastEventAt = performance.now();
}

/**
 * One subscriber on a raw socket (fetch would read into buffers of its own, and a client that
 * does not read would never look slow to the server; raw, the readers also cost this process
 * less). `reads`: it counts what comes as it comes; else it pauses once the response's head is
 * there, and `drain` reads at last what waits for it, for at most `ms`.
 */
function subscriber(
  server: Server,
  key: string,
  reads: boolean,
): Promise<{ seen: Seen; drain(ms: number): Promise<void>; close(): void }> {
  const { hostname, port } = new URL(server.base);
  const s = seen();
  const socket = net.connect(Number(port), hostname);
  let tail: Buffer = Buffer.alloc(0);
  // TCP may split `event: next` anywhere: the seam of two chunks is searched too (fewer bytes than
  // it has on either side, so nothing is counted twice)
  const take = (chunk: Buffer) => {
    count(s, Buffer.concat([tail, chunk.subarray(0, NEXT.length - 1)]));
    count(s, chunk);
    tail = chunk.subarray(Math.max(0, chunk.length - NEXT.length + 1));
  };
  let closed = false;
  socket.on('error', () => s.end === 'open' && (s.end = 'cut'));
  socket.on('end', () => s.end === 'open' && (s.end = 'closed'));
  socket.on('close', () => (closed = true));
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\n` +
      `X-API-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY}`,
  );
  const drain = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const timer = setTimeout(() => socket.destroy(), ms);
      socket.on('data', take);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.resume();
    });
  return new Promise((resolve) => {
    socket.once('data', (head: Buffer) => {
      s.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head.toString('latin1'))?.[1] ?? 0);
      take(head);
      if (reads) socket.on('data', take);
      else socket.pause();
      resolve({ seen: s, drain, close: () => socket.destroy() });
    });
    socket.once('error', () => resolve({ seen: s, drain: async () => {}, close() {} }));
  });
}

/** `cli import trades -` in a process of its own, with REDIS_URL, fed `trades` generated trades of SYMBOL. */
function importTrades(
  databaseUrl: string,
  redisUrl: string,
  trades: number,
): Promise<{ code: number | null; ms: number; output: string }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'import', 'trades', '-'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, NODE_ENV: 'production', JWT_SECRET },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const sip = 1_795_208_400_000_000_000n;
  // sequence numbers of this run only: a second run on the same database inserts (and publishes) again
  const first = BigInt(Date.now()) * 100_000n;
  const lines: string[] = [];
  for (let i = 0; i < trades; i++) {
    lines.push(
      `{"symbol":"${SYMBOL}","conditions":[12],"exchange":4,"id":"f${i}","price":${100 + (i % 100) / 100},"sequence_number":${first + BigInt(i)},"sip_timestamp":${sip + BigInt(i) * 1000n},"size":${1 + (i % 500)},"tape":3}`,
    );
  }
  child.stdin!.end(`${lines.join('\n')}\n`);
  return new Promise((resolve) =>
    child.on('exit', (code) => resolve({ code, ms: Math.round(performance.now() - t0), output })),
  );
}

const tallied = (keys: string[]) => {
  const by: Record<string, number> = {};
  for (const k of keys) by[k] = (by[k] ?? 0) + 1;
  return JSON.stringify(by);
};
const spread = (xs: number[]) =>
  xs.length ? `min ${Math.min(...xs)}, median ${median(xs)}, max ${Math.max(...xs)}` : 'none';

export async function fanOut(
  server: Server,
  key: string,
  options: { databaseUrl: string; redisUrl: string; subscribers?: number; trades?: number },
): Promise<AttackReport> {
  const subscribers = options.subscribers ?? 200;
  const trades = options.trades ?? 30_000;
  const watching = watch(server);

  // reading and silent ones alternate, so a cap keeps as many of each; 10 at a time
  const subs: Awaited<ReturnType<typeof subscriber>>[] = [];
  for (let i = 0; i < subscribers; i += 10)
    subs.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, subscribers - i) }, (_, j) => subscriber(server, key, (i + j) % 2 === 0)),
      )),
    );
  const readers = subs.filter((_, i) => i % 2 === 0);
  const silents = subs.filter((_, i) => i % 2 === 1);
  const answered: Record<string, number> = {};
  for (const { seen: s } of subs) tally(answered, s.status);
  const live = readers.filter((r) => r.seen.status === 200);

  const imported = await importTrades(options.databaseUrl, options.redisUrl, trades);
  // delivery is over when every reader has every trade or ended, or none got anything for
  // QUIET_MS while the server answers (a server too busy to answer is not done)
  const deadline = performance.now() + SETTLE_MS;
  const answers = () =>
    fetch(`${server.base}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.ok,
      () => false,
    );
  while (performance.now() < deadline) {
    if (live.every((r) => r.seen.events >= trades || r.seen.end !== 'open')) break;
    if (live.every((r) => performance.now() - r.seen.lastEventAt > QUIET_MS) && (await answers())) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const held = await watching.stop();

  // the silent ones read at last what waits for them
  await Promise.all(silents.map((s) => s.drain(DRAIN_MS)));
  for (const r of readers) r.close();

  const accepted = (list: { seen: Seen }[]) => list.map((x) => x.seen).filter((x) => x.status === 200);
  const [liveSeen, silentSeen] = [accepted(readers), accepted(silents)];
  return {
    scenario: 'fan-out',
    sent: `${subscribers} SSE tradeAdded subscriptions with one key (every other one never reads), then ${trades} trades imported by the CLI through Redis`,
    answered,
    ...held,
    notes: [
      `import: exit ${imported.code} in ${imported.ms} ms${imported.code === 0 ? '' : `: ${imported.output.trim().split('\n').slice(-3).join(' / ')}`}`,
      `reading subscribers accepted (${liveSeen.length}): trades received of ${trades}: ${spread(liveSeen.map((x) => x.events))}; error codes ${tallied(liveSeen.flatMap((x) => x.codes))}`,
      `silent subscribers accepted (${silentSeen.length}): trades waiting for them when they read at last: ${spread(silentSeen.map((x) => x.events))}; error codes ${tallied(silentSeen.flatMap((x) => x.codes))}; their streams: ${tallied(silentSeen.map((x) => x.end))}`,
      `refused: error codes ${tallied(
        subs
          .map((x) => x.seen)
          .filter((x) => x.status !== 200)
          .flatMap((x) => x.codes),
      )}`,
    ],
  };
}
