// What the scenarios of `npm run bench -- attack` share: a watch on the server under attack (is it
// alive, how fast does /healthz answer, how much memory does it hold) and the shape of a report.
import { rssMb, type Server } from '../harness.js';

/** How one scenario went: what the attacker was answered, and how the server held up meanwhile. */
export interface AttackReport {
  scenario: string;
  /** What was sent, in a line (e.g. "34 concurrent 40 MP PNG frames, enterprise key"). */
  sent: string;
  /** Answers by HTTP status (or `error` for a request that got no answer), e.g. { "200": 27, "503": 7 }. */
  answered: Record<string, number>;
  /** Whether the server process was still running when the scenario ended. */
  alive: boolean;
  /** Largest resident set size seen while the scenario ran, in MB. */
  rssMaxMb: number;
  /** Slowest /healthz answer while the scenario ran, in ms (a probe that failed counts as its timeout). */
  healthMaxMs: number;
  /** /healthz probes that failed or took longer than HEALTH_TIMEOUT_MS. */
  healthFailures: number;
  /** Anything else worth a line: error codes seen, frames completed, events delivered ... */
  notes: string[];
}

/** The probe's own limit, as a load balancer's health check would have one. */
export const HEALTH_TIMEOUT_MS = 3_000;
const PROBE_EVERY_MS = 200;

export interface Watch {
  /** Stops watching and returns what was seen. */
  stop(): Promise<Pick<AttackReport, 'alive' | 'rssMaxMb' | 'healthMaxMs' | 'healthFailures'>>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls the server's /healthz every 200 ms (each probe bounded by HEALTH_TIMEOUT_MS, at most one in
 * flight) and samples its RSS, until `stop`.
 */
export function watch(server: Server): Watch {
  let rssMax = 0;
  let healthMax = 0;
  let failures = 0;
  let stopped = false;
  const sample = () => {
    if (!alive(server.pid)) return;
    try {
      rssMax = Math.max(rssMax, rssMb(server.pid));
    } catch {
      // the process ended between the check and the read
    }
  };
  const rssTimer = setInterval(sample, PROBE_EVERY_MS);
  const probing = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const ok = await fetch(`${server.base}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then(
        (r) => r.ok,
        () => false,
      );
      const ms = ok ? performance.now() - t0 : HEALTH_TIMEOUT_MS;
      healthMax = Math.max(healthMax, ms);
      if (!ok) failures++;
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await probing;
      clearInterval(rssTimer);
      sample();
      return {
        alive: alive(server.pid),
        rssMaxMb: Math.round(rssMax),
        healthMaxMs: Math.round(healthMax),
        healthFailures: failures,
      };
    },
  };
}

/** Counts answers by status into `into` (a request that failed without an answer counts as `error`). */
export function tally(into: Record<string, number>, status: number | string): void {
  const k = String(status);
  into[k] = (into[k] ?? 0) + 1;
}
