// The scenarios of issue 27 ("bounded by time") for `npm run bench -- attack`: callers whose work
// was bounded in units but not in time, or who held shared budgets without showing who they are.
// Each runs beside a victim, a small query sent one after another by another caller, measured
// first on the quiet server and then under the attack; the report adds the server's event-loop
// delay over the attack (prom-client's monitorEventLoopDelay histogram on /metrics, reset by the
// scrape at its start) and its RSS at the start and end.
import net from 'node:net';
import pg from 'pg';
import type { Server } from '../harness.js';
import { rssMb } from '../harness.js';
import { tally, watch, type AttackReport } from './common.js';

export const METRICS_TOKEN = 'bench-attack-metrics-token';
/** How long after an attack its server's RSS is watched for a return within 10% of its start. */
const RSS_WATCH_MS = 30_000;

/** A victim's request: a small GraphQL query by its own key; resolves with its status and time. */
async function victimOnce(
  server: Server,
  key: string,
  query: string,
): Promise<{ status: number | 'error'; ms: number }> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  } catch {
    return { status: 'error', ms: performance.now() - t0 };
  }
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;

interface VictimStats {
  n: number;
  p50: number;
  p99: number;
  answered: Record<string, number>;
}

/** The victim's query one after another until `stop`. */
function victim(server: Server, key: string, query: string) {
  let stopped = false;
  const times: number[] = [];
  const answered: Record<string, number> = {};
  const running = (async () => {
    while (!stopped) {
      const r = await victimOnce(server, key, query);
      times.push(r.ms);
      tally(answered, r.status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop(): Promise<VictimStats> {
      stopped = true;
      await running;
      const sorted = times.sort((a, b) => a - b);
      return { n: sorted.length, p50: pct(sorted, 50), p99: pct(sorted, 99), answered };
    },
  };
}

async function quietVictim(server: Server, key: string, query: string, ms = 3_000): Promise<VictimStats> {
  const v = victim(server, key, query);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return v.stop();
}

/** The event-loop delay since the last scrape, in ms (prom-client resets its histogram at each scrape). */
async function loopDelay(server: Server): Promise<{ max: number; p99: number }> {
  const text = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then(
    (r) => r.text(),
    () => '',
  );
  const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? Number.NaN) * 1000;
  return { max: read('nodejs_eventloop_lag_max_seconds'), p99: read('nodejs_eventloop_lag_p99_seconds') };
}

const VICTIM_QUERY = '{ trades(symbol: "NVLX", first: 5) { nodes { price size time } } }';

/**
 * The frame every scenario shares: the victim quiet, then the attack with the victim beside it
 * and the server watched, then what the server holds once the attack is over.
 */
async function underAttack(
  server: Server,
  victimKey: string,
  attack: () => Promise<{ sent: string; answered: Record<string, number>; notes: string[] }>,
  scenario: string,
): Promise<AttackReport> {
  // warm: the first search builds the engine over the whole master, the first queries compile their plans
  await fetch(`${server.base}/search/api/v1/securities?q=bank&search_type=name&per_page=1&apikey=${victimKey}`).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  await quietVictim(server, victimKey, VICTIM_QUERY);
  const quiet = await quietVictim(server, victimKey, VICTIM_QUERY);
  const rssStart = Math.round(rssMb(server.pid));
  await loopDelay(server);
  const w = watch(server);
  const v = victim(server, victimKey, VICTIM_QUERY);
  const got = await attack();
  const loud = await v.stop();
  const loop = await loopDelay(server);
  const seen = await w.stop();
  // what the server gives back once the attacker is gone (sockets closed, requests answered): RSS
  // 3 s after (the issue's mark), and how long it takes to come back within 10% of its start, up to
  // RSS_WATCH_MS (V8 gives grown heap space back on its own schedule: its memory reducer waits for a
  // quiet allocation rate, seconds after the load)
  const ended = performance.now();
  let rssEnd = Number.NaN;
  let backAfterMs = Number.NaN;
  while (performance.now() - ended < RSS_WATCH_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const rss = rssMb(server.pid);
    if (Number.isNaN(rssEnd) && performance.now() - ended >= 3_000) rssEnd = Math.round(rss);
    if (rss <= rssStart * 1.1) {
      backAfterMs = performance.now() - ended;
      if (!Number.isNaN(rssEnd)) break;
    }
  }
  if (Number.isNaN(rssEnd)) rssEnd = Math.round(rssMb(server.pid));
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
  return {
    scenario,
    sent: got.sent,
    answered: got.answered,
    ...seen,
    notes: [
      ...got.notes,
      `victim (trades first 5, enterprise) quiet p50/p99 ${f(quiet.p50)}/${f(quiet.p99)} ms, under attack ${f(loud.p50)}/${f(loud.p99)} ms (${loud.n} requests: ${JSON.stringify(loud.answered)})`,
      `event loop delay max ${f(loop.max)} ms, p99 ${f(loop.p99)} ms`,
      `RSS start ${rssStart} MB, 3 s after ${rssEnd} MB, within 10% of its start ${Number.isNaN(backAfterMs) ? `not within ${RSS_WATCH_MS / 1000} s` : `after ${(backAfterMs / 1000).toFixed(1)} s`}`,
    ],
  };
}

/** Finding 1: free-key requests of 15 aliases of `securities(first: 1)` sorted by metrics, with facets, for `seconds`. */
export function metricSorts(server: Server, freeKey: string, victimKey: string, clients = 4, seconds = 20) {
  const fields = ['PE_RATIO', 'ROIC', 'FCF_YIELD'];
  const query = `{ ${Array.from(
    { length: 15 },
    (_, i) =>
      `a${i}: securities(first: 1, orderBy: [{ field: ${fields[i % 3]}, direction: ${i % 2 ? 'ASC' : 'DESC'} }]) { totalCount nodes { symbol } facets(fields: [MIC_CODE, SECTOR, ACTIVE, MARKET_CAP]) { field counts { value count } } }`,
  ).join(' ')} }`;
  return underAttack(
    server,
    victimKey,
    async () => {
      const answered: Record<string, number> = {};
      const codes = new Map<string, number>();
      const until = Date.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (Date.now() < until) {
            try {
              const res = await fetch(`${server.base}/graphql`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-api-key': freeKey },
                body: JSON.stringify({ query }),
                signal: AbortSignal.timeout(60_000),
              });
              const text = await res.text();
              tally(answered, res.status);
              const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
              if (code) codes.set(code, (codes.get(code) ?? 0) + 1);
              if (res.status !== 200 || code) await new Promise((r) => setTimeout(r, 1_000));
            } catch {
              tally(answered, 'error');
            }
          }
        }),
      );
      return {
        sent: `${clients} free-key clients, each sending 15 aliases of securities(first: 1) sorted by P/E, ROIC or FCF yield with 4 facets, one after another for ${seconds} s`,
        answered,
        notes: [`error codes: ${[...codes].map(([c, n]) => `${c} ×${n}`).join(', ') || 'none'}`],
      };
    },
    'metric sorts',
  );
}

