import { cookiesOf, REFRESH_COOKIE } from '../auth/caller.js';
import { checkSite } from '../auth/csrf.js';
import { login, logout, refresh } from '../auth/session-cookies.js';
import type { Context } from '../context.js';
import { jsonObjectBody } from '../http/body.js';
import { int, object, str } from './json-schema.js';
import { json, type Route } from './route.js';

const SESSION_BODY = object({
  message: str('What happened.'),
  expires_in: int('Seconds until the access token expires (3600).'),
});
const SESSION_COOKIES =
  'The tokens are set as cookies: DT_AUTH_TOKEN (access, Max-Age 3600) and DT_REFRESH_TOKEN (refresh, Max-Age 30 days), both HttpOnly, SameSite=Lax, Path=/, Secure.';

/** Plenty for an email (320) and a password (1024); login is public, so nothing bigger is read. */
const MAX_BODY_BYTES = 16 * 1024;

/** The request body as JSON, insisting on the content type the legacy login route names (application/json). */
function jsonBody(request: Request): Promise<Record<string, unknown>> {
  return jsonObjectBody(request, MAX_BODY_BYTES, '{"email": ..., "password": ...}');
}

const SITE_ERROR = {
  '403':
    'The request comes from a page of another site: its Origin is neither this host nor in CORS_ORIGINS, or it is cross-site (Sec-Fetch-Site) without an Origin (CSRF protection).',
};

/** These set or clear the session cookies: a page of another site must not (login CSRF, forced logout). */
function checkSessionSite(ctx: Context): void {
  checkSite(ctx.request, ctx.config.auth.corsOrigins, 'a request that sets or clears the session cookies');
}

function withCookies(body: unknown, cookies: string[]): Response {
  return json(
    body,
    200,
    cookies.map((c) => ['set-cookie', c] as [string, string]),
  );
}

/** The legacy login, refresh and validate paths, and our logout: it clears both cookies and ends the session. */
export const sessionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/kms/api/v1/auth/token',
    access: 'public',
    maxBodyBytes: MAX_BODY_BYTES,
    doc: {
      summary: 'Log in with email and password',
      description: `${SESSION_COOKIES} A wrong password, an unknown email and a disabled user get the same 401. Limited per email and per address (429). The body must be application/json (415 otherwise) of at most 16 KiB (413).`,
      body: object({ email: str('Email address.'), password: str('Password.') }),
      response: SESSION_BODY,
      errors: SITE_ERROR,
    },
    async handle(ctx: Context) {
      checkSessionSite(ctx);
      const body = await jsonBody(ctx.request);
      const r = await login(ctx.sessions, { email: body.email, password: body.password }, ctx.ip);
      return withCookies({ message: r.message, expires_in: r.expiresIn }, r.cookies);
    },
  },
  {
    method: 'POST',
    path: '/kms/api/v1/auth/refresh',
    access: 'public',
    doc: {
      summary: 'Exchange the refresh cookie for new tokens',
      description: `Send the DT_REFRESH_TOKEN cookie. ${SESSION_COOKIES} The refresh token is rotated: the old one stops working, and presenting it again revokes the whole session (401).`,
      response: SESSION_BODY,
      errors: SITE_ERROR,
    },
    async handle(ctx: Context) {
      checkSessionSite(ctx);
      const r = await refresh(ctx.sessions, cookiesOf(ctx.request)[REFRESH_COOKIE]);
      return withCookies({ message: r.message, expires_in: r.expiresIn }, r.cookies);
    },
  },
  {
    method: 'GET',
    path: '/kms/api/v1/auth/validate',
    doc: {
      summary: 'Who holds this access token',
      description: 'Authorization: Bearer <access token>, or the DT_AUTH_TOKEN cookie, or an API key (its owner).',
      response: object({
        user_id: str('User id (uuid).'),
        email: str('Email address.'),
        username: str('User name.'),
        licensing_tier_id: { type: 'string', enum: ['free', 'pro', 'enterprise'], description: 'Licensing tier.' },
      }),
    },
    // the legacy client sends a Bearer access token; the cookie and API keys name a caller just as well
    access: 'authenticated',
    handle(ctx: Context) {
      const caller = ctx.caller!;
      return json({
        user_id: caller.userId,
        email: caller.email,
        username: caller.username,
        licensing_tier_id: caller.tier,
      });
    },
  },
  {
    method: 'POST',
    path: '/kms/api/v1/auth/logout',
    access: 'public',
    doc: {
      summary: 'Clear the session cookies and revoke the session',
      description:
        'Send the DT_REFRESH_TOKEN cookie to end its session (its access tokens stop working too); both cookies are cleared either way.',
      response: object({ message: str('What happened.') }),
      errors: SITE_ERROR,
    },
    async handle(ctx: Context) {
      checkSessionSite(ctx);
      const r = await logout(ctx.sessions, cookiesOf(ctx.request)[REFRESH_COOKIE]);
      return withCookies({ message: r.message }, r.cookies);
    },
  },
];
