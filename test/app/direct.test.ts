// The direct way (src/http/direct.ts) answers byte for byte what the adapter's way answers: two
// apps over one database, one behind node:http as the app itself (the fetch adapter), one behind
// directListener, asked the same requests in the same order over real sockets. Status, every
// header in order and the body must be equal, but for what differs from run to run: Date, a
// generated X-Request-Id, the response cache's Last-Modified, and tokens and ids minted per app.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { directListener } from '../../src/http/direct.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

interface Ask {
  name: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

interface Answer {
  status: number;
  headers: string[];
  body: string;
}

const LISTED = 'https://app.example.com';
/** The Host every request names: the two servers' ports would otherwise show in CSRF messages. */
const HOST = 'gateway.test';
const ENV = { CORS_ORIGINS: LISTED, RATE_LIMIT_FREE: '4', GRAPHQL_MAX_BODY_BYTES: '4000' };

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function send(port: number, ask: Ask): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: ask.method ?? 'POST',
        path: ask.path ?? '/graphql',
        headers: { host: HOST, ...ask.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(ask.body);
  });
}

const masked = (text: string) =>
  text
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<jwt>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\bmdg_(live|test)_\w+/g, '<key>')
    // a rate limit's window began a few milliseconds apart on the two apps: its seconds may round apart
    .replace(/try again in \d+ s/g, 'try again in <n> s');

/** Header names and values in order, without those that differ from run to run. */
function comparable(answer: Answer, askedId: boolean): Answer {
  const headers: string[] = [];
  for (let i = 0; i < answer.headers.length; i += 2) {
    const name = answer.headers[i]!.toLowerCase();
    if (name === 'date' || name === 'last-modified' || (name === 'x-request-id' && !askedId)) continue;
    // what is left of a budget and of its window: each way's budget has its own past, and they answer a moment apart
    const left = name === 'retry-after' || name === 'ratelimit-reset' || name === 'ratelimit-remaining';
    headers.push(`${name}: ${left ? '<n>' : masked(answer.headers[i + 1]!)}`);
  }
  return { status: answer.status, headers, body: masked(answer.body) };
}

const cookiesOf = (answer: Answer) =>
  answer.headers
    .flatMap((v, i) => (i % 2 === 1 && answer.headers[i - 1]!.toLowerCase() === 'set-cookie' ? [v.split(';')[0]!] : []))
    .join('; ');

const json = (
  body: unknown,
  headers: Record<string, string> = {},
  key: string | null = 'demo-enterprise',
): Omit<Ask, 'name'> => {
  const text = JSON.stringify(body);
  return {
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...(key ? { 'x-api-key': key } : {}),
      ...headers,
    },
    body: text,
  };
};

/** The GraphQL requests of the golden file (test/app/golden.test.ts), as recorded. */
function goldenAsks(database: string): Ask[] {
  const file = path.join(import.meta.dirname, 'golden', `answers.${database}.json`);
  const { requests } = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    requests: { name: string; path: string; key?: string; body?: unknown }[];
  };
  return requests
    .filter((r) => r.path === '/graphql')
    .map((r) => ({ name: r.name, ...json(r.body, {}, r.key ?? null) }));
}

const PERSISTED = Object.entries(
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../persisted-operations.json'), 'utf8')) as Record<
    string,
    string
  >,
);
const APQ_QUERY = '{ security(symbol: "ORBT") { symbol name } }';
const APQ = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(APQ_QUERY).digest('hex') } };
const SEVEN_DEEP = `{ securities(search: "NV", first: 1) { nodes { ratings(first: 1) { nodes { security {
  news(first: 1) { nodes { securities { security { symbol } } } } } } } } } }`;

