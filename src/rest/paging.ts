import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { openCursor, sealCursor } from './cursor.js';
import { parseQuery, type ParamSpecs, type ParamValues } from './params.js';

/**
 * Cursor-paged REST lists (trades, quotes, balance sheets): a first request carries filters; each
 * page's `next_url` carries them again, sealed, with the keyset position. Following `next_url`
 * alone (plus the key, in a header or the query) continues the same list.
 */
export interface CursorRequest<S extends ParamSpecs> {
  params: ParamValues<S>;
  /** The raw filter parameters, to carry into the next cursor. */
  raw: Record<string, string>;
  /** The keyset cursor to continue after, on a followed next_url. */
  after: string | undefined;
}

export function readCursorRequest<S extends ParamSpecs>(ctx: Context, url: URL, route: string, specs: S): CursorRequest<S> {
  const cursor = url.searchParams.get('cursor');
  if (cursor === null) {
    const query = new URLSearchParams(url.searchParams);
    query.delete('apikey');
    return { params: parseQuery(specs, query), raw: Object.fromEntries(query), after: undefined };
  }
  const others = [...url.searchParams.keys()].filter((k) => k !== 'cursor' && k !== 'apikey');
  if (others.length) throw new AppError('BAD_REQUEST', `parameter cursor comes alone (it carries the filters already); also got ${others.join(', ')}`);
  const state = openCursor(ctx.sessions.auth.jwtSecret, route, cursor);
  return { params: parseQuery(specs, new URLSearchParams(state.params)), raw: state.params, after: state.after };
}

/** What a proxy may say of the client's scheme and host (X-Forwarded-*), and nothing else. */
const FORWARDED_PROTO = /^https?$/;
const FORWARDED_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The base of the absolute links this service writes: PUBLIC_URL, which production requires
 * (config.ts). Elsewhere without it, the origin as the client reached it.
 */
export function publicBase(ctx: Context, url: URL): string {
  if (ctx.config.publicUrl !== undefined) return ctx.config.publicUrl;
  if (ctx.config.auth.trustProxy) {
    const proto = ctx.request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = ctx.request.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
    if (proto && host && FORWARDED_PROTO.test(proto) && FORWARDED_HOST.test(host)) return `${proto}://${host}`;
  }
  return url.origin;
}

/** `next_url` for the page after `lastCursor`, or undefined on the last page. */
export function nextUrl(ctx: Context, url: URL, route: string, raw: Record<string, string>, lastCursor: string | undefined, hasNextPage: boolean): string | undefined {
  if (!hasNextPage || !lastCursor) return undefined;
  const token = sealCursor(ctx.sessions.auth.jwtSecret, { route, params: raw, after: lastCursor });
  return `${publicBase(ctx, url)}${url.pathname}?cursor=${token}`;
}
