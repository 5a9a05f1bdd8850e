// Production answers carry no internals (issue 27, build item 7). The attack inputs, a few of each
// class that test/attack/ and the issue's findings hold (the fuzz corpus goes through the same
// production app and checks in fuzz.test.ts), are sent to an app configured as production is; no
// answer may hold a stack frame, a source path, SQL text or a JSON parser's message (helpers.ts
// INTERNALS), and none may be a 5xx. The attack inputs go over real sockets, both ways server.ts
// serves (http/direct.ts), and over WebSocket.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { attachWebSocket } from '../../src/graphql/ws.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { expectNoInternals, listen, productionApp, send, type Listeners } from './helpers.js';

const dbs = testDatabases();
/** Budgets out of reach, as for the fuzz suite: the inputs explore the handlers, not the rate limits. */
const UNLIMITED = {
  RATE_LIMIT_FREE: '100000000',
  RATE_LIMIT_PRO: '100000000',
  RATE_LIMIT_ENTERPRISE: '100000000',
  RATE_LIMIT_ANONYMOUS: '100000000',
};

interface Ask {
  method?: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

const KEY = { 'x-api-key': 'demo-enterprise' };
const json = (body: string, headers: Record<string, string> = KEY): Ask => ({
  method: 'POST',
  target: '/graphql',
  headers: { 'content-type': 'application/json', ...headers },
  body,
});
const doc = (query: string, variables?: unknown, extensions?: unknown) =>
  json(JSON.stringify({ query, variables, extensions }));
const b64 = (text: string) => Buffer.from(text).toString('base64');
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** The attack inputs by class, each named. */
const ATTACKS: Record<string, Ask[]> = {
  'Host headers that are not hosts (finding 5)': ['a:b', 'x y', '[::1', 'a%b', 'x:80:80'].flatMap((host): Ask[] => [
    { target: '/healthz', headers: { host } },
    { target: '/openapi.json', headers: { host } },
    { ...json('{"query":"{ __typename }"}'), headers: { host, 'content-type': 'application/json' } },
  ]),
  'Host headers steering /graphql elsewhere (finding 6)': ['x\\metrics?', 'x/openapi.json?', 'x#', 'x@metrics'].map(
    (host) => ({ target: '/graphql', headers: { host } }),
  ),
  'request targets that are no path': ['*', '/graphql#x', '/graphql/../metrics', '/%2e%2e/metrics', '/\\metrics'].map(
    (target) => ({ target }),
  ),
  'parameters of the wrong type (finding 7)': [
    ...[{}, 5, ['Q'], true].map((operationName) => json(JSON.stringify({ query: '{ __typename }', operationName }))),
    json('{"query":1}'),
    json('{"query":"{ __typename }","variables":[1]}'),
    json('{"query":"{ __typename }","extensions":"x"}'),
    { target: '/graphql?query=%7B__typename%7D&variables=5' },
    { target: '/graphql?query=%7B__typename%7D&variables=%7Bbad' },
    { target: '/graphql?query=%7B__typename%7D&extensions=%7Bbad' },
  ],
  'bodies that are not JSON (finding 13)': [
    json('{"query":'),
    json('{"query":"{ __typename }"'),
    json("{'query':1}"),
    json('nope'),
    { method: 'POST', target: '/kms/api/v1/auth/token', headers: { 'content-type': 'application/json' }, body: '{"e' },
    { method: 'POST', target: '/ocr/v1/extract', headers: { 'content-type': 'application/json', ...KEY }, body: '[' },
  ],
  'bodies of other shapes, types and sizes': [
    json('[{"query":"{ __typename }"},{"query":"{ __typename }"}]'),
    json('null'),
    json('5'),
    json('{}'),
    json(''),
    json(`{"query":"{ __typename }","pad":"${' '.repeat(1_100_000)}"}`, {}),
    { method: 'POST', target: '/graphql', headers: { 'content-type': 'text/plain', ...KEY }, body: '{ __typename }' },
    {
      method: 'POST',
      target: '/graphql',
      headers: { 'content-type': 'application/graphql', ...KEY },
      body: '{ __typename',
    },
    {
      method: 'POST',
      target: '/graphql',
      headers: { 'content-type': 'multipart/form-data; boundary=x', ...KEY },
      body: '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{bad\r\n--x--\r\n',
    },
    { method: 'POST', target: '/graphql', headers: KEY, body: 'query={__typename}' },
  ],
  'documents past the limits': [
    doc(`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ')} }`),
    doc(`{ ${'__typename '.repeat(1200)}}`),
    doc(`{ __typename ${'@include(if: true) '.repeat(60)}}`),
    doc(
      `{ logos(first: 100) { nodes { securities { ${Array.from({ length: 15 }, (_, i) => `b${i}: bars(timespan: MINUTE, from: "2026-11-16T14:00:00Z", to: "2026-11-19T21:00:00Z") { nodes { close } }`).join(' ')} } } } }`,
    ),
    doc('{ ...F } fragment F on Query { ...F }'),
    doc('{ __schema { types { name } } }'),
    doc('{ __type(name: "Security") { fields { name } } }'),
    doc('{ _service { sdl } }'),
    doc('{ securty(symbol: "NVLX") { name } }'),
    { target: '/graphql?query=mutation%20%7B%20logout%20%7D' },
    doc('subscription { tradeAdded(symbol: "not a symbol!") { price } }'),
  ],
  'input that is not what it claims': [
    doc('query($v: Int) { __typename }', { v: JSON.parse(deep(100)) }),
    json(`{"query":"{ __typename }","variables":{"d":${deep(5000)}}}`),
    json(`{"query":"{ __typename }","extensions":{"d":${deep(5000)}}}`),
    doc('{ security(symbol: "\\u0000") { name } }'),
    doc('query($a: Int!) { logos(first: $a) { totalCount } }', { a: 'x' }),
    doc('query($a: Int!) { logos(first: $a) { totalCount } }', { a: 1e300 }),
    doc('{ node(id: "x") { id } }'),
    doc(`{ node(id: "${b64('Trade:["NVLX","x"]')}") { id } }`),
    doc(`{ node(id: "${b64('Nope:1')}") { id } }`),
    doc(`{ nodes(ids: [${Array.from({ length: 101 }, () => '"x"').join(',')}]) { id } }`),
    doc('{ logos(first: 1, after: "garbage") { totalCount } }'),
    doc(`{ logos(first: 1, after: "${b64('["\\u0000",1e999]')}") { totalCount } }`),
  ],
  'persisted documents that are not': [
    doc(undefined as never, undefined, { persistedQuery: { version: 1, sha256Hash: 'x' } }),
    doc('{ __typename }', undefined, { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } }),
    doc('{ __typename }', undefined, { persistedQuery: { version: 2, sha256Hash: 'x' } }),
    json('{"documentId":"sha256:nope"}'),
    { target: '/graphql?extensions=%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A5%7D%7D' },
  ],
  'credentials that are not': [
    json('{"query":"{ me { email } }"}', { authorization: 'Bearer junk' }),
    json('{"query":"{ me { email } }"}', { authorization: `Bearer ${b64('{"alg":"none"}')}.${b64('{"sub":"x"}')}.` }),
    json('{"query":"{ me { email } }"}', { cookie: 'DT_AUTH_TOKEN=junk; DT_REFRESH_TOKEN=%%%' }),
    json('{"query":"{ me { email } }"}', { 'x-api-key': `mdg_${'x'.repeat(5000)}` }),
    { target: '/stocks/v3/trades/NVLX?apikey=%00' },
  ],
  'REST parameters and paths': [
    { target: '/stocks/v3/trades/NVLX?constructor=1&__proto__=x&toString=1', headers: KEY },
    { target: '/stocks/v3/trades/NVLX?cursor=garbage', headers: KEY },
    { target: `/stocks/v3/trades/NVLX?cursor=${b64('{"route":"x"}')}`, headers: KEY },
    { target: '/stocks/v3/trades/NVLX?limit=9e99&timestamp.gte=not-a-date&order=sideways', headers: KEY },
    { target: '/stocks/v3/trades/%00', headers: KEY },
    { target: '/stocks/v3/trades/..%2f..%2fetc%2fpasswd', headers: KEY },
    { target: `/api/v1/logos?symbols=${'A,'.repeat(5000)}`, headers: KEY },
    { method: 'POST', target: '/kms/api/v1/auth/token', headers: { 'content-type': 'application/json' }, body: '[]' },
    {
      method: 'POST',
      target: '/ocr/v1/extract',
      headers: { 'content-type': 'application/json', ...KEY },
      body: JSON.stringify({ frame: 'data:image/png;base64,AAAA' }),
    },
    {
      method: 'POST',
      target: '/ocr/v1/extract',
      headers: { 'content-type': 'application/json', ...KEY },
      body: JSON.stringify({ frame: `data:image/png;base64,${b64(`\x89PNG\r\n\x1a\n${'x'.repeat(100)}`)}` }),
    },
  ],
  'methods and streams': [
    { method: 'PUT', target: '/graphql', headers: KEY },
    { method: 'DELETE', target: '/healthz' },
    { method: 'PATCH', target: '/stocks/v3/trades/NVLX', headers: KEY },
    { method: 'TRACE', target: '/graphql' },
    {
      method: 'OPTIONS',
      target: '/graphql',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    },
    {
      ...doc('subscription { tradeAdded(symbol: "not a symbol!") { price } }'),
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...KEY },
    },
    {
      target: '/graphql?query=subscription%20%7B%20newsAdded(symbol%3A%20%22%5Cu0000%22)%20%7B%20title%20%7D%20%7D',
      headers: { accept: 'text/event-stream', ...KEY },
    },
  ],
};

