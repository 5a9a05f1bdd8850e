// Two sections of the configuration (config.ts reads them once, with the rest): what a client may
// hold while it sends (bodies, WebSocket messages, connections) and what `cli sync` and `cli
// import` read at once. Pure functions of the environment, as domain/env-values.ts.
import { positiveInt, stringBytes, type Env } from './env-values.js';

/** What a client may hold while it sends (docs/security.md, "Bodies in flight"): http/pace.ts, runtime/bodies.ts, graphql/ws-limits.ts. */
export interface ConnectionConfig {
  /** After `graceMs`, a body or WebSocket message must arrive at this average pace: else 408 BODY_TOO_SLOW (close 4408). */
  minBytesPerSecond: number;
  graceMs: number;
  /** Bytes of bodies and unfinished messages the callers of one address without a credential hold at once; past it 429. */
  anonymousBytesPerAddress: number;
  /** WebSocket connections of one user (all its keys and sessions), and of one address before authentication; past it close 4429. */
  socketsPerCaller: number;
  socketsPerAddress: number;
}

/** How much `cli sync` and `cli import` read at once, whatever their input sends (docs/data.md, "Limits of data in"). */
export interface IngestConfig {
  /** SYNC_MAX_BODY_BYTES: of one upstream answer; past it the answer is refused, read no further nor asked for again. */
  syncMaxBodyBytes: number;
  /** IMPORT_MAX_LINE_BYTES: of one JSON text parsed at once (an NDJSON line, an array element, a pretty-printed body). */
  importMaxLineBytes: number;
}
/** The defaults, also what sync and importStream take when their caller passes none. */
export const SYNC_MAX_BODY_BYTES = 64 * 1024 * 1024;
export const IMPORT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** The ingest section: SYNC_MAX_BODY_BYTES and IMPORT_MAX_LINE_BYTES. */
export function ingestConfig(env: Env): Readonly<IngestConfig> {
  return Object.freeze({
    syncMaxBodyBytes: stringBytes(env, 'SYNC_MAX_BODY_BYTES', SYNC_MAX_BODY_BYTES),
    importMaxLineBytes: stringBytes(env, 'IMPORT_MAX_LINE_BYTES', IMPORT_MAX_LINE_BYTES),
  });
}

// 32 KiB/s is a 256 kbit/s uplink: the largest body at that pace takes Node's 5-minute requestTimeout and a little more
export function connectionConfig(env: Env): Readonly<ConnectionConfig> {
  return Object.freeze({
    minBytesPerSecond: positiveInt(env, 'BODY_MIN_BYTES_PER_SECOND', 32 * 1024),
    graceMs: positiveInt(env, 'BODY_GRACE_MS', 10_000),
    anonymousBytesPerAddress: positiveInt(env, 'ANONYMOUS_BODY_BYTES_PER_ADDRESS', 1024 * 1024),
    socketsPerCaller: positiveInt(env, 'WS_SOCKETS_PER_CALLER', 16),
    socketsPerAddress: positiveInt(env, 'WS_SOCKETS_PER_ADDRESS', 16),
  });
}
