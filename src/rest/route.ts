import { randomUUID } from 'node:crypto';
import type { Resource } from '../domain/entitlements.js';
import type { Context } from '../context.js';
import { every } from '../runtime/deadline.js';
import type { JsonSchema } from './json-schema.js';
import type { ParamSpecs } from './params.js';

/** What the OpenAPI document says of a route; `query` is the very definition the handler validates with. */
export interface RouteDoc {
  summary: string;
  description?: string;
  query?: ParamSpecs;
  path?: ParamSpecs;
  /** The 200 response body. */
  response: JsonSchema;
  /** Request body, for POST routes. */
  body?: JsonSchema;
  /** The 400 body, where the route's own differs from the usual one (security search, docs/rest.md); its handler's 503 may have it too. */
  badRequestBody?: JsonSchema;
  /** Error descriptions by status, where the route's differ from the usual ones or add to them. */
  errors?: Record<string, string>;
}

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
  /**
   * The largest body the route reads (413 past it). The router reads it before `handle` runs, once
   * the caller is known, charged to the bodies in flight (http/body.ts readBody); without it the
   * route reads no body.
   */
  maxBodyBytes?: number;
  handle(ctx: Context, url: URL, params: Record<string, string>): Promise<Response> | Response;
  doc: RouteDoc;
}

/**
 * JSON text in which a bigint is written as a JSON number with every digit (nanosecond
 * timestamps exceed 2^53; clients get the exact digits, not a string: docs/rest.md#keys-and-values). The placeholder
 * carries a per-process nonce and starts with a NUL, so no client-supplied string can mimic it.
 */
const BIGINT_TAG = `\u0000bigint:${randomUUID()}:`;
/** How the tag reads inside JSON text (the NUL escaped). */
const BIGINT_TAG_JSON = JSON.stringify(BIGINT_TAG).slice(1, -1);
const BIGINT_PLACEHOLDER = new RegExp(`"\\\\u0000bigint:${BIGINT_TAG.slice(8, -1)}:(-?\\d+)"`, 'g');

/**
 * `value` with every bigint inside plain objects and arrays replaced by its tagged text; what holds
 * none is returned as is, not copied. (A JSON.stringify replacer does the same but takes V8 off its
 * fast path: 9-14 ms against 6.5 ms for a 5000-trade page, bench/RESULTS.md.)
 */
function tagBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return `${BIGINT_TAG}${value}`;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const t = tagBigints(v);
      if (t !== v) (out ??= value.slice())[i] = t;
    }
    return out ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value; // Date and the like: their toJSON
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    const t = tagBigints(v);
    if (t !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = t;
  }
  return out ?? value;
}

/**
 * A bigint as jsonText writes it (an exact JSON number), already in the form jsonText's walk would
 * give it: records of thousands of rows (trade and quote pages) make it in their shape function,
 * so the walk copies none of them.
 */
export function exactInt(v: bigint): string {
  return `${BIGINT_TAG}${v}`;
}

/**
 * JSON text with bigints written as exact JSON numbers (19-digit nanosecond timestamps keep every
 * digit). A body without raw bigints (tick pages tag theirs with exactInt) goes straight through
 * V8's JSON.stringify, which throws at the first raw bigint; then the walk tags them and it runs
 * again. (A 5000-trade page: 4 ms, against 7 ms more for the walk and 9-14 ms for a replacer.)
 */
export function jsonText(body: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    try {
      text = JSON.stringify(tagBigints(body));
    } catch (again) {
      // a bigint inside an object of another class: the replacer finds it
      if (!(again instanceof TypeError)) throw again;
      text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `${BIGINT_TAG}${v}` : v));
    }
  }
  return text.includes(BIGINT_TAG_JSON) ? text.replace(BIGINT_PLACEHOLDER, '$1') : text;
}

/** Rows shaped between two checks of the request's deadline. */
const ROWS_PER_CHECK = 256;

/** `rows.map(shape)`, the request's deadline checked as it goes: a page may hold thousands of records. */
export function shapeRows<Row, Out>(ctx: Context, rows: readonly Row[], shape: (row: Row) => Out): Out[] {
  const tick = every(ROWS_PER_CHECK, () => ctx.deadline.check('page'));
  return rows.map((row) => {
    tick();
    return shape(row);
  });
}

export function json(body: unknown, status = 200, headers: Record<string, string> | [string, string][] = {}): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json; charset=utf-8');
  return new Response(jsonText(body), { status, headers: h });
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
