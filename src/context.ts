import type { Caller, CallerCache } from './auth/caller.js';
import type { SessionDeps } from './auth/sessions.js';
import type { Config } from './config.js';
import type { Db } from './db.js';
import type { EventBus } from './events.js';
import { Loaders } from './loaders.js';
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
}

export function createContext(init: Omit<Context, 'loaders' | 'responseCookies' | 'caller'>): Context {
  return { ...init, caller: null, loaders: new Loaders(), responseCookies: [] };
}