/**
 * Finding 2: one security's name changed every `everyMs` (as an import would) while clients search
 * by name. `everyMs` null: the same searchers with no write, the control that tells what the
 * writes add to the victim's time from what the search load alone costs it.
 */
export function rebuildStorm(
  server: Server,
  databaseUrl: string,
  proKey: string,
  victimKey: string,
  everyMs: number | null = 300,
  seconds = 20,
) {
  return underAttack(
    server,
    victimKey,
    async () => {
      const url = new URL(databaseUrl);
      const schema = url.searchParams.get('schema');
      url.searchParams.delete('schema');
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      if (schema) await client.query(`SET search_path TO "${schema}"`);
      const answered: Record<string, number> = {};
      const times: number[] = [];
      const until = Date.now() + seconds * 1000;
      let writes = 0;
      const writer = (async () => {
        while (everyMs !== null && Date.now() < until) {
          // a real change each time (a trailing space on, then off), as a re-import of one company would write
          await client.query(
            `UPDATE "Security" SET name = CASE WHEN name LIKE '% ' THEN rtrim(name) ELSE name || ' ' END
             WHERE id = (SELECT id FROM "Security" ORDER BY id OFFSET $1 LIMIT 1)`,
            [writes % 1000],
          );
          writes++;
          await new Promise((r) => setTimeout(r, everyMs));
        }
      })();
      const words = ['micro', 'bank', 'energy', 'health', 'tech', 'global', 'capital', 'systems'];
      await Promise.all(
        Array.from({ length: 4 }, async (_, c) => {
          let i = c;
          while (Date.now() < until) {
            const t0 = performance.now();
            try {
              const res = await fetch(
                `${server.base}/search/api/v1/securities?q=${words[i++ % words.length]}&search_type=name&per_page=10&apikey=${proKey}`,
                { signal: AbortSignal.timeout(30_000) },
              );
              await res.arrayBuffer();
              tally(answered, res.status);
            } catch {
              tally(answered, 'error');
            }
            times.push(performance.now() - t0);
          }
        }),
      );
      await writer;
      await client.end();
      const sorted = times.sort((a, b) => a - b);
      return {
        sent:
          everyMs === null
            ? `no write: the rebuild storm's 4 pro-key clients searching by name one after another for ${seconds} s (its control)`
            : `one security's name rewritten every ${everyMs} ms (${writes} writes) while 4 pro-key clients search by name one after another for ${seconds} s`,
        answered,
        notes: [
          `name search p50/p99 ${pct(sorted, 50).toFixed(0)}/${pct(sorted, 99).toFixed(0)} ms over ${sorted.length} searches`,
        ],
      };
    },
    everyMs === null ? 'search load' : 'rebuild storm',
  );
}

