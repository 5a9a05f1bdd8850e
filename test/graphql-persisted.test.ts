import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_PAGE_QUERY, type App } from '../src/app.js';
import { documentHash, loadPersistedOperations, OPERATIONS_DIR, PERSISTED_OPERATIONS_FILE, persistedOperationsJson } from '../src/graphql-persisted.js';
import { createRedis } from '../src/redis.js';
import { schema } from '../src/schema/index.js';
import { graphqlHarness, type GraphQLHarness } from './graphql-helpers.js';
import { testDatabases } from './helpers.js';

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const PRO = { 'x-api-key': 'demo-pro' };

async function post(app: App, body: Record<string, unknown>, headers: Record<string, string> = PRO): Promise<Answer> {
  const res = await app.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

async function get(app: App, params: Record<string, unknown>, headers: Record<string, string> = PRO): Promise<Answer> {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const res = await app.fetch(`http://test/graphql?${search}`, { headers: { accept: 'application/json', ...headers } });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

function expectError(answer: Answer, status: number, code: string, message: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors![0]!.extensions?.code).toBe(code);
  expect(answer.body.errors![0]!.message).toMatch(message);
}

const allowList = loadPersistedOperations();
const byName = (name: string) => [...allowList].find(([, text]) => text.startsWith(`query ${name}(`))!;

describe('the allow-list (persisted-operations.json)', () => {
  it('is what `npm run persist` makes of operations/ now', () => {
    const expected = persistedOperationsJson(schema);
    expect(fs.readFileSync(PERSISTED_OPERATIONS_FILE, 'utf8'), 'persisted-operations.json is stale: run npm run persist').toBe(expected);
    expect(fs.readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith('.graphql'))).toHaveLength(allowList.size);
    for (const [hash, text] of allowList) expect(documentHash(text)).toBe(hash);
  });

  it("holds GraphiQL's default company page, the security search and the latest trades", () => {
    expect(byName('CompanyPage')[1]).toBe(print(parse(COMPANY_PAGE_QUERY)));
    expect(byName('SecuritySearch')).toBeDefined();
    expect(byName('LatestTrades')).toBeDefined();
  });
});

