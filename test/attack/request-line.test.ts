// What is served is what the request line names (http/node.ts): a request's URL is its target's
// path and query under a fixed origin, never joined with the Host header, so a Host cannot steer
// GET /graphql to /metrics; a Host that is not a host, or a target that is no path (or one that
// URL parsing would rewrite), is a 400 with the usual error body and a request-log line, on every
// path, before anything routes. In production, over real sockets, both ways server.ts serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { COSTED, graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { expectNoInternals, listen, productionApp, requestLine, send, type Answer, type Listeners } from './helpers.js';

/** The finding's four, and each character that ends a host in a URL (`\` `/` `?` `#` `@`) or is no part of one. */
const MALFORMED_HOSTS = [
  'a:b',
  'x y',
  '[::1',
  'a%b',
  'x\\metrics?',
  'x/metrics',
  'x?y',
  'x#y',
  'user@x',
  'x:80:80',
  '[::1]x',
  'x,y',
];
/** What a Host steering GET /graphql elsewhere would look like: each a host, then the path wanted. */
const STEERING = [
  'x\\metrics?',
  'x/metrics?',
  'x\\openapi.json?',
  'x/openapi.json#',
  'x\\stocks\\v3\\trades\\NVLX?',
  'x\\healthz#',
  'x@metrics',
  'x#/metrics',
];
const JSON_BODY = JSON.stringify({ query: '{ __typename }' });
/** A request to each kind of path: the probes, /metrics, the OpenAPI document, GraphQL (GET, POST), REST, none. */
const ASKS = [
  { target: '/healthz' },
  { target: '/readyz' },
  { target: '/metrics' },
  { target: '/openapi.json' },
  { target: '/graphql?query=%7B__typename%7D' },
  { method: 'POST', target: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON_BODY },
  { target: '/stocks/v3/trades/NVLX' },
  { target: '/no/such/path' },
  { method: 'OPTIONS', target: '/graphql' },
];

describe.each(testDatabases())('the request line, in production, on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  let lines: string[];
  let listeners: Listeners;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    ({ app, lines } = productionApp(h));
    listeners = await listen(app);
  });
  afterAll(async () => {
    await listeners?.close();
    await h?.close();
    await tdb.cleanup();
  });

  /** A 400 BAD_REQUEST with the REST error body and `message`, its request id logged with the status. */
  function expectRefused(res: Answer, message: string, what: string): void {
    expect(res.status, what).toBe(400);
    expect(res.headers['content-type'], what).toBe('application/json; charset=utf-8');
    const id = res.headers['x-request-id'] as string;
    expect(JSON.parse(res.body), what).toEqual({ status: 'ERROR', code: 'BAD_REQUEST', message, request_id: id });
    expect(requestLine(lines, id), what).toMatchObject({ status: 400, codes: ['BAD_REQUEST'] });
    expectNoInternals(res.body, what);
  }

  it('a Host that is not a host is a 400 with the error body and a log line, on every path, either way', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const host of MALFORMED_HOSTS) {
        for (const { headers, ...ask } of ASKS) {
          const res = await send(port, { ...ask, headers: { ...headers, host } });
          expectRefused(
            res,
            `the Host header must be a host and an optional port; got ${JSON.stringify(host)}`,
            `${way}: ${ask.method ?? 'GET'} ${ask.target} with Host ${host}`,
          );
        }
      }
    }
    // from a caller in this process too (app.fetch), whose URL is its own
    const res = await app.fetch('http://test/healthz', { headers: { host: 'a b' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('BAD_REQUEST');
  });

  it('a Host cannot steer GET /graphql to another path: the request line decides', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const host of STEERING) {
        for (const method of ['GET', 'POST']) {
          const res = await send(port, {
            method,
            target: '/graphql',
            headers: { host, 'content-type': 'application/json' },
            ...(method === 'POST' ? { body: JSON_BODY } : {}),
          });
          expectRefused(
            res,
            `the Host header must be a host and an optional port; got ${JSON.stringify(host)}`,
            `${way}: ${method} /graphql with Host ${host}`,
          );
        }
      }
      // a Host that is a host and names a path of this service is only a host
      for (const host of ['metrics', 'openapi.json', 'healthz:8080', '[::1]:4000', 'my_service']) {
        const res = await send(port, { target: '/graphql?query=%7B__typename%7D', headers: { host } });
        expect(res.status, `${way}: Host ${host}`).toBe(200);
        expect(JSON.parse(res.body), `${way}: Host ${host}`).toEqual({ data: { __typename: 'Query' }, ...COSTED });
      }
    }
  });

  it('a target that is no path, or that URL parsing would rewrite, is a 400; the absolute form serves its path', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const target of [
        '*',
        '/graphql#x',
        '/healthz#/graphql',
        '/graphql/../metrics',
        '/graphql/..',
        '/graphql/%2e%2e/metrics',
        '/graphql/.%2E/metrics',
        '/./healthz',
        '/\\metrics',
        '/graphql\\..\\metrics',
        'ftp://x/healthz',
        'http://a%b/healthz',
      ]) {
        for (const method of ['GET', 'POST']) {
          const res = await send(port, {
            method,
            target,
            headers: { host: 'gateway.test', 'content-type': 'application/json' },
            ...(method === 'POST' ? { body: JSON_BODY } : {}),
          });
          expectRefused(
            res,
            `the request target must be a path without a fragment, a backslash or a dot segment; got ${JSON.stringify(target)}`,
            `${way}: ${method} ${target}`,
          );
        }
      }
      const served = async (target: string) => {
        const res = await send(port, { target, headers: { host: 'gateway.test' } });
        return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
      };
      // the absolute form (RFC 9112 3.2.2) is its path: its authority is as little a say as Host
      expect(await served('http://elsewhere.example/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await served('http://elsewhere.example?query=%7B__typename%7D')).toMatchObject({ status: 404 });
      // a backslash in the query is left as sent; a doubled slash is a path of its own
      expect(await served('/healthz?x=\\')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await served('//healthz')).toMatchObject({
        status: 404,
        body: { code: 'NOT_FOUND', message: 'no such path: GET //healthz' },
      });
    }
  });
});
