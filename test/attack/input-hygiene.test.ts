// Hostile input, by class, enumerated from the route table and the schema rather than listed by
// hand: prototype-named REST parameters on every route, malformed global ids of every Node type,
// cursors holding keys their columns cannot hold on every paged list (GraphQL and REST), and JSON
// nested thousands of levels deep in variables and extensions (HTTP and WebSocket).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
} from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '../../src/graphql/input.js';
import { parseFrame } from '../../src/ocr/image.js';
import { sealCursor, type CursorState } from '../../src/rest/next-url.js';
import { routes } from '../../src/rest/routes.js';
import { schema } from '../../src/schema/index.js';
import { MAX_NODE_IDS } from '../../src/schema/node.js';
import { attachWebSocket } from '../../src/graphql/ws.js';
import { COSTED, graphqlHarness, type GraphQLHarness, type GraphQLResult } from '../graphql/helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';
import { expectBadParam, rest } from '../rest/helpers.js';

/** Names every plain object answers to through its prototype. */
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A message a person can read: it says which argument, and holds no stringified object or function. */
function expectWellFormed(message: string, argument: RegExp): void {
  expect(message).toMatch(argument);
  expect(message).not.toMatch(/\[object |undefined|function |native code|NaN/);
}

/**
 * JSON text of 5,000 levels of arrays (10 KB), as the attack sent it; or of objects. Written as
 * text: JSON.stringify itself would overflow the stack on the way out.
 */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** A request body (or WebSocket payload) with `deep` as the raw JSON text of the named member. */
const withDeep = (fields: Record<string, unknown>, member: 'variables' | 'extensions', deep: string) =>
  `${JSON.stringify(fields).slice(0, -1)},"${member}":{"deep":${deep}}}`;

// ------------------------------------------------------------------ the schema's paged lists and node types

/** Values for the arguments a list needs (the sample data has every resource for NVLX). */
const ARGUMENT_VALUES: Record<string, string> = {
  symbol: '"NVLX"',
  search: '"N"',
  timespan: 'DAY',
  from: '"2025-01-01"',
  to: '"2026-11-20"',
  date: '"2026-11-20"',
};

function argumentsOf(field: GraphQLField<unknown, unknown>): string[] {
  return field.args
    .filter((a) => isNonNullType(a.type) || a.name === 'symbol')
    .map((a) => {
      const value = ARGUMENT_VALUES[a.name];
      if (value === undefined)
        throw new Error(`${field.name}(${a.name}:) needs a value in ARGUMENT_VALUES of this test`);
      return `${a.name}: ${value}`;
    });
}

/** Every field with an `after` argument, as a query with `$after` and the path to its connection (a subscription's `after` is a position: test/graphql/subscriptions-resume.test.ts). */
const pagedLists = Object.values(schema.getTypeMap())
  .filter(isObjectType)
  .filter((t) => !t.name.startsWith('__') && t !== schema.getSubscriptionType())
  .flatMap((parent) =>
    Object.values(parent.getFields())
      .filter((f) => f.args.some((a) => a.name === 'after'))
      .map((field) => {
        const args = [...argumentsOf(field), 'first: 1', 'after: $after'].join(', ');
        // a node's id where it has one (the node tests below collect them), else its type
        const connection = getNamedType(field.type) as GraphQLObjectType;
        const item = getNamedType(connection.getFields().nodes!.type) as GraphQLObjectType;
        const hasId = 'id' in item.getFields();
        const inner = `${field.name}(${args}) { pageInfo { endCursor } nodes { ${hasId ? 'id' : '__typename'} } }`;
        if (parent === schema.getQueryType())
          return { name: `Query.${field.name}`, query: `query($after: String) { ${inner} }`, path: [field.name] };
        // reached through the root field that returns the parent type (Query.security for Security)
        const roots = Object.values(schema.getQueryType()!.getFields()).filter((f) => getNamedType(f.type) === parent);
        // a root field answering one record (security), rather than a list of them (securitiesBySymbols)
        const root = roots.find((f) => !isListType(getNullableType(f.type))) ?? roots[0];
        if (!root)
          throw new Error(
            `no root field returns ${parent.name}: teach this test how to reach ${parent.name}.${field.name}`,
          );
        return {
          name: `${parent.name}.${field.name}`,
          query: `query($after: String) { ${root.name}(${argumentsOf(root).join(', ')}) { ${inner} } }`,
          path: [root.name, field.name],
        };
      }),
  );

const nodeInterface = schema.getType('Node');
const nodeTypes = isInterfaceType(nodeInterface) ? schema.getPossibleTypes(nodeInterface).map((t) => t.name) : [];

/** The root lists of Node records answered whole, without `after` (`{ exchanges { __typename id } }`). */
const wholeLists = Object.values(schema.getQueryType()!.getFields())
  .filter((f) => isListType(getNullableType(f.type)) && !f.args.some((a) => isNonNullType(a.type)))
  .filter((f) => {
    const type = getNamedType(f.type);
    return isObjectType(type) && type.getInterfaces().some((i) => i === nodeInterface);
  })
  .map((f) => `{ ${f.name} { __typename id } }`);

const at = (data: any, path: string[]) => path.reduce((v, k) => v?.[k], data);

/** The key tuple inside a keyset cursor (db/keyset.ts): [tag, direction, ...keys]. */
const openKeyset = (cursor: string): unknown[] => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const sealKeyset = (tuple: unknown[]): string => Buffer.from(JSON.stringify(tuple)).toString('base64url');

/** Each key replaced, one at a time, by a value of its kind that its column cannot hold. */
function outOfRange(cursor: string): string[] {
  const tuple = openKeyset(cursor);
  const variants: string[] = [];
  for (let i = 2; i < tuple.length; i++) {
    const key = tuple[i];
    const values =
      typeof key === 'number'
        ? [2 ** 31, -(2 ** 31) - 1, 2 ** 53]
        : typeof key === 'string' && /^-?\d+$/.test(key)
          ? ['99999999999999999999', '9223372036854775808', '-9223372036854775809']
          : typeof key === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(key)
            ? ['-271821-04-20T00:00:00.000Z', '2026-02-30T00:00:00.000Z']
            : ['a\u0000b'];
    for (const v of values) variants.push(sealKeyset(tuple.map((k, j) => (j === i ? v : k))));
  }
  return variants;
}

it('an OCR frame whose media type is named like an Object property is an unsupported type, named as sent', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex').toString(
    'base64',
  );
  for (const name of PROTOTYPE_NAMES) {
    expect(() => parseFrame(`data:${name};base64,${png}`)).toThrow(
      expect.objectContaining({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `frame: the image type must be one of image/png, image/jpeg, image/webp, image/bmp, image/gif; got ${JSON.stringify(name.toLowerCase())}`,
      }),
    );
  }
});

