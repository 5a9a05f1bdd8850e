import { AppError } from '../errors.js';

/**
 * CSRF protection for cookie-authenticated GraphQL. A browser attaches the session cookie to
 * requests another site makes, but only "simple" ones need no CORS preflight: a GET, or a POST of
 * a form or text/plain. Those must carry a header no other site can set without a preflight
 * (the ones Yoga and Apollo clients send); JSON posts are preflighted anyway. The session
 * mutations (login, refreshSession, logout) check it too: they set or clear the cookies.
 */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'];
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

export function checkNotCrossSite(request: Request, what = 'a request authenticated by cookie'): void {
  const type = request.headers.get('content-type')?.toLowerCase();
  const preflighted = request.method === 'POST' && type !== undefined && !SIMPLE_CONTENT_TYPES.some((t) => type.startsWith(t));
  if (preflighted || CSRF_HEADERS.some((h) => request.headers.has(h))) return;
  throw new AppError('FORBIDDEN', `${what} must be a JSON POST or carry one of the headers ${CSRF_HEADERS.join(', ')} (CSRF protection)`);
}

/**
 * For a WebSocket authenticated by cookie (cross-site WebSocket hijacking): a browser always sends
 * `Origin` with the upgrade, and it must be this host. A client without `Origin` is not a browser.
 */
export function checkSameOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== undefined && host === request.headers.get('host')) return;
  throw new AppError('FORBIDDEN', `CSRF protection: a WebSocket authenticated by cookie must come from a page of this host (${request.headers.get('host')}); its Origin is ${JSON.stringify(origin)}`);
}
