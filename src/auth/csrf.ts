import { AppError } from '../errors.js';

/**
 * CSRF protection for cookie-authenticated GraphQL. A browser attaches the session cookie to
 * requests another site makes, but only "simple" ones need no CORS preflight: a GET, or a POST of
 * a form or text/plain. Those must carry a header no other site can set without a preflight
 * (the ones Yoga and Apollo clients send); JSON posts are preflighted anyway. The session
 * mutations (login, refreshSession, logout) check it too: they set or clear the cookies. Which
 * site a request comes from is `checkSite`'s to decide.
 */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'];
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

export function checkNotCrossSite(request: Request, what = 'a request authenticated by cookie'): void {
  const type = request.headers.get('content-type')?.toLowerCase();
  const preflighted =
    request.method === 'POST' && type !== undefined && !SIMPLE_CONTENT_TYPES.some((t) => type.startsWith(t));
  if (preflighted || CSRF_HEADERS.some((h) => request.headers.has(h))) return;
  throw new AppError(
    'FORBIDDEN',
    `${what} must be a JSON POST or carry one of the headers ${CSRF_HEADERS.join(', ')} (CSRF protection)`,
  );
}

/**
 * For every request a browser may send with the session cookies (anything authenticated by cookie,
 * the session routes and mutations, a WebSocket): the page that sent it must be of this host or of
 * an origin in CORS_ORIGINS. Browsers send `Origin` with every POST, CORS request and WebSocket,
 * and `Sec-Fetch-Site` with every request; a client sending neither is not a browser, and no other
 * site's page can be behind it.
 */
export function checkSite(request: Request, listed: readonly string[], what: string): void {
  const origin = request.headers.get('origin');
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (origin !== null) {
    if (listed.includes(origin) || hostOf(origin) === host) return;
    throw new AppError(
      'FORBIDDEN',
      `CSRF protection: ${what} must come from a page of this host (${host}) or of an origin in CORS_ORIGINS; its Origin is ${JSON.stringify(origin)}`,
    );
  }
  if (request.headers.get('sec-fetch-site') === 'cross-site') {
    throw new AppError(
      'FORBIDDEN',
      `CSRF protection: ${what} must come from a page of this host (${host}) or of an origin in CORS_ORIGINS; this one is cross-site (Sec-Fetch-Site) without an Origin`,
    );
  }
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