describe.each(testDatabases())('hostile input on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    const limits = { RATE_LIMIT_FREE: '1000000' };
    const harness = await graphqlHarness(tdb, limits);
    // a fixed clock: the market status answers the same to two askings a second apart
    const now = Date.parse('2026-11-23T15:00:00Z');
    h = { ...harness, app: harness.appWith(limits, { now: () => now }) };
    // the sample splits other symbols: one of NVLX, so that Security.splits has a page to cursor through
    await h.db.prisma.split.create({
      data: { id: 'T-NVLX', ticker: 'NVLX', executionDate: '2020-01-02', splitFrom: 1, splitTo: 2 },
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: prototype-named parameters are inert: set aside, named in X-Ignored-Parameters, the answer as without them',
    async (_name, route) => {
      const path = route.path.replace(/:[a-z_]+/gi, 'NVLX');
      const send = (query: string) =>
        rest(h, `${path}${query}`, {
          method: route.method,
          ...(route.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
        });
      const { request_id: _a, ...without } = (await send('')).body ?? {};
      const r = await send(`?${PROTOTYPE_NAMES.map((name) => `${encodeURIComponent(name)}=1`).join('&')}`);
      const { request_id: _b, ...withNames } = r.body ?? {};
      expect(withNames).toEqual(without);
      expect(r.headers.get('x-ignored-parameters')).toBe(PROTOTYPE_NAMES.map(encodeURIComponent).join(', '));
    },
  );

  it('variables named like Object properties count in the cost check as any other: their defaults are page sizes', async () => {
    const query = (a: string, b: string) =>
      `query($${a}: Int = 250, $${b}: Int = 5000) { securities(search: "N", first: $${a}) { nodes { trades(first: $${b}) { nodes { price } } } } }`;
    const plain = await h.gql(query('a', 'b'));
    expect(plain.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    for (const name of PROTOTYPE_NAMES.filter((n) => /^[_A-Za-z]\w*$/.test(n))) {
      const r = await h.gql(query(name, 'b'));
      expect(r.errors?.[0], name).toMatchObject({
        extensions: { code: 'QUERY_TOO_COMPLEX' },
        message: plain.errors![0]!.message,
      });
    }
  });

  it(`covers every Node type (${nodeTypes.length}) and every paged list (${pagedLists.length}) of the schema`, () => {
    expect(nodeTypes.length).toBeGreaterThanOrEqual(11);
    expect(pagedLists.length).toBeGreaterThanOrEqual(20);
  });

  describe('global ids', () => {
    /** One real id of every Node type, from the paged lists (Security and Logo included) and the whole ones (Exchange). */
    const realIds = new Map<string, string>();
    beforeAll(async () => {
      for (const list of pagedLists) {
        const r = await h.gql(list.query.replace(' nodes { id }', ' nodes { __typename id }'));
        expect(r.errors, list.name).toBeUndefined();
        // a list of records without an id (Bar) has no Node to start from
        for (const node of at(r.data, list.path).nodes)
          if (node.id !== undefined) realIds.set(node.__typename, node.id);
      }
      for (const query of wholeLists) {
        const r = await h.gql(query);
        expect(r.errors, query).toBeUndefined();
        for (const node of Object.values<{ __typename: string; id: string }[]>(r.data)[0]!)
          realIds.set(node.__typename, node.id);
      }
    });

    it('every Node type has a record to start from', () => {
      expect([...realIds.keys()].sort()).toEqual([...nodeTypes].sort());
    });

    /** Ids that are malformed whatever the type. */
    const anyType = (type: string) => [
      '',
      'not base64!',
      'A',
      b64(`${type}:`),
      b64(`${type}`),
      b64(`${type}:\u0000`),
      b64(`${type}:1\u0007`),
      'x'.repeat(600),
      ...PROTOTYPE_NAMES.map((name) => b64(`${name}:1`)),
      b64('Node:1'),
      b64('Query:1'),
      b64('PageInfo:1'),
      b64(`${type.toLowerCase()}:1`),
      b64(':1'),
    ];
    /** Ids malformed for the form of key the type's real id has. */
    function forKey(type: string, key: string): string[] {
      if (/^\d+$/.test(key))
        return ['2147483648', '-2147483649', '99999999999999999999', '1.5', '1e3', '0x10', ' 1', 'one'].map((k) =>
          b64(`${type}:${k}`),
        );
      if (key.startsWith('[')) {
        return [
          '["NVLX"]',
          '["NVLX","1","2"]',
          '["NVLX",1]',
          '["NVLX","99999999999999999999"]',
          '["NVLX","9223372036854775808"]',
          '["NVLX","-9223372036854775809"]',
          '[1,"1"]',
          '["",""]',
          '{"symbol":"NVLX"}',
          '[',
          'null',
          '"NVLX"',
        ].map((k) => b64(`${type}:${k}`));
      }
      return [];
    }
    /** A well-formed key no record has, per form: answered null. */
    const absentKey = (key: string) =>
      /^\d+$/.test(key) ? '2147483647' : key.startsWith('[') ? '["ZZZZ","1"]' : 'NOPE_XNAS';

    it.each(nodeTypes)(
      '%s: malformed ids are BAD_USER_INPUT naming the argument, through node(id:) and nodes(ids:); an absent one is null',
      async (type) => {
        const real = realIds.get(type)!;
        const key = Buffer.from(real, 'base64')
          .toString('utf8')
          .slice(type.length + 1);
        const malformed = [...anyType(type), ...forKey(type, key)];
        // a caller without the type's entitlement gets FORBIDDEN for a well-named type, checked before its key
        for (const [key, ids] of [
          ['demo-enterprise', malformed],
          ['demo-free', anyType(type)],
        ] as const) {
          for (const id of ids) {
            const one = await h.gql('query($id: ID!) { node(id: $id) { id } }', { id }, { 'x-api-key': key });
            expect(one.errors, `${type} ${id}`).toHaveLength(1);
            expect(one.errors![0]!.extensions?.code, `${type} ${id}: ${one.errors![0]!.message}`).toBe(
              'BAD_USER_INPUT',
            );
            expectWellFormed(one.errors![0]!.message, /^argument "id": /);
            expect(one.data).toEqual({ node: null });
          }
        }
        // in a list, each malformed id fails alone and the real one is still found
        const many: GraphQLResult = await h.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
          ids: [real, ...malformed.slice(0, MAX_NODE_IDS - 1)],
        });
        expect(many.data.nodes[0]).toEqual({ id: real });
        expect(many.data.nodes.slice(1).every((n: unknown) => n === null)).toBe(true);
        expect(many.errors).toHaveLength(Math.min(malformed.length, MAX_NODE_IDS - 1));
        // in the order of the list (items that reach a type's own key check finish later)
        const errors = [...many.errors!].sort((a, b) => Number(a.path![1]) - Number(b.path![1]));
        for (const [i, e] of errors.entries()) {
          expect(e.extensions?.code, e.message).toBe('BAD_USER_INPUT');
          expect(e.path).toEqual(['nodes', i + 1]);
          expectWellFormed(e.message, new RegExp(`^argument "ids"\\[${i + 1}\\]: `));
        }
        const absent = await h.gql('query($id: ID!) { node(id: $id) { id } }', {
          id: b64(`${type}:${absentKey(key)}`),
        });
        expect(absent).toEqual({ status: 200, data: { node: null }, ...COSTED });
      },
    );

    it(`nodes(ids:) takes at most ${MAX_NODE_IDS} ids`, async () => {
      const r = await h.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
        ids: Array.from({ length: MAX_NODE_IDS + 1 }, () => realIds.get('Security')),
      });
      expect(r.errors?.[0]).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT' },
        message: `argument "ids": at most ${MAX_NODE_IDS} ids; got ${MAX_NODE_IDS + 1}`,
      });
    });
  });

  it.each(pagedLists.map((l) => [l.name, l] as const))(
    '%s: a cursor whose key its column cannot hold is BAD_USER_INPUT',
    async (_name, list) => {
      const first = await h.gql(list.query);
      expect(first.errors).toBeUndefined();
      const cursor = at(first.data, list.path).pageInfo.endCursor as string | null;
      expect(cursor, 'the sample data has a page of this list for NVLX').toBeTruthy();
      for (const after of outOfRange(cursor!)) {
        const r = await h.gql(list.query, { after });
        expect(r.errors, `${openKeyset(after).join(', ')}`).toHaveLength(1);
        expect(r.errors![0]!.extensions?.code, `${openKeyset(after).join(', ')}: ${r.errors![0]!.message}`).toBe(
          'BAD_USER_INPUT',
        );
        expectWellFormed(
          r.errors![0]!.message,
          /^after: ".*" is not a cursor of this list \(its \w+ key is not a value the column holds: /,
        );
      }
    },
  );

  const cursorRoutes = routes.filter((r) => r.doc.query && Object.hasOwn(r.doc.query, 'cursor'));
  it.each(cursorRoutes.map((r) => [r.path, r] as const))(
    'REST %s: a sealed cursor whose key its column cannot hold is a 400',
    async (_path, route) => {
      expect(cursorRoutes.length).toBeGreaterThanOrEqual(3);
      const path = route.path.replace(/:[a-z_]+/gi, 'NVLX');
      const first = await rest(h, `${path}?limit=1`);
      expect(first.status).toBe(200);
      const next = new URL(first.body.next_url);
      const token = next.searchParams.get('cursor')!;
      const state = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as CursorState;
      // sealed with the server's secret, as only a server could: what its own cursors may carry is checked too
      for (const after of outOfRange(state.after)) {
        const r = await rest(h, `${next.pathname}?cursor=${sealCursor(TEST_JWT_SECRET, { ...state, after })}`);
        expectBadParam(r, 'is not a cursor of this list');
      }
    },
  );

  describe(`JSON nested deeper than ${MAX_INPUT_DEPTH} levels`, () => {
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const res = await h.app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: res.status, body: (await res.json()) as GraphQLResult };
    };
    const refusal = (member: string) => ({
      message: `${member}: arrays and objects nest more than ${MAX_INPUT_DEPTH} levels deep; no input of this schema needs more`,
      extensions: { code: 'BAD_USER_INPUT' },
    });

    it('in variables or extensions, without credentials, over POST and GET: a coded 400 before anything walks it', async () => {
      for (const deep of [nestedArrays(5000), nestedObjects(5000), nestedArrays(MAX_INPUT_DEPTH)]) {
        for (const member of ['variables', 'extensions'] as const) {
          // a cacheable document (logos) too: the response cache keys on the variables
          for (const query of ['{ __typename }', '{ logos(first: 1) { totalCount } }']) {
            for (const headers of [{}, { 'x-api-key': 'demo-enterprise' }] as Record<string, string>[]) {
              const r = await post(withDeep({ query }, member, deep), headers);
              expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
              expect(r.body.errors).toEqual([refusal(member)]);
            }
          }
        }
      }
      const get = await h.app.fetch(
        `http://test/graphql?query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(`{"deep":${nestedArrays(5000)}}`)}`,
        { headers: { accept: 'application/json' } },
      );
      expect(get.status).toBe(400);
      expect(((await get.json()) as GraphQLResult).errors).toEqual([refusal('variables')]);
    });

    it(`nesting up to ${MAX_INPUT_DEPTH} levels is served`, async () => {
      const body = `{"query":"query($s: [String!]) { logos(first: 1, symbols: $s) { totalCount } }","variables":{"s":["NVLX"],"extra":${nestedArrays(MAX_INPUT_DEPTH - 1)}},"extensions":{"extra":${nestedObjects(MAX_INPUT_DEPTH - 2)}}}`;
      const r = await post(body, { 'x-api-key': 'demo-enterprise' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toEqual({ logos: { totalCount: 1 } });
    });

    it('over WebSocket: the operation fails with BAD_USER_INPUT and the connection stays usable', async () => {
      const server: Server = createServer(h.app);
      const socket = attachWebSocket(server, h.app, { isProd: false });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      // graphql-transport-ws by hand: a client library would stringify the payload, and overflow first
      const ws = new WebSocket(
        `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
        'graphql-transport-ws',
      );
      const messages: any[] = [];
      ws.on('message', (data) => messages.push(JSON.parse(String(data))));
      const reply = async (id: string) => {
        await expect
          .poll(() => messages.some((m) => m.id === id && (m.type === 'error' || m.type === 'complete')), {
            timeout: 5_000,
          })
          .toBe(true);
        return messages.filter((m) => m.id === id);
      };
      try {
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        ws.send(JSON.stringify({ type: 'connection_init', payload: { apiKey: 'demo-enterprise' } }));
        await expect.poll(() => messages.some((m) => m.type === 'connection_ack'), { timeout: 5_000 }).toBe(true);
        const sent = [
          ['variables', '{ logos(first: 1) { totalCount } }', nestedArrays(5000)],
          ['variables', '{ __typename }', nestedObjects(5000)],
          ['extensions', '{ __typename }', nestedArrays(5000)],
        ] as const;
        for (const [i, [member, query, deep]] of sent.entries()) {
          ws.send(`{"id":"${i}","type":"subscribe","payload":${withDeep({ query }, member, deep)}}`);
          expect(await reply(String(i))).toEqual([{ id: String(i), type: 'error', payload: [refusal(member)] }]);
        }
        ws.send(JSON.stringify({ id: 'ok', type: 'subscribe', payload: { query: '{ __typename }' } }));
        expect(await reply('ok')).toEqual([
          { id: 'ok', type: 'next', payload: { data: { __typename: 'Query' }, ...COSTED } },
          { id: 'ok', type: 'complete' },
        ]);

        // an upgrade whose Host is no host: a coded close (4400), not an internal error (4500)
        const badHost = new WebSocket(
          `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
          'graphql-transport-ws',
          { headers: { host: 'a b' } },
        );
        badHost.on('open', () =>
          badHost.send(JSON.stringify({ type: 'connection_init', payload: { apiKey: 'demo-enterprise' } })),
        );
        const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
          badHost.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
        );
        expect(closed).toEqual({
          code: 4400,
          reason: 'the Host header must be a host and an optional port; got "a b"',
        });
      } finally {
        ws.close();
        await socket.close();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
