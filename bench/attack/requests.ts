// Two scenarios of `npm run bench -- attack` about the size of requests: the alias bomb of the
// hardening review (one request that ran the heap out), and a flood of the largest pages the API
// promises (legitimate, each admissible, together far past what the heap can hold at once).
import type { Server } from '../harness.js';
import { tally, watch, type AttackReport } from './common.js';

const BARS =
  'bars(timespan: MINUTE, from: "2026-11-16T14:00:00Z", to: "2026-11-19T21:00:00Z") { nodes { start open high low close volume vwap trades startTimestamp } }';

/** Finding 1 as it was sent: 15 aliases of a week of minute bars under every security of 100 logos (2.3 KB). */
export const ALIAS_BOMB = `{ logos(first: 100) { nodes { securities { symbol name ${Array.from({ length: 15 }, (_, i) => `b${i}: ${BARS}`).join(' ')} } } } }`;

/** The largest trades page with every field: admissible alone (cost ~130,000 of 200,000). */
export const LARGEST_TRADES_PAGE =
  '{ trades(symbol: "NVLX", first: 5000) { pageInfo { hasNextPage endCursor } nodes { id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time } } }';

async function post(
  server: Server,
  key: string,
  query: string,
  timeoutMs: number,
): Promise<{ status: number | 'error'; bytes: number; code?: string }> {
  try {
    const res = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
    return { status: res.status, bytes: text.length, ...(code ? { code } : {}) };
  } catch {
    return { status: 'error', bytes: 0 };
  }
}

/** `copies` alias bombs at once with a pro key. */
export async function aliasBomb(server: Server, proKey: string, copies = 5): Promise<AttackReport> {
  const w = watch(server);
  const answered: Record<string, number> = {};
  const codes = new Set<string>();
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: copies }, () => post(server, proKey, ALIAS_BOMB, 60_000)));
  for (const r of results) {
    tally(answered, r.status);
    if (r.code) codes.add(r.code);
  }
  const seen = await w.stop();
  return {
    scenario: 'alias bomb',
    sent: `${copies} concurrent copies of finding 1's document (${ALIAS_BOMB.length.toLocaleString('en-US')} bytes: 15 aliases of a week of minute bars under logos(first: 100).securities), pro key`,
    answered,
    ...seen,
    notes: [
      `error codes: ${[...codes].join(', ') || 'none'}`,
      `largest answer ${Math.max(...results.map((r) => r.bytes)).toLocaleString('en-US')} bytes`,
      `all answered in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    ],
  };
}

/** `clients` clients each asking for the largest trades page, one after another, for `seconds`. */
export async function largestPagesFlood(
  server: Server,
  key: string,
  clients = 40,
  seconds = 20,
): Promise<AttackReport> {
  const w = watch(server);
  const answered: Record<string, number> = {};
  const codes = new Map<string, number>();
  const until = Date.now() + seconds * 1000;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const r = await post(server, key, LARGEST_TRADES_PAGE, 30_000);
        tally(answered, r.status);
        if (r.status === 200) bytes = Math.max(bytes, r.bytes);
        if (r.code) codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
        // a refused client waits as it was told (Retry-After: 1) before asking again
        if (r.status === 503) await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }),
  );
  const seen = await w.stop();
  return {
    scenario: 'largest pages flood',
    sent: `${clients} clients, each asking for 5,000 trades with every field (${(bytes / 1e6).toFixed(2)} MB an answer) one after another for ${seconds} s, enterprise key`,
    answered,
    ...seen,
    notes: [`error codes: ${[...codes].map(([c, n]) => `${c} ×${n}`).join(', ') || 'none'}`],
  };
}
