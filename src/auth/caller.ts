import { parse as parseCookies } from 'cookie';
import type { Db } from '../db.js';
import { AppError } from '../errors.js';
import type { Tier } from '../../generated/prisma/enums.js';
import { findActiveApiKey, findUserById, touchApiKey } from '../services/account.js';
import { hashApiKey } from './apikeys.js';
import { verifyAccessToken } from './tokens.js';

export const ACCESS_COOKIE = 'DT_AUTH_TOKEN';
export const REFRESH_COOKIE = 'DT_REFRESH_TOKEN';

/** Who is asking, however they proved it: the same for GraphQL and REST. */
export interface Caller {
  userId: string;
  email: string;
  username: string;
  tier: Tier;
  /** How the caller authenticated; cookie callers are the ones CSRF protection is for. */
  via: 'apikey' | 'bearer' | 'cookie';
  /** The key used, for API-key callers. */
  apiKeyId?: string;
}

/** What rate limits count against: the key for API-key callers, the user otherwise. */
export function callerKey(caller: Caller): string {
  return caller.apiKeyId ? `key:${caller.apiKeyId}` : `user:${caller.userId}`;
}

export function cookiesOf(request: Request): Record<string, string | undefined> {
  const header = request.headers.get('cookie');
  return header ? parseCookies(header) : {};
}

/**
 * Who a credential names, remembered for a few seconds per app, so a busy key costs no database
 * round trip per request. A revocation or a tier change made through this instance takes effect
 * at once (`forgetUser`); one made elsewhere (the CLI, another instance) within `ttlMs`.
 */
export class CallerCache {
  readonly #entries = new Map<string, { caller: Caller; until: number }>();
  constructor(private readonly ttlMs = 5_000, private readonly maxEntries = 10_000) {}

  get(key: string): Caller | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.until < Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return hit.caller;
  }

  set(key: string, caller: Caller): void {
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { caller, until: Date.now() + this.ttlMs });
  }

  forgetUser(userId: string): void {
    for (const [k, v] of this.#entries) if (v.caller.userId === userId) this.#entries.delete(k);
  }
}

export interface AuthDeps {
  db: Db;
  secret: string;
  cache: CallerCache;
}

/**
 * The caller of a request, from the first credential present in the order of decisions.md:
 * `apikey` query parameter, `X-API-Key` header, `Authorization: Bearer`, `DT_AUTH_TOKEN` cookie.
 * No credential: null. A credential that is present but wrong: UNAUTHENTICATED (never a fallback
 * to the next one, which would hide the mistake).
 */
export async function authenticate(request: Request, url: URL, deps: AuthDeps): Promise<Caller | null> {
  const apiKey = url.searchParams.get('apikey') ?? request.headers.get('x-api-key');
  if (apiKey !== null) return apiKeyCaller(deps, apiKey);
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw new AppError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <access token>"');
    return userCaller(deps, match[1]!, 'bearer');
  }
  const cookie = cookiesOf(request)[ACCESS_COOKIE];
  if (cookie) return userCaller(deps, cookie, 'cookie');
  return null;
}

/** Which credential `authenticate` reads from a request (the first present, in the same order). */
export function presentedCredential(request: Request, url: URL): Caller['via'] | null {
  if (url.searchParams.has('apikey') || request.headers.has('x-api-key')) return 'apikey';
  if (request.headers.has('authorization')) return 'bearer';
  return cookiesOf(request)[ACCESS_COOKIE] ? 'cookie' : null;
}

async function apiKeyCaller({ db, cache }: AuthDeps, apiKey: string): Promise<Caller> {
  const cacheKey = `key:${hashApiKey(apiKey)}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const key = apiKey === '' ? null : await findActiveApiKey(db, apiKey);
  if (!key) throw new AppError('UNAUTHENTICATED', 'the API key is not valid');
  await touchApiKey(db, key);
  const caller: Caller = { userId: key.user.id, email: key.user.email, username: key.user.username, tier: key.user.tier, via: 'apikey', apiKeyId: key.id };
  cache.set(cacheKey, caller);
  return caller;
}

async function userCaller({ db, secret, cache }: AuthDeps, token: string, via: 'bearer' | 'cookie'): Promise<Caller> {
  const claims = verifyAccessToken(secret, token);
  const cacheKey = `user:${claims.sub}`;
  const cached = cache.get(cacheKey);
  if (cached) return { ...cached, via };
  const user = await findUserById(db, claims.sub);
  if (!user || user.disabled) throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
  const caller: Caller = { userId: user.id, email: user.email, username: user.username, tier: user.tier, via };
  cache.set(cacheKey, caller);
  return caller;
}
