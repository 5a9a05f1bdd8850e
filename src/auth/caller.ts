import { parse as parseCookies } from 'cookie';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import type { Tier } from '../../generated/prisma/enums.js';
import { findActiveApiKey, touchApiKey } from '../services/account.js';
import { findActiveSession } from '../services/session.js';
import { hashApiKey } from '../credentials/apikeys.js';
import { looksLikeJwt, verifyAccessToken } from '../credentials/tokens.js';

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
  /** The login session (refresh-token family) an access token belongs to, for token callers. */
  sessionId?: string;
}

export function cookiesOf(request: Request): Record<string, string | undefined> {
  const header = request.headers.get('cookie');
  return header ? parseCookies(header) : {};
}

/**
 * Who a credential names, remembered for a few seconds per app, so a busy key costs no database
 * round trip per request. A revocation, a logout or a tier change made through this instance takes
 * effect at once (`forgetUser`, `forgetSession`); one made elsewhere (the CLI, another instance)
 * within `ttlMs`.
 */
/** How long a credential that named a caller stays known (see CallerCache.knows). */
const KNOWN_MS = 10 * 60_000;

export class CallerCache {
  readonly #entries = new Map<string, { caller: Caller; until: number }>();
  /** Credentials that named a caller within KNOWN_MS: looked up even from an address past its anonymous budget. */
  readonly #known = new Map<string, number>();
  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * Whether `key` named a caller lately. A key guessed from an address that has spent its budget for
   * requests without a valid caller is not looked up; a key in use is, so that the users behind one
   * address (a NAT, a company proxy) are not locked out by another client's wrong key.
   */
  knows(key: string): boolean {
    const seen = this.#known.get(key);
    return seen !== undefined && Date.now() - seen < KNOWN_MS;
  }

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
    this.#known.delete(key);
    if (this.#known.size >= this.maxEntries) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(key, Date.now());
  }

  forgetUser(userId: string): void {
    for (const [k, v] of this.#entries) if (v.caller.userId === userId) this.#entries.delete(k);
  }

  forgetSession(sessionId: string): void {
    this.#entries.delete(sessionCacheKey(sessionId));
  }

  /** Forgets every caller: the database they were read from is gone (db/readiness.ts). */
  clear(): void {
    this.#entries.clear();
    this.#known.clear();
  }
}

const sessionCacheKey = (sessionId: string) => `session:${sessionId}`;
export const SESSION_ENDED =
  'the access token is no longer valid: its session has ended (logged out, revoked, expired or the user disabled); log in again';

export interface AuthDeps {
  db: Db;
  secret: string;
  cache: CallerCache;
  /** Runs before an API key not in the cache is looked up; throws to refuse the lookup (a spent address budget). */
  beforeKeyLookup?: () => Promise<void>;
}

/** The query parameters an API key may come in: ours, and the camel case of Massive's clients (docs/rest.md#passing-the-key). */
export const API_KEY_PARAMS = ['apikey', 'apiKey'] as const;

/** A credential as a request presents it, before it is checked. */
type Presented = { via: 'apikey'; key: string } | { via: 'bearer' | 'cookie'; token: string };

/**
 * The API key of the query, in either spelling. Several values that differ are refused rather than
 * one picked: which of them the client meant is a guess.
 */
function queryApiKey(url: URL): string | null {
  const given = API_KEY_PARAMS.filter((name) => url.searchParams.has(name));
  const values = new Set(given.flatMap((name) => url.searchParams.getAll(name)));
  if (values.size > 1)
    throw new AppError(
      'BAD_REQUEST',
      `the API key is given more than once with different values (${given.join(' and ')}); give it once`,
    );
  return values.size ? [...values][0]! : null;
}

/**
 * The credential a request presents: the first present, in this order (docs/security.md):
 * `apikey` (or `apiKey`) query parameter, `X-API-Key` header, `Authorization: Bearer`,
 * `DT_AUTH_TOKEN` cookie. A Bearer value without a dot is an API key (looksLikeJwt).
 */
function presented(request: Request, url: URL): Presented | null {
  const key = queryApiKey(url) ?? request.headers.get('x-api-key');
  if (key !== null) return { via: 'apikey', key };
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match)
      throw new AppError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <access token or API key>"');
    return looksLikeJwt(match[1]!) ? { via: 'bearer', token: match[1]! } : { via: 'apikey', key: match[1]! };
  }
  const cookie = cookiesOf(request)[ACCESS_COOKIE];
  return cookie ? { via: 'cookie', token: cookie } : null;
}

/**
 * The caller of a request, from the credential it presents (`presented`). No credential: null. A
 * credential that is present but wrong: UNAUTHENTICATED (never a fallback to the next one, which
 * would hide the mistake). An API key is checked the same way whichever way it came.
 */
export async function authenticate(request: Request, url: URL, deps: AuthDeps): Promise<Caller | null> {
  const credential = presented(request, url);
  if (!credential) return null;
  return credential.via === 'apikey'
    ? apiKeyCaller(deps, credential.key)
    : userCaller(deps, credential.token, credential.via);
}

/** Which credential `authenticate` reads from a request; null when none (or a malformed one). */
export function presentedCredential(request: Request, url: URL): Caller['via'] | null {
  try {
    return presented(request, url)?.via ?? null;
  } catch {
    return null;
  }
}

async function apiKeyCaller({ db, cache, beforeKeyLookup }: AuthDeps, apiKey: string): Promise<Caller> {
  const cacheKey = `key:${hashApiKey(apiKey)}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  if (!cache.knows(cacheKey)) await beforeKeyLookup?.();
  const key = apiKey === '' ? null : await findActiveApiKey(db, apiKey);
  if (!key) throw new AppError('UNAUTHENTICATED', 'the API key is not valid');
  await touchApiKey(db, key);
  const caller: Caller = {
    userId: key.user.id,
    email: key.user.email,
    username: key.user.username,
    tier: key.user.tier,
    via: 'apikey',
    apiKeyId: key.id,
  };
  cache.set(cacheKey, caller);
  return caller;
}

/** A token caller, as long as the token's session is neither revoked (logout, reuse detection) nor expired. */
async function userCaller({ db, secret, cache }: AuthDeps, token: string, via: 'bearer' | 'cookie'): Promise<Caller> {
  const claims = verifyAccessToken(secret, token);
  const cacheKey = sessionCacheKey(claims.sid);
  const cached = cache.get(cacheKey);
  if (cached && cached.userId === claims.sub) return { ...cached, via };
  const user = await findActiveSession(db, claims.sid);
  if (!user || user.id !== claims.sub) throw new AppError('UNAUTHENTICATED', SESSION_ENDED);
  const caller: Caller = {
    userId: user.id,
    email: user.email,
    username: user.username,
    tier: user.tier,
    via,
    sessionId: claims.sid,
  };
  cache.set(cacheKey, caller);
  return caller;
}
