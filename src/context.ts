import DataLoader from 'dataloader';
import type { Caller, CallerCache } from './auth/caller.js';
import type { Pacing } from './auth/rate-limit.js';
import type { SessionDeps } from './auth/session-cookies.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { Resource } from './domain/entitlements.js';
import type { Fallbacks } from './observability/fallbacks.js';
import type { Deadline } from './runtime/deadline.js';
import type { EventBus, StreamMark, StreamPolicy } from './runtime/events.js';
import type { InFlightBudget } from './runtime/in-flight.js';
import type { OcrPool } from './ocr/pool.js';

/** What every resolver and REST handler gets for one request. Built fresh per request. */
export interface Context {
  config: Readonly<Config>;
  db: Db;
  requestId: string;
  request: Request;
  /**
   * The request's time budget from its arrival (REQUEST_TIMEOUT_MS); `db` reads under it, and
   * loops over many items check it (runtime/deadline.ts).
   */
  deadline: Deadline;
  /** The client address (X-Forwarded-For only with TRUST_PROXY). */
  ip: string;
  /** The time now, in epoch milliseconds: the app's clock (Date.now unless a test gives createApp its own). */
  now: () => number;
  /** Null until authenticated, and for requests without credentials. */
  caller: Caller | null;
  /** The budget the request drew on, once counted: its answer's RateLimit fields (app.ts). Null for what no budget counts. */
  pacing: Pacing | null;
  sessions: SessionDeps;
  /** Who recent credentials name; revoking a key or logging out forgets the user here at once. */
  callers: CallerCache;
  loaders: Loaders;
  /** The OCR workers, one pool per app (see ocr/pool.ts). */
  ocr: OcrPool;
  /** Stored rows as they arrive, for the subscriptions (in-process, or Redis across instances). */
  events: EventBus;
  /**
   * Headers the GraphQL answer carries, appended in order (graphql/http.ts): Set-Cookie of the login,
   * refresh and logout mutations; X-Search-Stale-Ms of a search answered while the master is read again.
   */
  responseHeaders: [name: string, value: string][];
  /** Query parameters the REST route set aside, as the client named them: app.ts sends them as X-Ignored-Parameters. */
  ignoredParameters: string[];
  /** The instance's budget of work in flight, and what this request holds of it (see holdRows). */
  work: Work;
  /** The app's live subscriptions: caps, groups, rights rounds (graphql/live.ts). */
  live: LiveSubscriptions;
  /**
   * The group a subscription of this request belongs to, and its slot once its field subscribed.
   * One object, shared by the copies Yoga makes of this context.
   */
  liveSlot: { key?: string; current?: LiveHold };
  /** The app's count of fallbacks (observability/fallbacks.ts): services that answer a second way tell it why. */
  fallbacks: Fallbacks;
  /** Cuts the connection of this request (when served over a socket): a stream its client stopped reading. */
  cutConnection?: (() => void) | undefined;
}

/**
 * Per-request DataLoaders, made on first use. A loader's name carries the arguments of the field
 * that uses it (for example `ratingsBySymbol:{"first":5}`), so parents asking with the same
 * arguments share one batch, and one statement. (Naming and batch helpers: graphql/loaders.ts.)
 */
export class Loaders {
  readonly #loaders = new Map<string, DataLoader<unknown, unknown>>();

  get<K, V>(
    name: string,
    batch: (keys: readonly K[]) => Promise<readonly (V | Error)[]>,
    options?: DataLoader.Options<K, V, unknown>,
  ): DataLoader<K, V> {
    let loader = this.#loaders.get(name) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V, unknown>(batch, { maxBatchSize: 200, ...options });
      this.#loaders.set(name, loader as DataLoader<unknown, unknown>);
    }
    return loader;
  }
}

/*
 * What the context holds of graphql/live.ts is declared here, as the little a request uses, and
 * graphql/live.ts implements it: graphql/ imports this file, so this file imports nothing of graphql/.
 */

/** The app's live subscriptions as a subscription field reaches them (graphql/live.ts's LiveHub). */
export interface LiveSubscriptions {
  /** Counts a subscription naming `symbols` symbols against the caps, or throws the cap's coded error. */
  reserve(caller: Caller, resource: Resource, key: string, symbols: number, policy: StreamPolicy): LiveHold;
}

/** One subscription's place under the caps (graphql/live.ts's LiveSlot). */
export interface LiveHold {
  /** Set once the subscription joined its group; its member then gives the place back when it ends. */
  readonly member: object | undefined;
  /** Where the event its stream yielded last stands (undefined from a bus that marks none). */
  pulled: StreamMark | undefined;
  release(): void;
}

/** What one app shares with its requests for holding work in flight. */
export interface WorkDeps {
  budget: InFlightBudget;
  /** Cost units of one record of a GraphQL type with every field (a REST row and its GraphQL twin carry the same data). */
  rowUnits(type: string): number;
}

export interface Work extends WorkDeps {
  held: (() => void)[];
}

/**
 * A request's context; its `db` is the app's, made the request's own (Db.forRequest: one statement
 * per turn on PostgreSQL, its reads sent alone counted as fallbacks, each read bounded by the deadline).
 */
/** The header of an answer a search gave from the engine read before the master's current one: its age in ms (services/security-index.ts). */
export const SEARCH_STALE_HEADER = 'x-search-stale-ms';

/** Says on the response that a search was answered `staleMs` behind the master; nothing when current. */
export function noteStaleSearch(ctx: Context, staleMs: number): void {
  if (staleMs > 0) ctx.responseHeaders.push([SEARCH_STALE_HEADER, String(staleMs)]);
}

export function createContext(
  init: Omit<
    Context,
    'loaders' | 'responseHeaders' | 'ignoredParameters' | 'caller' | 'pacing' | 'work' | 'liveSlot' | 'now'
  > & {
    work: WorkDeps;
    now?: () => number;
  },
): Context {
  const { fallbacks } = init;
  const db = init.db.forRequest((reason) => fallbacks.record('combined', reason), init.deadline);
  return {
    ...init,
    db,
    caller: null,
    pacing: null,
    loaders: new Loaders(),
    responseHeaders: [],
    ignoredParameters: [],
    work: { ...init.work, held: [] },
    liveSlot: {},
    now: init.now ?? Date.now,
  };
}

/**
 * Holds the work of a REST page of `rows` records of GraphQL type `type` in the budget of work in
 * flight until the request ends (rest/router.ts releases it); waits for room, or throws 503. GraphQL
 * operations hold their cost themselves (graphql/guard.ts).
 */
export async function holdRows(ctx: Context, type: string, rows: number): Promise<void> {
  await holdUnits(ctx, rows * ctx.work.rowUnits(type));
}

/** Holds `units` of work in flight until the request ends, as holdRows does: work a REST route does beyond its rows (a search's passes). */
export async function holdUnits(ctx: Context, units: number): Promise<void> {
  ctx.work.held.push(await ctx.work.budget.acquire(units, ctx.deadline));
}

/** Gives back what holdRows held. */
export function releaseHeld(ctx: Context): void {
  for (const release of ctx.work.held.splice(0)) release();
}