describe.each(dbs)('production answers on $name', (tdb) => {
  let h: GraphQLHarness;
  let app: App;
  let listeners: Listeners;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, UNLIMITED);
    ({ app } = productionApp(h, UNLIMITED));
    listeners = await listen(app);
  });
  afterAll(async () => {
    await listeners?.close();
    await h?.close();
    await tdb.cleanup();
  });

  it.each(Object.entries(ATTACKS))('%s, over sockets either way: no internals, no 5xx', async (_name, asks) => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const ask of asks) {
        const res = await send(port, ask);
        const what = `${way}: ${ask.method ?? 'GET'} ${ask.target.slice(0, 100)} ${JSON.stringify(ask.headers)?.slice(0, 200)} ${ask.body?.slice(0, 100) ?? ''} → ${res.status} ${res.body.slice(0, 300)}`;
        expectNoInternals(res.body, what);
        expect(res.status, what).toBeLessThan(500);
        expect(res.body, what).not.toContain('INTERNAL_SERVER_ERROR');
      }
    }
  });

  it('over WebSocket: messages and close reasons hold no internals', async () => {
    const server = createServer(app);
    const socket = attachWebSocket(server, app, { isProd: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    /** Everything the server says to `frames` sent after connection_init with `init`, until it closes or goes quiet. */
    const converse = async (init: string, frames: string[], headers: Record<string, string> = {}) => {
      const ws = new WebSocket(url, 'graphql-transport-ws', { headers });
      const heard: string[] = [];
      let open = true;
      ws.on('message', (data) => heard.push(String(data)));
      const closed = new Promise<void>((resolve) =>
        ws.on('close', (code, reason) => {
          open = false;
          heard.push(`close ${code} ${String(reason)}`);
          resolve();
        }),
      );
      await new Promise((resolve) => ws.once('open', resolve).once('close', resolve));
      if (open) {
        ws.send(init);
        await expect.poll(() => heard.length > 0, { timeout: 5_000 }).toBe(true);
        for (const frame of open ? frames : []) ws.send(frame);
        // each operation ends with `error` or `complete`, unless the server closed the socket
        const ended = () => heard.filter((m) => /"type":"(error|complete)"/.test(m)).length;
        await expect.poll(() => !open || ended() >= frames.length, { timeout: 5_000 }).toBe(true);
        ws.close();
      }
      await closed;
      return heard;
    };
    const init = JSON.stringify({ type: 'connection_init', payload: { apiKey: 'demo-enterprise' } });
    try {
      const conversations = [
        await converse('{bad', []),
        await converse(JSON.stringify({ type: 'connection_init', payload: { apiKey: { $ne: 1 } } }), []),
        await converse(JSON.stringify({ type: 'connection_init', payload: { apiKey: 'not-a-key' } }), []),
        await converse(init, [], { host: 'a b' }),
        await converse(init, [JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 1 } })]),
        await converse(init, [
          JSON.stringify({ id: '2', type: 'subscribe', payload: { query: '{ __typename', variables: null } }),
          `{"id":"3","type":"subscribe","payload":{"query":"{ __typename }","variables":{"d":${deep(5000)}}}}`,
          JSON.stringify({ id: '4', type: 'subscribe', payload: { query: '{ __schema { types { name } } }' } }),
          JSON.stringify({
            id: '5',
            type: 'subscribe',
            payload: { query: 'subscription($s: String!) { tradeAdded(symbol: $s) { price } }', variables: { s: 5 } },
          }),
        ]),
      ];
      for (const heard of conversations) {
        expect(heard.length).toBeGreaterThan(0);
        for (const m of heard) expectNoInternals(m, `WebSocket: ${m.slice(0, 300)}`);
      }
    } finally {
      await socket.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
