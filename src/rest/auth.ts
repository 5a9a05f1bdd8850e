import { cookiesOf, REFRESH_COOKIE } from '../auth/caller.js';
import { login, logout, refresh } from '../auth/sessions.js';
import { AppError } from '../errors.js';
import type { Context } from '../context.js';
import { json, type Route } from './route.js';

/** The request body as JSON, insisting on the content type the spec names (4.13). */
async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the body must be application/json; got ${JSON.stringify(type || 'no Content-Type')}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    throw new AppError('BAD_REQUEST', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('BAD_REQUEST', 'the body must be a JSON object {"email": ..., "password": ...}');
  return body as Record<string, unknown>;
}

function withCookies(body: unknown, cookies: string[]): Response {
  return json(body, 200, cookies.map((c) => ['set-cookie', c] as [string, string]));
}

/** Spec 4.13 paths; logout is ours (decisions: it clears both cookies and ends the session). */
export const authRoutes: Route[] = [
  {
    method: 'POST',
    path: '/kms/api/v1/auth/token',
    access: 'public',
    async handle(ctx: Context) {
      const body = await jsonBody(ctx.request);
      const r = await login(ctx.sessions, { email: body.email, password: body.password }, ctx.ip);
      return withCookies({ message: r.message, expires_in: r.expiresIn }, r.cookies);
    },
  },
  {
    method: 'POST',
    path: '/kms/api/v1/auth/refresh',
    access: 'public',
    async handle(ctx: Context) {
      const r = await refresh(ctx.sessions, cookiesOf(ctx.request)[REFRESH_COOKIE]);
      return withCookies({ message: r.message, expires_in: r.expiresIn }, r.cookies);
    },
  },
  {
    method: 'GET',
    path: '/kms/api/v1/auth/validate',
    // the spec's client sends a Bearer access token; the cookie and API keys name a caller just as well
    access: 'authenticated',
    handle(ctx: Context) {
      const caller = ctx.caller!;
      return json({ user_id: caller.userId, email: caller.email, username: caller.username, licensing_tier_id: caller.tier });
    },
  },
  {
    method: 'POST',
    path: '/kms/api/v1/auth/logout',
    access: 'public',
    async handle(ctx: Context) {
      const r = await logout(ctx.sessions, cookiesOf(ctx.request)[REFRESH_COOKIE]);
      return withCookies({ message: r.message }, r.cookies);
    },
  },
];