describe.each(testDatabases())('persisted documents on $name', (tdb) => {
  let h: GraphQLHarness;
  let persistedOnly: App;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    persistedOnly = h.appWith({ NODE_ENV: 'production', GRAPHQL_PERSISTED_ONLY: 'true' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('persisted-only mode runs every allow-listed document by hash, by documentId, over GET, and as its exact text', async () => {
    for (const [hash, text] of allowList) {
      const byHash = await post(persistedOnly, { extensions: apq(hash) });
      expect(byHash.status, text).toBe(200);
      expect(byHash.body.errors, text).toBeUndefined();
      expect(await post(persistedOnly, { documentId: `sha256:${hash}` })).toEqual(byHash);
      expect(await post(persistedOnly, { query: text })).toEqual(byHash);
    }
    const [trades] = byName('LatestTrades');
    const page = await get(persistedOnly, { extensions: apq(trades), variables: { symbol: 'ORBT', first: 3 } });
    expect(page.body.data.trades.nodes).toHaveLength(3);
    expect(await get(persistedOnly, { documentId: trades, variables: { symbol: 'ORBT', first: 3 } })).toEqual(page);
  });

  it('persisted-only mode refuses any other document with PERSISTED_QUERY_NOT_ALLOWED, and registers none', async () => {
    const other = '{ security(symbol: "NVLX") { symbol name } }';
    const hash = documentHash(other);
    const notAllowed = /^this server runs only the documents of its allow-list \(persisted-operations\.json\)/;
    expectError(await post(persistedOnly, { query: other }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
    // an allow-listed document with a byte changed is another document
    expectError(await post(persistedOnly, { query: `${byName('CompanyPage')[1]} ` }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
    expectError(await post(persistedOnly, { extensions: apq(hash) }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', new RegExp(hash));
    expectError(await post(persistedOnly, { documentId: hash }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', new RegExp(hash));
    // APQ registration of an unknown document is refused, and it stays unknown
    expectError(await post(persistedOnly, { query: other, extensions: apq(hash) }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
    expectError(await post(persistedOnly, { extensions: apq(hash) }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
    expectError(await get(persistedOnly, { query: other }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
  });

  it('APQ: an unknown hash is PERSISTED_QUERY_NOT_FOUND; the query with its hash runs and is stored; then the hash alone runs', async () => {
    const query = `query Apq${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol name } }`;
    const hash = documentHash(query);
    // Apollo's protocol: 200, message PersistedQueryNotFound
    expectError(await post(h.app, { extensions: apq(hash) }), 200, 'PERSISTED_QUERY_NOT_FOUND', /^PersistedQueryNotFound$/);
    const first = await post(h.app, { query, extensions: apq(hash) });
    expect(first.body).toEqual({ data: { security: { symbol: 'NVLX', name: expect.any(String) } } });
    expect(await post(h.app, { extensions: apq(hash) })).toEqual(first);
    expect(await get(h.app, { extensions: apq(hash) })).toEqual(first);
    expect(await post(h.app, { documentId: hash })).toEqual(first);
  });

  it('APQ over GET, a hash that is not the query’s, and a document that does not validate (not stored)', async () => {
    const query = `query Get${randomUUID().replaceAll('-', '')}($s: String!) { security(symbol: $s) { symbol } }`;
    const hash = documentHash(query);
    expectError(await get(h.app, { extensions: apq(hash), variables: { s: 'ORBT' } }), 200, 'PERSISTED_QUERY_NOT_FOUND', /^PersistedQueryNotFound$/);
    const registered = await get(h.app, { query, extensions: apq(hash), variables: { s: 'ORBT' } });
    expect(registered.body).toEqual({ data: { security: { symbol: 'ORBT' } } });
    expect(await get(h.app, { extensions: apq(hash), variables: { s: 'ORBT' } })).toEqual(registered);

    const wrong = documentHash(`${query} `);
    expectError(await post(h.app, { query, extensions: apq(wrong), variables: { s: 'ORBT' } }), 400, 'PERSISTED_QUERY_HASH_MISMATCH', new RegExp(`^the hash sent \\(${wrong}\\) is not the SHA-256 of the query sent \\(${hash}\\)$`));
    expectError(await post(h.app, { query, extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }), 400, 'BAD_USER_INPUT', /^extensions\.persistedQuery\.version must be 1; got 2$/);

    const invalid = `{ security(symbol: "NVLX") { nosuchfield${randomUUID().replaceAll('-', '')} } }`;
    const invalidHash = documentHash(invalid);
    expect((await post(h.app, { query: invalid, extensions: apq(invalidHash) })).body.errors![0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expectError(await post(h.app, { extensions: apq(invalidHash) }), 200, 'PERSISTED_QUERY_NOT_FOUND', /^PersistedQueryNotFound$/);
  });

  it('APQ finds allow-listed documents without registration, and the guard still applies to registered ones', async () => {
    const [hash] = byName('SecuritySearch');
    const found = await post(h.app, { extensions: apq(hash), variables: { search: 'NV' } });
    expect(found.body.data.securities.nodes.length).toBeGreaterThan(0);
    const deep = `{ securities(search: "NV", first: 1) { nodes { ratings(first: 1) { nodes { security { news(first: 1) { nodes { securities { security { symbol } } } } } } } } } }`;
    const r = await post(h.app, { query: deep, extensions: apq(documentHash(deep)) });
    expect(r.body.errors![0]!.extensions?.code).toBe('QUERY_TOO_DEEP');
    expectError(await post(h.app, { extensions: apq(documentHash(deep)) }), 200, 'PERSISTED_QUERY_NOT_FOUND', /^PersistedQueryNotFound$/);
  });

  it.runIf(process.env.TEST_REDIS_URL)('APQ with Redis: a document registered on one instance runs by hash on another', async () => {
    const [a, b] = [createRedis(process.env.TEST_REDIS_URL!), createRedis(process.env.TEST_REDIS_URL!)];
    try {
      await Promise.all([a, b].map((r) => new Promise((resolve) => r.once('ready', resolve)))); // no offline queue: commands fail until then
      const one = h.appWith({}, { redis: a });
      const two = h.appWith({}, { redis: b });
      const query = `query Shared${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol } }`;
      const hash = documentHash(query);
      expectError(await post(two, { extensions: apq(hash) }), 200, 'PERSISTED_QUERY_NOT_FOUND', /^PersistedQueryNotFound$/);
      expect((await post(one, { query, extensions: apq(hash) })).body.data.security.symbol).toBe('NVLX');
      await new Promise((resolve) => setTimeout(resolve, 50)); // the Redis write is not awaited by the request
      expect((await post(two, { extensions: apq(hash) })).body.data.security.symbol).toBe('NVLX');
      await a.del(`mdg:apq:${hash}`);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
