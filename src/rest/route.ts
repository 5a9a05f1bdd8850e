import type { Resource } from '../auth/entitlements.js';
import type { Context } from '../context.js';

/**
 * A REST-compatibility route. The app authenticates, checks the entitlement and counts the rate
 * limit before `handle` runs, the same way for every route that names a resource.
 */
export interface Route {
  method: 'GET' | 'POST';
  /** A literal path, or one with `:name` segments (`/stocks/v3/trades/:symbol`). */
  path: string;
  /**
   * `public`: no credentials needed, and any sent are ignored (login, refresh, logout: a stale
   * access cookie must not block a refresh); `authenticated`: any valid credential; otherwise the
   * resource the route serves, which the caller's tier must include.
   */
  access: 'public' | 'authenticated' | Resource;
  handle(ctx: Context, url: URL, params: Record<string, string>): Promise<Response> | Response;
}

export function json(body: unknown, status = 200, headers: Record<string, string> | [string, string][] = {}): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)), { status, headers: h });
}

/** Matches a path against a route pattern; the `:name` segments come back decoded. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) {
      try {
        params[want[i]!.slice(1)] = decodeURIComponent(got[i]!);
      } catch {
        return null;
      }
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}
