// GraphQL's request parameters of the wrong type, and JSON that does not parse (issue 27, finding 7
// and 13): each a coded 400 (BAD_USER_INPUT, the error table's BAD_REQUEST) in one line that names
// the parameter and what it got, never an INTERNAL_SERVER_ERROR and never a parser's words or an
// excerpt of the body. In production, over real sockets, GET and POST, the adapter's way and the
// direct way (http/direct.ts), anonymous and with a key; each answer logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { COSTED, graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { expectNoInternals, listen, productionApp, requestLine, send, type Answer, type Listeners } from './helpers.js';

const QUERY = '{ __typename }';
const LONG = 'a'.repeat(100);

/** [a parameter, a value of the wrong type, what the message says it got]. */
const WRONG_TYPES: readonly (readonly [string, unknown, string])[] = [
  ['operationName', {}, 'an object'],
  ['operationName', { name: 'Q' }, 'an object'],
  ['operationName', 5, '5'],
  ['operationName', ['Q'], 'an array'],
  ['operationName', true, 'true'],
  ['query', 1, '1'],
  ['query', {}, 'an object'],
  ['query', [QUERY], 'an array'],
  ['variables', 5, '5'],
  ['variables', 'x', '"x"'],
  ['variables', [1], 'an array'],
  ['variables', false, 'false'],
  ['variables', LONG, `${JSON.stringify(LONG).slice(0, 40)}…`],
  ['extensions', 5, '5'],
  ['extensions', 'abc', '"abc"'],
  ['extensions', [], 'an array'],
];
const mustBe = (part: string) =>
  part === 'query' || part === 'operationName' ? 'a string' : 'an object of names and values';

/** Bodies that are not JSON: cut short, single quotes, a bare word, trailing text, a control character. */
const NOT_JSON = [
  '{"query":',
  `{"query":"${QUERY}"`,
  "{'query':'{ __typename }'}",
  'nope',
  `{"query":"${QUERY}"}}`,
  '\u0001',
];

const KEYS = [null, 'demo-enterprise'];

describe.each(testDatabases())('GraphQL parameters, in production, on $name', (tdb) => {
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

  /** The GraphQL refusal: 400, one BAD_USER_INPUT error with `message` and nothing else, logged with its code. */
  function expectRefused(res: Answer, message: string, what: string): void {
    expect(res.status, what).toBe(400);
    expect(JSON.parse(res.body), what).toEqual({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(requestLine(lines, res.headers['x-request-id'] as string), what).toMatchObject({
      status: 400,
      codes: ['BAD_USER_INPUT'],
    });
    expectNoInternals(res.body, what);
  }

  const post = (port: number, body: string, key: string | null) =>
    send(port, {
      method: 'POST',
      target: '/graphql',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body,
    });

  it('a query, operationName, variables or extensions of the wrong type in a POST is a coded 400, either way', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const key of KEYS) {
        for (const [part, value, got] of WRONG_TYPES) {
          const body = JSON.stringify({ query: QUERY, [part]: value });
          expectRefused(
            await post(port, body, key),
            `${part} must be ${mustBe(part)}; got ${got}`,
            `${way} ${key}: ${body}`,
          );
        }
      }
    }
  });

  it('variables or extensions of the wrong type, or not JSON, in a GET (or a form) is a coded 400', async () => {
    const asks: [string, string][] = [
      ['variables=5', 'variables must be an object of names and values; got 5'],
      ['variables=%5B1%5D', 'variables must be an object of names and values; got an array'],
      ['variables=%22x%22', 'variables must be an object of names and values; got "x"'],
      ['extensions=true', 'extensions must be an object of names and values; got true'],
      ['variables=%7Bbad', 'the variables parameter is not valid JSON'],
      ['variables=%7B%22a%22', 'the variables parameter is not valid JSON'],
      ['extensions=%7B%27persistedQuery%27%3A1%7D', 'the extensions parameter is not valid JSON'],
    ];
    for (const key of KEYS) {
      for (const [params, message] of asks) {
        const target = `/graphql?query=${encodeURIComponent(QUERY)}&${params}`;
        const res = await send(listeners.ports.adapter, { target, headers: key ? { 'x-api-key': key } : {} });
        expectRefused(res, message, `${key}: GET ${target}`);
      }
    }
    const form = await send(listeners.ports.adapter, {
      method: 'POST',
      target: '/graphql',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${encodeURIComponent(QUERY)}&variables=%7Bbad`,
    });
    expectRefused(form, 'the variables or extensions parameter is not valid JSON', 'a form with variables={bad');
  });

  it('a body that is not JSON is one line, the words REST uses, without the parser or the body', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const key of KEYS) {
        for (const body of NOT_JSON) {
          const res = await post(port, body, key);
          expectRefused(res, 'the body is not valid JSON', `${way} ${key}: ${JSON.stringify(body)}`);
        }
      }
    }
    const login = await send(listeners.ports.adapter, {
      method: 'POST',
      target: '/kms/api/v1/auth/token',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(login.status).toBe(400);
    expect(JSON.parse(login.body)).toMatchObject({ code: 'BAD_REQUEST', message: 'the body is not valid JSON' });
  });

  it('well-typed parameters are served as before, null and absent ones too', async () => {
    for (const [way, port] of Object.entries(listeners.ports)) {
      for (const body of [
        { query: QUERY, operationName: null, variables: null, extensions: null },
        { query: `query Q { __typename }`, operationName: 'Q', variables: {}, extensions: {} },
      ]) {
        const res = await post(port, JSON.stringify(body), null);
        expect(res.status, `${way}: ${JSON.stringify(body)}`).toBe(200);
        expect(JSON.parse(res.body)).toEqual({ data: { __typename: 'Query' }, ...COSTED });
      }
    }
    // in-process callers (app.fetch) meet the same rule
    const r = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY, operationName: { $ne: null } }),
    });
    expect(r.status).toBe(400);
  });
});
