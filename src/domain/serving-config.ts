// Two sections of the configuration (config.ts reads them once, with the rest): live subscriptions
// and the server's shutdown. Pure functions of the environment, as domain/env-values.ts.
import { nonNegativeInt, positiveInt, type Env } from './env-values.js';

/** Live subscriptions (SSE and WebSocket together), per instance: see graphql/live.ts. */
export interface SubscriptionConfig {
  /** Live subscriptions one user may hold (all its keys and sessions together); past it, 429 TOO_MANY_SUBSCRIPTIONS. */
  perCaller: number;
  /** Symbols one user's live subscriptions may name together (a 25-symbol watchlist names 25); past it, 429 TOO_MANY_SUBSCRIPTIONS. */
  symbolsPerCaller: number;
  /** Live subscriptions one instance serves; past it, 503 SUBSCRIPTIONS_FULL. */
  perInstance: number;
  /** Serialized events a subscription may leave unread; past it, it ends with SLOW_CONSUMER. */
  bufferBytes: number;
  /** How long live events are kept in the database for subscriptions that resume (`after`, `since`). */
  replayDepthMs: number;
  /** The newest this many live events are kept, whatever their age. */
  replayKeepRows: number;
  /** Events one resumed subscription may replay; more behind, it is refused with REPLAY_TOO_OLD. */
  replayMaxRows: number;
}

export interface LifecycleConfig {
  /** On SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut. */
  shutdownTimeoutMs: number;
  /** How long /readyz answers 503 while new connections are still taken (for load balancers that poll it). */
  drainDelayMs: number;
}

export function lifecycleConfig(env: Env): Readonly<LifecycleConfig> {
  return Object.freeze({
    shutdownTimeoutMs: positiveInt(env, 'SHUTDOWN_TIMEOUT_MS', 10_000),
    drainDelayMs: nonNegativeInt(env, 'SHUTDOWN_DRAIN_DELAY_MS', 0),
  });
}

// 1000 × 64 KiB of unread events is 64 MiB at worst, a quarter of the heap `npm start` gives
export function subscriptionConfig(env: Env): Readonly<SubscriptionConfig> {
  return Object.freeze({
    perCaller: positiveInt(env, 'SUBSCRIPTIONS_PER_CALLER', 20),
    symbolsPerCaller: positiveInt(env, 'SUBSCRIPTION_SYMBOLS_PER_CALLER', 200),
    perInstance: positiveInt(env, 'SUBSCRIPTIONS_PER_INSTANCE', 1000),
    bufferBytes: positiveInt(env, 'SUBSCRIPTION_BUFFER_BYTES', 64 * 1024),
    replayDepthMs: positiveInt(env, 'REPLAY_DEPTH_SECONDS', 7 * 24 * 3600) * 1000,
    replayKeepRows: positiveInt(env, 'REPLAY_KEEP_ROWS', 20_000_000),
    replayMaxRows: positiveInt(env, 'REPLAY_MAX_ROWS', 100_000),
  });
}
