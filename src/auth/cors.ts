import { AppError } from '../errors.js';
import { CSRF_HEADERS } from './csrf.js';

/**
 * CORS for every path (GraphQL, REST, probes), from one allow-list: CORS_ORIGINS (config.ts).
 * A listed origin gets the same grant on a preflight and on the actual response: itself as
 * Access-Control-Allow-Origin, with credentials (its pages call with the user's cookies). Any
 * other origin gets no CORS header at all, so browsers keep its pages from reading answers; with
 * an empty list the API is same-origin only.
 */
export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'POST'];
/** What clients of this API send: credentials, the CSRF headers of auth/csrf.ts, a request id, Apollo's client names. */
export const CORS_ALLOW_HEADERS = [
  'content-type',
  'authorization',
  'x-api-key',
  ...CSRF_HEADERS,
  'x-request-id',
  'apollographql-client-name',
  'apollographql-client-version',
];
/** What a page may read of a response beyond the CORS-safelisted headers. */
export const CORS_EXPOSE_HEADERS = ['x-request-id', 'retry-after', 'x-total-count', 'x-ignored-parameters', 'allow'];
/** How long a browser may reuse a preflight's answer (Chromium caps it at 7200). */
export const CORS_MAX_AGE_SECONDS = 600;

export interface Cors {
  /** Whether pages of this origin may call with credentials. */
  allows(origin: string): boolean;
  /**
   * The answer to a preflight (OPTIONS with Origin and Access-Control-Request-Method): 204 with the
   * grant for a listed origin; FORBIDDEN (403, no grant) for any other. Null for other requests.
   */
  preflight(request: Request): Response | null;
  /** The grant headers for a listed origin, and `Vary: Origin` whenever the request has one. */
  decorate(request: Request, response: Response): void;
}

export function createCors(origins: readonly string[]): Cors {
  const listed = new Set(origins);
  const allows = (origin: string) => listed.has(origin);
  const grant = (headers: Headers, origin: string) => {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-credentials', 'true');
  };
  return {
    allows,
    preflight(request) {
      const origin = request.headers.get('origin');
      if (request.method !== 'OPTIONS' || origin === null || !request.headers.has('access-control-request-method'))
        return null;
      if (!allows(origin)) {
        throw new AppError(
          'FORBIDDEN',
          `CORS: pages of ${JSON.stringify(origin)} may not call this API (not in CORS_ORIGINS${listed.size ? '' : ', which is empty: same origin only'})`,
        );
      }
      const response = new Response(null, { status: 204 });
      grant(response.headers, origin);
      response.headers.set('access-control-allow-methods', CORS_ALLOW_METHODS.join(', '));
      response.headers.set('access-control-allow-headers', CORS_ALLOW_HEADERS.join(', '));
      response.headers.set('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
      return response;
    },
    decorate(request, response) {
      const origin = request.headers.get('origin');
      if (origin === null) return;
      // caches must not serve one origin's answer (with or without a grant) to another
      response.headers.append('vary', 'Origin');
      if (!allows(origin)) return;
      grant(response.headers, origin);
      response.headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS.join(', '));
    },
  };
}