/** A raw HTTP/1.1 request on its own socket, headers written, its body left to `drip`. */
function rawSocket(server: Server): Promise<net.Socket> {
  const { hostname, port } = new URL(server.base);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), hostname, () => resolve(s));
    s.on('error', reject);
  });
}

/** Finding 3: anonymous chunked POSTs dripping a byte a second, beside an enterprise caller's large and chunked bodies. */
export function drippingBodies(server: Server, enterpriseKey: string, victimKey: string, drips = 3, seconds = 20) {
  return underAttack(
    server,
    victimKey,
    async () => {
      const sockets: net.Socket[] = [];
      const dripAnswers: Record<string, number> = {};
      for (let i = 0; i < drips; i++) {
        const s = await rawSocket(server).catch(() => undefined);
        if (!s) continue;
        s.on('error', () => {});
        s.on('data', (d) =>
          tally(dripAnswers, Number(/^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1'))?.[1] ?? 0) || 'error'),
        );
        s.write(
          `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`,
        );
        sockets.push(s);
      }
      const timer = setInterval(() => {
        for (const s of sockets) if (!s.destroyed) s.write('1\r\n \r\n');
      }, 1_000);
      const answered: Record<string, number> = {};
      const until = Date.now() + seconds * 1000;
      // the victim with a body: a chunked small query, and a 900 KB one with its length
      const padded = JSON.stringify({ query: `{ __typename ${' '.repeat(900_000)}}` });
      while (Date.now() < until) {
        for (const body of ['chunked', 'large'] as const) {
          try {
            const res = await fetch(`${server.base}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': enterpriseKey },
              body:
                body === 'large'
                  ? padded
                  : new ReadableStream({
                      start(c) {
                        c.enqueue(new TextEncoder().encode('{"query":"{ __typename }"}'));
                        c.close();
                      },
                    }),
              // @ts-expect-error Node's fetch needs it for a stream body
              duplex: 'half',
              signal: AbortSignal.timeout(10_000),
            });
            await res.arrayBuffer();
            tally(answered, `${body} ${res.status}`);
          } catch {
            tally(answered, `${body} error`);
          }
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      clearInterval(timer);
      const open = sockets.filter((s) => !s.destroyed).length;
      for (const s of sockets) s.destroy();
      return {
        sent: `${drips} anonymous chunked POST /graphql, one byte a second for ${seconds} s; meanwhile an enterprise key posts a chunked \`{ __typename }\` and a 900 KB body (Content-Length) every 0.5 s`,
        answered,
        notes: [
          `the drips were answered ${JSON.stringify(dripAnswers)}; ${open} of ${sockets.length} still open at the end`,
        ],
      };
    },
    'dripping bodies',
  );
}

/** Finding 4: `sockets` WebSockets of one key, each holding a half-sent frame of ~1 MiB. */
export function halfSentFrames(server: Server, key: string, victimKey: string, sockets = 500, seconds = 15) {
  return underAttack(
    server,
    victimKey,
    async () => {
      const open: net.Socket[] = [];
      const answered: Record<string, number> = {};
      const size = 1024 * 1024;
      const half = Buffer.alloc(size / 2, 0x61);
      // a masked text frame announcing `size` bytes (64-bit length), of which half is sent
      const header = Buffer.alloc(14);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(size), 2);
      for (let i = 0; i < sockets; i++) {
        const s = await rawSocket(server).catch(() => undefined);
        if (!s) {
          tally(answered, 'refused');
          continue;
        }
        s.on('error', () => {});
        const upgraded = await new Promise<string>((resolve) => {
          s.once('data', (d) => resolve(/^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1'))?.[1] ?? 'error'));
          s.once('close', () => resolve('closed'));
          s.write(
            `GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from(String(i).padStart(16, '0')).toString('base64')}\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\nX-API-Key: ${key}\r\n\r\n`,
          );
          setTimeout(() => resolve('timeout'), 5_000);
        });
        tally(answered, upgraded);
        if (upgraded !== '101') {
          s.destroy();
          continue;
        }
        s.write(header);
        s.write(half);
        open.push(s);
      }
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const stillOpen = open.filter((s) => !s.destroyed && !s.readableEnded).length;
      for (const s of open) s.destroy();
      return {
        sent: `${sockets} WebSocket upgrades with one enterprise key, each then sending half of a ${size / 1024} KiB frame and holding it for ${seconds} s`,
        answered,
        notes: [`${stillOpen} of ${open.length} upgraded sockets still open after ${seconds} s`],
      };
    },
    'half-sent WebSocket frames',
  );
}
