import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { ERROR_BODY, type JsonSchema } from '../../src/rest/json-schema.js';
import { matchPath } from '../../src/rest/route.js';
import { routes } from '../../src/rest/routes.js';
import type { GraphQLHarness } from '../graphql/helpers.js';

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<JsonSchema, ReturnType<typeof ajv.compile>>();

function validator(schema: JsonSchema) {
  let v = compiled.get(schema);
  if (!v) compiled.set(schema, (v = ajv.compile(schema)));
  return v;
}

export interface RestResult {
  status: number;
  headers: Headers;
  /** The body as text, to check what JSON.parse would round (19-digit integers). */
  text: string;
  body: any;
}

/**
 * GET (or POST) a REST path through app.fetch as `key` (the enterprise demo key by default; null
 * for none), and validate the answer against the route's OpenAPI schema: the 200 schema, or the
 * documented error body. Every REST test goes through this, so every response is checked.
 */
export async function rest(
  h: Pick<GraphQLHarness, 'app'>,
  pathAndQuery: string,
  options: { key?: string | null; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<RestResult> {
  const key = options.key === undefined ? 'demo-enterprise' : options.key;
  const url = pathAndQuery.startsWith('http') ? pathAndQuery : `http://test${pathAndQuery}`;
  const res = await h.app.fetch(url, {
    method: options.method ?? 'GET',
    headers: { ...(key ? { 'x-api-key': key } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  const { pathname } = new URL(url);
  const route = routes.find((r) => r.method === (options.method ?? 'GET') && matchPath(r.path, pathname));
  if (res.status === 200 && route?.doc) {
    const validate = validator(route.doc.response);
    expect(validate(body), `${pathname} 200 body against its OpenAPI schema: ${ajv.errorsText(validate.errors)}`).toBe(
      true,
    );
  } else if (res.status >= 400) {
    const own = route?.doc.badRequestBody;
    const validate = validator(
      own && res.status === 400 ? own : own && res.status === 503 ? { anyOf: [ERROR_BODY, own] } : ERROR_BODY,
    );
    expect(
      validate(body),
      `${pathname} ${res.status} body against the error schema: ${ajv.errorsText(validate.errors)}`,
    ).toBe(true);
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** A 400 whose message names the parameter (and, when given, the value). */
export function expectBadParam(r: RestResult, name: string, value?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.code).toBe('BAD_REQUEST');
  expect(r.body.message).toContain(name);
  if (value !== undefined) expect(r.body.message).toContain(value);
}

/** Follows next_url to the end (with the key as a header only), returning every page's results. */
export async function followPages(
  h: Pick<GraphQLHarness, 'app'>,
  first: string,
  key = 'demo-enterprise',
  maxPages = 1000,
): Promise<any[][]> {
  const pages: any[][] = [];
  let next: string | undefined = first;
  while (next && pages.length < maxPages) {
    const r = await rest(h, next, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    pages.push(r.body.results);
    next = r.body.next_url;
    if (next) expect(next).toMatch(/^http:\/\/test\/.*\?cursor=[^&]+$/);
  }
  return pages;
}

/** Query strings the trades and quotes routes refuse with a 400, the parameter it names, and the value it quotes. */
export const BAD_TICK_PARAMS: readonly [string, string, string?][] = [
  ['?limit=5001', 'limit', '5001'],
  ['?limit=0', 'limit', '0'],
  ['?limit=ten', 'limit', 'ten'],
  ['?order=sideways', 'order', 'sideways'],
  ['?sort=price', 'sort', 'price'],
  ['?timestamp=2026-13-45', 'timestamp', '2026-13-45'],
  ['?timestamp=2026-02-30', 'timestamp', '2026-02-30'],
  ["?timestamp.gte=1'%20OR%201=1", 'timestamp.gte'],
  ['?timestamp.lt=99999999999999999999', 'timestamp.lt'],
  ['?cursor=bm9wZQ', 'cursor'],
  ['?limit=5&cursor=abc.def', 'cursor'],
  ['?limit=5&limit=6', 'limit'],
];
