import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from '../errors.js';

/**
 * Access and refresh tokens, following RFC 8725: one pinned algorithm (HS256, so `none` and
 * public-key confusion are refused by the verifier), issuer and audience checked, `exp` required
 * (jsonwebtoken accepts a token without one), short-lived access tokens, and a `token_use` claim
 * so neither kind is ever accepted as the other. An access token names its session (`sid`, the
 * refresh-token family), so logging out or reuse detection ends it too (auth/caller.ts).
 */
const ALGORITHM = 'HS256';
export const ISSUER = 'market-data-gateway';
export const AUDIENCE = 'market-data-gateway';
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

export type TokenUse = 'access' | 'refresh';

export interface AccessClaims {
  sub: string;
  jti: string;
  token_use: 'access';
  /** The session: the refresh-token family this token was issued with. */
  sid: string;
}

export interface RefreshClaims {
  sub: string;
  jti: string;
  token_use: 'refresh';
  /** The refresh-token family (one login's chain of rotations). */
  fam: string;
}

export function signAccessToken(secret: string, userId: string, sessionId: string): string {
  return jwt.sign({ token_use: 'access', sid: sessionId }, secret, {
    algorithm: ALGORITHM,
    expiresIn: ACCESS_TOKEN_SECONDS,
    issuer: ISSUER,
    audience: AUDIENCE,
    subject: userId,
    jwtid: randomUUID(),
  });
}

export function signRefreshToken(secret: string, userId: string, family: string, jti: string): string {
  return jwt.sign({ token_use: 'refresh', fam: family }, secret, {
    algorithm: ALGORITHM,
    expiresIn: REFRESH_TOKEN_SECONDS,
    issuer: ISSUER,
    audience: AUDIENCE,
    subject: userId,
    jwtid: jti,
  });
}

function verify(secret: string, token: string, use: TokenUse): jwt.JwtPayload {
  let claims: string | jwt.JwtPayload;
  try {
    claims = jwt.verify(token, secret, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      complete: false,
    });
  } catch (e) {
    const reason = e instanceof jwt.TokenExpiredError ? 'has expired' : 'is not valid';
    throw new AppError('UNAUTHENTICATED', `the ${use} token ${reason}`);
  }
  if (
    typeof claims === 'string' ||
    claims.token_use !== use ||
    typeof claims.sub !== 'string' ||
    typeof claims.jti !== 'string' ||
    typeof claims.exp !== 'number'
  ) {
    throw new AppError('UNAUTHENTICATED', `the ${use} token is not valid`);
  }
  return claims;
}

/**
 * Whether a Bearer value is to be checked as a token rather than looked up as an API key: a JWT
 * always holds dots (header.payload.signature), an API key never does (newApiKey is base64url).
 */
export function looksLikeJwt(value: string): boolean {
  return value.includes('.');
}

export function verifyAccessToken(secret: string, token: string): AccessClaims {
  const claims = verify(secret, token, 'access');
  if (typeof claims.sid !== 'string') throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
  return claims as AccessClaims;
}

export function verifyRefreshToken(secret: string, token: string): RefreshClaims {
  const claims = verify(secret, token, 'refresh');
  if (typeof claims.fam !== 'string') throw new AppError('UNAUTHENTICATED', 'the refresh token is not valid');
  return claims as RefreshClaims;
}
