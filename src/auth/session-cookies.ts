import { serialize } from 'cookie';
import type { AuthConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { findUserByEmail, findUserById, normalizeEmail, type User } from '../services/account.js';
import { revokeSession, rotateSession, startSession } from '../services/session.js';
import { ACCESS_COOKIE, REFRESH_COOKIE, type CallerCache } from './caller.js';
import { verifyPassword } from '../credentials/passwords.js';
import type { RateLimits } from './rate-limit.js';
import {
  ACCESS_TOKEN_SECONDS,
  REFRESH_TOKEN_SECONDS,
  signAccessToken,
  signRefreshToken,
  verifyRefreshToken,
} from '../credentials/tokens.js';

/**
 * Login, refresh and logout as plain functions that answer the session's cookies: the REST routes
 * (rest/session.ts) and the GraphQL mutations (schema/session.ts) both call these and send back
 * the body fields and Set-Cookie headers they return. The session rows themselves (refresh-token
 * families) are services/session.ts's.
 */
export interface SessionDeps {
  db: Db;
  auth: AuthConfig & { jwtSecret: string };
  limits: RateLimits;
  /** A session this instance ends is forgotten here at once; other instances within AUTH_CACHE_SECONDS. */
  callers: CallerCache;
}

export interface SessionResult {
  message: string;
  expiresIn: number;
  user: User;
  /** Set-Cookie header values. */
  cookies: string[];
}

const INVALID_LOGIN = 'invalid email or password';

function cookieOptions(auth: AuthConfig, maxAge: number) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: auth.cookieSecure, maxAge };
}

async function issue(
  deps: SessionDeps,
  user: User,
  family: string,
  jti: string,
  message: string,
): Promise<SessionResult> {
  const secret = deps.auth.jwtSecret;
  return {
    message,
    expiresIn: ACCESS_TOKEN_SECONDS,
    user,
    cookies: [
      serialize(
        ACCESS_COOKIE,
        signAccessToken(secret, user.id, family),
        cookieOptions(deps.auth, ACCESS_TOKEN_SECONDS),
      ),
      serialize(
        REFRESH_COOKIE,
        signRefreshToken(secret, user.id, family, jti),
        cookieOptions(deps.auth, REFRESH_TOKEN_SECONDS),
      ),
    ],
  };
}

/** Wrong password, unknown email and disabled user fail alike, so the answer tells nothing. */
export async function login(
  deps: SessionDeps,
  input: { email: unknown; password: unknown },
  ip: string,
): Promise<SessionResult> {
  if (typeof input.email !== 'string' || input.email.trim() === '')
    throw new AppError('BAD_REQUEST', 'email: a non-empty string is required');
  if (typeof input.password !== 'string' || input.password === '')
    throw new AppError('BAD_REQUEST', 'password: a non-empty string is required');
  if (input.email.length > 320 || input.password.length > 1024)
    throw new AppError('BAD_REQUEST', 'email or password is too long');
  await deps.limits.login(normalizeEmail(input.email), ip);
  const user = await findUserByEmail(deps.db, input.email);
  // hash anyway for unknown users, so response times do not reveal which emails exist
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || user.disabled) throw new AppError('UNAUTHENTICATED', INVALID_LOGIN);
  const { family, jti } = await startSession(deps.db, user.id);
  return issue(deps, user, family, jti, 'login successful');
}

export async function refresh(deps: SessionDeps, refreshToken: string | undefined): Promise<SessionResult> {
  if (!refreshToken) throw new AppError('UNAUTHENTICATED', `no refresh token: send the ${REFRESH_COOKIE} cookie`);
  const claims = verifyRefreshToken(deps.auth.jwtSecret, refreshToken);
  const { userId, jti } = await rotateSession(deps.db, claims.fam, claims.jti).catch((e: unknown) => {
    deps.callers.forgetSession(claims.fam); // reuse detection revoked it: its access tokens end too
    throw e;
  });
  const user = await findUserById(deps.db, userId);
  if (!user || user.disabled || user.id !== claims.sub) {
    await revokeSession(deps.db, claims.fam);
    deps.callers.forgetSession(claims.fam);
    throw new AppError('UNAUTHENTICATED', 'the refresh token is no longer valid: log in again');
  }
  return issue(deps, user, claims.fam, jti, 'token refreshed');
}

/**
 * Clears both cookies, and revokes the session of the refresh token if one came with the request:
 * its access tokens stop working at once here, within AUTH_CACHE_SECONDS on other instances.
 */
export async function logout(
  deps: SessionDeps,
  refreshToken: string | undefined,
): Promise<{ message: string; cookies: string[] }> {
  if (refreshToken) {
    try {
      const { fam } = verifyRefreshToken(deps.auth.jwtSecret, refreshToken);
      await revokeSession(deps.db, fam);
      deps.callers.forgetSession(fam);
    } catch (e) {
      if (!(e instanceof AppError)) throw e; // an invalid token has no session to end
    }
  }
  const expired = { ...cookieOptions(deps.auth, 0), expires: new Date(0) };
  return {
    message: 'logged out',
    cookies: [serialize(ACCESS_COOKIE, '', expired), serialize(REFRESH_COOKIE, '', expired)],
  };
}

// A valid scrypt hash of a random password, for constant-time failures on unknown emails.
const DUMMY_HASH = 'scrypt$131072$8$1$c2FsdHNhbHRzYWx0c2FsdA$LVsb7m1W0uZ0j7k8nY1JH1o1rQ8yS5c5bq2u0m0x1nE';