/** Requests that do not depend on what an earlier answer set (cookies). */
function corpus(database: string): Ask[] {
  const q = (name: string, body: unknown, headers?: Record<string, string>, key?: string | null) => ({
    name,
    ...json(body, headers, key),
  });
  const raw = (name: string, body: string, headers: Record<string, string>) => ({
    name,
    headers: { 'x-api-key': 'demo-enterprise', 'content-length': String(Buffer.byteLength(body)), ...headers },
    body,
  });
  return [
    ...goldenAsks(database),
    q('typename', { query: '{ __typename }' }),
    q('variables and operationName', {
      query: 'query A($s: String!) { security(symbol: $s) { symbol } } query B { __typename }',
      variables: { s: 'NVLX' },
      operationName: 'A',
    }),
    q('text beyond ASCII', { query: '{ security(symbol: "Zü✓株") { symbol } }' }),
    q('text beyond ASCII, a syntax error', { query: '{ sécurité }' }),
    q('unknown operationName', { query: 'query A { __typename }', operationName: 'Z' }),
    q('syntax error', { query: '{ security(symbol: "NVLX") { symbol ' }),
    q('unknown field', { query: '{ security(symbol: "NVLX") { nope } }' }),
    q('bad variable', {
      query: 'query($n: Int) { securities(search: "NV", first: $n) { totalCount } }',
      variables: { n: 'x' },
    }),
    q('no query', { variables: {} }),
    q('unexpected parameter', { query: '{ __typename }', foo: 1 }),
    q('cost refused', {
      query:
        '{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 250) { nodes { trades(first: 5000) { nodes { price } } } } }',
    }),
    q('too deep', { query: SEVEN_DEEP }),
    q('aliases', { query: `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: __typename`).join(' ')} }` }),
    raw('bad JSON', '{"query": "{ __typename }"', { 'content-type': 'application/json' }),
    raw('JSON not an object', '[1, 2]', { 'content-type': 'application/json' }),
    raw('JSON null', 'null', { 'content-type': 'application/json' }),
    raw('charset', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json; charset=utf-8' }),
    raw('wrong content-type', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'text/plain' }),
    raw('graphql content-type', '{ __typename }', { 'content-type': 'application/graphql' }),
    q('oversize for its tier (413)', { query: `{ __typename } # ${'x'.repeat(5000)}` }, {}, 'demo-pro'),
    q("within the OCR tier's limit", { query: `{ __typename } # ${'x'.repeat(5000)}` }),
    q('oversize beyond the direct way', { query: `{ __typename } # ${'x'.repeat(70_000)}` }),
    q('no credential', { query: '{ __typename }' }, {}, null),
    q('no credential, a field', { query: '{ me { userId } }' }, {}, null),
    q('bad key', { query: '{ __typename }' }, {}, 'no-such-key'),
    q(
      'free tier refused a field',
      { query: '{ trades(symbol: "NVLX", first: 1) { nodes { price } } }' },
      {},
      'demo-free',
    ),
    ...Array.from({ length: 4 }, (_, i) =>
      q(`free tier, request ${i + 2} (429 past 4)`, { query: '{ __typename }' }, {}, 'demo-free'),
    ),
    q('documentId', { documentId: PERSISTED[0]![0] }),
    q('documentId with sha256:', { documentId: `sha256:${PERSISTED[1]![0]}`, variables: { symbol: 'ORBT' } }),
    q('documentId unknown', { documentId: 'f'.repeat(64) }),
    q('APQ miss', { extensions: APQ }),
    q('APQ miss without a credential', { extensions: APQ }, {}, null),
    q('APQ register', { query: APQ_QUERY, extensions: APQ }),
    q('APQ hit', { extensions: APQ }),
    q('APQ hash mismatch', { query: '{ __typename }', extensions: APQ }),
    q('cacheable, first', { query: '{ security(symbol: "NVLX") { symbol name } }' }),
    q('cacheable, a hit', { query: '{ security(symbol: "NVLX") { symbol name } }' }),
    q('a listed Origin', { query: '{ __typename }' }, { origin: LISTED }),
    q('a foreign Origin', { query: '{ __typename }' }, { origin: 'https://evil.example' }),
    q('a request id', { query: '{ __typename }' }, { 'x-request-id': 'given-id-1' }),
    q('graphql-response+json', { query: '{ nope }' }, { accept: 'application/graphql-response+json' }),
    q(
      'graphql-response+json, a request error',
      { query: '{ security(symbol: "NVLX") { symbol ' },
      { accept: 'application/graphql-response+json' },
    ),
    q('Accept json', { query: '{ __typename }' }, { accept: 'application/json' }),
    q('Accept anything', { query: '{ __typename }' }, { accept: '*/*' }),
    q('Accept html only', { query: '{ __typename }' }, { accept: 'text/html' }),
    q('Accept event-stream', { query: '{ __typename }' }, { accept: 'text/event-stream' }),
    q('a mutation with a key', { query: 'mutation { logout { message } }' }),
    q(
      'login, wrong password',
      { query: 'mutation { login(email: "pro@example.com", password: "wrong-password") { message } }' },
      {},
      null,
    ),
    {
      name: 'GET',
      method: 'GET',
      path: '/graphql?query=%7B__typename%7D',
      headers: { 'x-api-key': 'demo-enterprise' },
    },
    { name: 'a query string', path: `/graphql?documentId=${PERSISTED[0]![0]}`, ...json({}) },
    { name: 'preflight', method: 'OPTIONS', headers: { origin: LISTED, 'access-control-request-method': 'POST' } },
  ];
}

