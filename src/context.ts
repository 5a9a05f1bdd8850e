import type { Caller, CallerCache } from './auth/caller.js';
import type { SessionDeps } from './auth/session-cookies.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { EventBus } from './runtime/events.js';
import type { LiveHub, LiveSlot } from './graphql/live.js';
import { Loaders } from './graphql/loaders.js';
import type { InFlightBudget } from './runtime/in-flight.js';
import type { OcrPool } from './ocr/pool.js';

/** What every resolver and REST handler gets for one request. Built fresh per request. */
export interface Context {
  config: Readonly<Config>;
  db: Db;
  requestId: string;
  request: Request;
  /** The client address (X-Forwarded-For only with TRUST_PROXY). */
  ip: string;
  /** Null until authenticated, and for requests without credentials. */
  caller: Caller | null;
  sessions: SessionDeps;
  /** Who recent credentials name; revoking a key or logging out forgets the user here at once. */
  callers: CallerCache;
  loaders: Loaders;
  /** The OCR workers, one pool per app (see ocr/pool.ts). */
  ocr: OcrPool;
  /** Stored rows as they arrive, for the subscriptions (in-process, or Redis across instances). */
  events: EventBus;
  /** Set-Cookie values to send with the response (login, refresh and logout mutations). */
  responseCookies: string[];
  /** The instance's budget of work in flight, and what this request holds of it (see holdRows). */
  work: Work;
  /** The app's live subscriptions: caps, groups, rights rounds (graphql/live.ts). */
  live: LiveHub;
  /**
   * The group a subscription of this request belongs to, and its slot once its field subscribed.
   * One object, shared by the copies Yoga makes of this context.
   */
  liveSlot: { key?: string; current?: LiveSlot };
  /** Cuts the connection of this request (when served over a socket): a stream its client stopped reading. */
  cutConnection?: (() => void) | undefined;
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

export function createContext(init: Omit<Context, 'loaders' | 'responseCookies' | 'caller' | 'work' | 'liveSlot'> & { work: WorkDeps }): Context {
  return { ...init, caller: null, loaders: new Loaders(), responseCookies: [], work: { ...init.work, held: [] }, liveSlot: {} };
}

/**
 * Holds the work of a REST page of `rows` records of GraphQL type `type` in the budget of work in
 * flight until the request ends (app.ts releases it); waits for room, or throws 503. GraphQL
 * operations hold their cost themselves (graphql/guard.ts).
 */
export async function holdRows(ctx: Context, type: string, rows: number): Promise<void> {
  ctx.work.held.push(await ctx.work.budget.acquire(rows * ctx.work.rowUnits(type)));
}

/** Gives back what holdRows held. */
export function releaseHeld(ctx: Context): void {
  for (const release of ctx.work.held.splice(0)) release();
}
