import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from '../context.js';
import { lastCursor, type Page } from '../db/keyset.js';
import { AppError } from '../errors.js';
import { HOST } from '../http/node.js';
import { arr, object, str, type JsonSchema } from './json-schema.js';
import {
  COMMON_PARAMS,
  givenParams,
  parseQuery,
  parseValue,
  quoted,
  type GivenParam,
  type ParamSpecs,
  type ParamValues,
} from './params.js';
import { json, shapeRows } from './route.js';

// The REST lists paged by `next_url` (trades, quotes, balance sheets): keyset pages (db/keyset.ts)
// behind an absolute link. A first request carries filters; each page's `next_url` carries them
// again, sealed, with the keyset position. Following `next_url` alone (plus the key, in a header or
// the query) continues the same list. (The page-numbered routes use page-number.ts.)

/**
 * The `cursor` of a `next_url`: the request's own parameters plus the keyset position, sealed with
 * an HMAC so that a client can follow it but not alter it (a changed or corrupted cursor is a 400).
 * Its parameters go through the same validation as a first request.
 */
export interface CursorState {
  /** The route it belongs to, so a trades cursor is refused on quotes. */
  route: string;
  params: Record<string, string>;
  /** The keyset cursor of the last row served. */
  after: string;
}

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', `${secret}:rest-cursor`).update(body).digest().subarray(0, 16);
}