describe.each(testDatabases())('the direct way answers as the adapter on $name', (tdb) => {
  let h: GraphQLHarness;
  const servers: Server[] = [];
  let adapterPort: number;
  let directPort: number;
  let directAnswers = 0;
  const fellBack: string[] = [];

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const adapterApp: App = h.appWith(ENV);
    const directApp: App = h.appWith(ENV);
    const counted = (request: Request, serverContext: Parameters<App['direct']>[1]) => {
      directAnswers++;
      return directApp.direct(request, serverContext);
    };
    servers.push(
      http.createServer(adapterApp),
      http.createServer(
        directListener({
          fallback: directApp,
          handle: counted,
          RequestClass: directApp.socket.yoga.fetchAPI.Request,
          fellBack: (r) => void fellBack.push(r),
        }),
      ),
    );
    [adapterPort, directPort] = (await Promise.all(servers.map(listen))) as [number, number];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await h?.close();
    await tdb.cleanup();
  });

  /** Asks both, the adapter first; the answers must be equal, and the direct way taken exactly when its gate says. */
  async function both(ask: Ask): Promise<[Answer, Answer]> {
    const before = directAnswers;
    const told = fellBack.length;
    const adapter = await send(adapterPort, ask);
    const direct = await send(directPort, ask);
    const askedId = ask.headers?.['x-request-id'] !== undefined;
    expect(comparable(direct, askedId), ask.name).toEqual(comparable(adapter, askedId));
    expect(directAnswers - before, `${ask.name}: taken the direct way`).toBe(FALLS_BACK.has(ask.name) ? 0 : 1);
    const reason = FALLS_BACK.get(ask.name);
    expect(fellBack.slice(told), `${ask.name}: the fallback counted`).toEqual(reason ? [reason] : []);
    return [adapter, direct];
  }

  it('answers every request of the corpus as the adapter does, headers in order, bodies byte for byte', async () => {
    const asks = corpus(tdb.name);
    const statuses = new Set<number>();
    for (const ask of asks) statuses.add((await both(ask))[1].status);
    // the corpus reaches what it names: refusals before Yoga, in Yoga, and the rate limit
    for (const status of [200, 400, 401, 406, 413, 415, 429]) expect(statuses, `a ${status} answer`).toContain(status);
    // most of the corpus is what the direct way is for
    expect(directAnswers).toBeGreaterThan(asks.length * 0.8);
  });

  it('sets and uses the session cookies as the adapter does: login, cookie auth with Origin (CSRF), refresh, logout', async () => {
    const login = json(
      { query: 'mutation { login(email: "pro@example.com", password: "demo-password") { message } }' },
      { origin: LISTED },
      null,
    );
    const [adapterLogin, directLogin] = await both({ name: 'login', ...login });
    const cookies = [cookiesOf(adapterLogin), cookiesOf(directLogin)];
    expect(cookies[1]).toMatch(/DT_AUTH_TOKEN=eyJ/);
    const withCookie = async (name: string, query: string, headers: Record<string, string>) => {
      const ask = (cookie: string): Ask => ({ name, ...json({ query }, { cookie, ...headers }, null) });
      const adapter = await send(adapterPort, ask(cookies[0]!));
      const before = directAnswers;
      const direct = await send(directPort, ask(cookies[1]!));
      expect(comparable(direct, false), name).toEqual(comparable(adapter, false));
      expect(directAnswers - before, name).toBe(1);
      return [adapter, direct];
    };
    await withCookie('cookie, listed Origin', '{ me { tier } }', { origin: LISTED });
    await withCookie('cookie, same host', '{ me { tier } }', { origin: `http://${HOST}` });
    await withCookie('cookie, foreign Origin', '{ me { tier } }', { origin: 'https://evil.example' });
    await withCookie('cookie, cross-site without Origin', '{ me { tier } }', { 'sec-fetch-site': 'cross-site' });
    await withCookie('stale cookie excused for logout', 'mutation { logout { message } }', {
      origin: LISTED,
      cookie: 'DT_AUTH_TOKEN=eyJhbGciOiJIUzI1NiJ9.e30.x',
    });
    const [adapterRefresh, directRefresh] = await withCookie('refresh', 'mutation { refreshSession { message } }', {
      origin: LISTED,
    });
    cookies[0] = cookiesOf(adapterRefresh!);
    cookies[1] = cookiesOf(directRefresh!);
    await withCookie('logout', 'mutation { logout { message } }', { origin: LISTED });
  });

  it('answers a client that closed its connection as the adapter does: nothing sent, and the server goes on', async () => {
    const ask = { name: 'typename', ...json({ query: '{ __typename }' }) };
    for (const port of [adapterPort, directPort]) {
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/graphql',
          headers: ask.headers,
          agent: false,
        });
        req.on('error', () => resolve());
        req.write(ask.body!.slice(0, 5), () => req.destroy());
        req.on('close', () => resolve());
      });
    }
    await both(ask);
  });
});

/**
 * The requests of the corpus that go the adapter's way, with the reason counted on
 * mdg_fallback_total{path="direct"} (none for what the direct way is not for); every other one goes the direct way.
 */
const FALLS_BACK = new Map<string, string | undefined>([
  ['wrong content-type', 'content_type'],
  ['graphql content-type', 'content_type'],
  ['oversize beyond the direct way', 'body'],
  ['Accept html only', 'accept'],
  ['Accept event-stream', 'accept'],
  ['GET', undefined],
  ['a query string', 'query_string'],
  ['preflight', undefined],
]);