export function sealCursor(secret: string, state: CursorState): string {
  const body = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

export function openCursor(secret: string, route: string, token: string): CursorState {
  const bad = new AppError('BAD_REQUEST', 'parameter cursor is not valid: follow next_url exactly as it was given');
  const [body, sig] = token.split('.');
  if (!body || !sig || token.length > 8_192) throw bad;
  const expected = mac(secret, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad;
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState;
  } catch {
    throw bad;
  }
  if (typeof state.after !== 'string' || typeof state.params !== 'object' || state.params === null) throw bad;
  if (state.route !== route)
    throw new AppError(
      'BAD_REQUEST',
      `parameter cursor continues another list (${state.route}), not this one (${route}): follow next_url as it was given`,
    );
  return state;
}

export interface CursorRequest<S extends ParamSpecs> {
  params: ParamValues<S>;
  /** The raw filter parameters, by their own names, to carry into the next cursor. */
  raw: Record<string, string>;
  /** The keyset cursor to continue after, on a followed next_url. */
  after: string | undefined;
}

/** The route's parameters a query gives, by their own names (aliases read), without the common ones (the key). */
function filtersOf(specs: ParamSpecs, query: URLSearchParams): Map<string, GivenParam> {
  const own = new URLSearchParams();
  for (const [name, value] of query) if (!COMMON_PARAMS.has(name) && name !== 'cursor') own.append(name, value);
  return givenParams(specs, own);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/**
 * A cursor with other parameters (docs/rest.md#what-the-routes-accept): each is checked against
 * its definition as on a first request; a page size is honoured (the keyset position does not
 * depend on it, and the next cursor carries the new one); any other is ignored, and named so in
 * X-Ignored-Parameters, when it means what the cursor's list already has (its value, or its
 * default where the cursor's request left it out), and a 400 when it would change the answer.
 */
function resentWithCursor<S extends ParamSpecs>(
  ctx: Context,
  specs: S,
  query: URLSearchParams,
  state: CursorState,
): Record<string, string> {
  const raw = { ...state.params };
  const ofCursor = parseQuery(specs, new URLSearchParams(state.params)) as Record<string, unknown>;
  for (const [name, { sent, value }] of filtersOf(specs, query)) {
    const spec = specs[name]!;
    if (value === '') {
      ctx.ignoredParameters.push(sent);
      continue;
    }
    const given = parseValue(sent, spec, value);
    if (spec.type === 'integer' && spec.pageSize) raw[name] = value;
    else if (sameValue(given, ofCursor[name])) ctx.ignoredParameters.push(sent);
    else {
      const mine = state.params[name];
      const theirs =
        mine !== undefined
          ? quoted(mine)
          : spec.default !== undefined
            ? `${quoted(String(spec.default))} (its default)`
            : 'none';
      throw new AppError(
        'BAD_REQUEST',
        `parameter ${sent} contradicts the cursor: got ${quoted(value)}, the cursor's list has ${theirs}; follow next_url as it is to continue that list, or leave out the cursor to start another`,
      );
    }
  }
  return raw;
}

export function readCursorRequest<S extends ParamSpecs>(
  ctx: Context,
  url: URL,
  route: string,
  specs: S,
): CursorRequest<S> {
  const query = url.searchParams;
  const cursors = query.getAll('cursor');
  if (cursors.length === 0) {
    const raw = Object.fromEntries([...filtersOf(specs, query)].map(([name, { value }]) => [name, value]));
    return { params: parseQuery(specs, new URLSearchParams(raw)), raw, after: undefined };
  }
  if (cursors.length > 1) throw new AppError('BAD_REQUEST', 'parameter cursor is given more than once');
  const state = openCursor(ctx.sessions.auth.jwtSecret, route, cursors[0]!);
  const raw = resentWithCursor(ctx, specs, query, state);
  return { params: parseQuery(specs, new URLSearchParams(raw)), raw, after: state.after };
}

/** What a proxy may say of the client's scheme (X-Forwarded-Proto), and nothing else. */
const FORWARDED_PROTO = /^https?$/;

/**
 * The base of the absolute links this service writes: PUBLIC_URL, which production requires
 * (config.ts). Elsewhere without it, the origin as the client reached it: its Host header (checked
 * before anything routes, app.ts), since a request's URL never takes it (http/node.ts); a caller
 * in this process without one, the URL it gave.
 */
export function publicBase(ctx: Context, url: URL): string {
  if (ctx.config.publicUrl !== undefined) return ctx.config.publicUrl;
  if (ctx.config.auth.trustProxy) {
    const proto = ctx.request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = ctx.request.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
    if (proto && host && FORWARDED_PROTO.test(proto) && HOST.test(host)) return `${proto}://${host}`;
  }
  const host = ctx.request.headers.get('host');
  return host ? `http://${host}` : url.origin;
}

/** `next_url` for the page after `lastCursor`, or undefined on the last page. */
export function nextUrl(
  ctx: Context,
  url: URL,
  route: string,
  raw: Record<string, string>,
  lastCursor: string | undefined,
  hasNextPage: boolean,
): string | undefined {
  if (!hasNextPage || !lastCursor) return undefined;
  const token = sealCursor(ctx.sessions.auth.jwtSecret, { route, params: raw, after: lastCursor });
  return `${publicBase(ctx, url)}${url.pathname}?cursor=${token}`;
}

/** A `next_url` list's query as OpenAPI shows it: its filters, or the cursor of a next_url. */
export function withCursorParam(specs: ParamSpecs): ParamSpecs {
  return {
    ...specs,
    cursor: {
      type: 'string',
      description:
        'The cursor from a next_url; it carries the filters, so it needs nothing else. Sent with it, a page size is honoured, a parameter that means what the cursor has is ignored (X-Ignored-Parameters), any other is a 400.',
    },
  };
}

/** The envelope of the `next_url` lists: next_url only while there is a next page. */
export function cursorEnvelope(item: JsonSchema) {
  return object(
    {
      next_url: str('Absolute URL of the next page (its cursor carries the filters); absent on the last page.'),
      request_id: str('This request; also the X-Request-Id header.'),
      results: arr(item),
      status: { const: 'OK' },
    },
    ['request_id', 'results', 'status'],
  );
}

/** One keyset page in that envelope, its `next_url` carrying `raw` (the request's filters) on. */
export function cursorPageResponse<Row>(
  ctx: Context,
  url: URL,
  route: string,
  raw: Record<string, string>,
  page: Page<Row>,
  shape: (row: Row) => Record<string, unknown>,
): Response {
  const next = nextUrl(ctx, url, route, raw, lastCursor(page), page.hasNextPage);
  return json({
    ...(next ? { next_url: next } : {}),
    request_id: ctx.requestId,
    results: shapeRows(ctx, page.nodes, shape),
    status: 'OK',
  });
}
