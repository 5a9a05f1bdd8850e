import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { COMPANY_PAGE_QUERY } from '../../src/graphql/yoga.js';
import { loadConfig } from '../../src/config.js';
import {
  documentHash,
  loadPersistedOperations,
  memoryDocumentStore,
  OPERATIONS_DIR,
  PERSISTED_OPERATIONS_FILE,
  persistedOperationsJson,
} from '../../src/graphql/persisted.js';
import { createRedis } from '../../src/runtime/redis.js';
import { schema } from '../../src/schema/index.js';
import { COSTED, graphqlHarness, type GraphQLHarness } from './helpers.js';
import { testDatabases } from '../helpers.js';

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const PRO = { 'x-api-key': 'demo-pro' };

async function post(app: App, body: Record<string, unknown>, headers: Record<string, string> = PRO): Promise<Answer> {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

async function get(app: App, params: Record<string, unknown>, headers: Record<string, string> = PRO): Promise<Answer> {
  const search = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
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
    expect(
      fs.readFileSync(PERSISTED_OPERATIONS_FILE, 'utf8'),
      'persisted-operations.json is stale: run npm run persist',
    ).toBe(expected);
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
    // these tests send a hundred registrations without a credential from one address, on purpose
    h = await graphqlHarness(tdb, { RATE_LIMIT_ANONYMOUS: '100000' });
    persistedOnly = h.appWith({ NODE_ENV: 'production', GRAPHQL_PERSISTED_ONLY: 'true' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('persisted-only mode runs every allow-listed document by hash, by documentId, over GET, and as its exact text', async () => {
    for (const [hash, text] of allowList) {
      if (text.startsWith('subscription ')) {
        // a live document starts a stream by hash and by documentId alike
        for (const named of [{ extensions: apq(hash) }, { documentId: `sha256:${hash}` }]) {
          const res = await persistedOnly.fetch('http://test/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...PRO },
            body: JSON.stringify(named),
          });
          expect([res.status, res.headers.get('content-type')], text).toEqual([
            200,
            expect.stringMatching(/^text\/event-stream/),
          ]);
          await res.body?.cancel();
        }
        continue;
      }
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
    expectError(
      await post(persistedOnly, { query: `${byName('CompanyPage')[1]} ` }),
      400,
      'PERSISTED_QUERY_NOT_ALLOWED',
      notAllowed,
    );
    expectError(
      await post(persistedOnly, { extensions: apq(hash) }),
      400,
      'PERSISTED_QUERY_NOT_ALLOWED',
      new RegExp(hash),
    );
    expectError(await post(persistedOnly, { documentId: hash }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', new RegExp(hash));
    // APQ registration of an unknown document is refused, and it stays unknown
    expectError(
      await post(persistedOnly, { query: other, extensions: apq(hash) }),
      400,
      'PERSISTED_QUERY_NOT_ALLOWED',
      notAllowed,
    );
    expectError(await post(persistedOnly, { extensions: apq(hash) }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
    expectError(await get(persistedOnly, { query: other }), 400, 'PERSISTED_QUERY_NOT_ALLOWED', notAllowed);
  });

  it('APQ: an unknown hash is PERSISTED_QUERY_NOT_FOUND; the query with its hash runs and is stored; then the hash alone runs', async () => {
    const query = `query Apq${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol name } }`;
    const hash = documentHash(query);
    // Apollo's protocol: 200, message PersistedQueryNotFound
    expectError(
      await post(h.app, { extensions: apq(hash) }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );
    const first = await post(h.app, { query, extensions: apq(hash) });
    expect(first.body).toEqual({ data: { security: { symbol: 'NVLX', name: expect.any(String) } }, ...COSTED });
    expect(await post(h.app, { extensions: apq(hash) })).toEqual(first);
    expect(await get(h.app, { extensions: apq(hash) })).toEqual(first);
    expect(await post(h.app, { documentId: hash })).toEqual(first);
  });

  it('APQ over GET, a hash that is not the query’s, and a document that does not validate (not stored)', async () => {
    const query = `query Get${randomUUID().replaceAll('-', '')}($s: String!) { security(symbol: $s) { symbol } }`;
    const hash = documentHash(query);
    expectError(
      await get(h.app, { extensions: apq(hash), variables: { s: 'ORBT' } }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );
    const registered = await get(h.app, { query, extensions: apq(hash), variables: { s: 'ORBT' } });
    expect(registered.body).toEqual({ data: { security: { symbol: 'ORBT' } }, ...COSTED });
    expect(await get(h.app, { extensions: apq(hash), variables: { s: 'ORBT' } })).toEqual(registered);

    const wrong = documentHash(`${query} `);
    expectError(
      await post(h.app, { query, extensions: apq(wrong), variables: { s: 'ORBT' } }),
      400,
      'PERSISTED_QUERY_HASH_MISMATCH',
      new RegExp(`^the hash sent \\(${wrong}\\) is not the SHA-256 of the query sent \\(${hash}\\)$`),
    );
    expectError(
      await post(h.app, { query, extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }),
      400,
      'BAD_USER_INPUT',
      /^extensions\.persistedQuery\.version must be 1; got 2$/,
    );

    const invalid = `{ security(symbol: "NVLX") { nosuchfield${randomUUID().replaceAll('-', '')} } }`;
    const invalidHash = documentHash(invalid);
    expect(
      (await post(h.app, { query: invalid, extensions: apq(invalidHash) })).body.errors![0]!.extensions?.code,
    ).toBe('GRAPHQL_VALIDATION_FAILED');
    expectError(
      await post(h.app, { extensions: apq(invalidHash) }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );
  });

  it('APQ finds allow-listed documents without registration, and the guard still applies to registered ones', async () => {
    const [hash] = byName('SecuritySearch');
    const found = await post(h.app, { extensions: apq(hash), variables: { search: 'NV' } });
    expect(found.body.data.securities.nodes.length).toBeGreaterThan(0);
    const deep = `{ securities(search: "NV", first: 1) { nodes { ratings(first: 1) { nodes { security { news(first: 1) { nodes { securities { security { logo { symbol } } } } } } } } } } }`;
    const r = await post(h.app, { query: deep, extensions: apq(documentHash(deep)) });
    expect(r.body.errors![0]!.extensions?.code).toBe('QUERY_TOO_DEEP');
    expectError(
      await post(h.app, { extensions: apq(documentHash(deep)) }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );
  });

  it('APQ with Redis: a document registered on one instance runs by hash on another', { tags: ['redis'] }, async () => {
    const [a, b] = [createRedis(process.env.TEST_REDIS_URL!), createRedis(process.env.TEST_REDIS_URL!)];
    try {
      await Promise.all([a, b].map((r) => new Promise((resolve) => r.once('ready', resolve)))); // no offline queue: commands fail until then
      const one = h.appWith({}, { redis: a });
      const two = h.appWith({}, { redis: b });
      const query = `query Shared${randomUUID().replaceAll('-', '')} { security(symbol: "NVLX") { symbol } }`;
      const hash = documentHash(query);
      expectError(
        await post(two, { extensions: apq(hash) }),
        200,
        'PERSISTED_QUERY_NOT_FOUND',
        /^PersistedQueryNotFound$/,
      );
      expect((await post(one, { query, extensions: apq(hash) })).body.data.security.symbol).toBe('NVLX');
      await expect.poll(() => b.exists(`mdg:apq:${hash}`), { timeout: 5_000 }).toBe(1); // the write is not awaited by the request
      expect((await post(two, { extensions: apq(hash) })).body.data.security.symbol).toBe('NVLX');
      await a.del(`mdg:apq:${hash}`);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
  /** A valid document of about `bytes` bytes: one field, then a comment (comments are not tokens). */
  const padded = (name: string, bytes: number) => {
    const head = `query ${name}${randomUUID().replaceAll('-', '')} { __typename }\n#`;
    return head + 'x'.repeat(Math.max(0, bytes - head.length));
  };

  it('APQ registration needs a credential: 100 large registrations without one are PERSISTED_QUERY_NOT_SUPPORTED and store nothing', async () => {
    const documents = Array.from({ length: 100 }, (_, i) => padded(`Anon${i}x`, 256 * 1024));
    for (const query of documents) {
      expectError(
        await post(h.app, { query, extensions: apq(documentHash(query)) }, {}),
        400,
        'PERSISTED_QUERY_NOT_SUPPORTED',
        /^automatic persisted queries need a credential/,
      );
    }
    // an authenticated client finds none of them
    for (const query of documents.slice(0, 10))
      expectError(
        await post(h.app, { extensions: apq(documentHash(query)) }),
        200,
        'PERSISTED_QUERY_NOT_FOUND',
        /^PersistedQueryNotFound$/,
      );
    // without a credential an unknown hash is NOT_SUPPORTED too (Apollo's link then sends queries whole); the query itself runs
    expectError(
      await post(h.app, { extensions: apq(documentHash(documents[0]!)) }, {}),
      400,
      'PERSISTED_QUERY_NOT_SUPPORTED',
      /credential/,
    );
    expect(await post(h.app, { query: '{ __typename }' }, {})).toEqual({
      status: 200,
      body: { data: { __typename: 'Query' }, ...COSTED },
    });
    // a hash of the allow-list needs no registration, and so no credential
    const [hash] = byName('SecuritySearch');
    expect(
      (await post(h.app, { extensions: apq(hash), variables: { search: 'NV' } }, {})).body.errors![0]!.extensions?.code,
    ).toBe('UNAUTHENTICATED');
  });

  it("APQ registration: at most APQ_MAX_DOCUMENT_BYTES (413), and paid from the caller's budget, one request per KiB", async () => {
    const limit = loadConfig({}).graphql.apqMaxDocumentBytes;
    expect(limit).toBe(32 * 1024);
    const big = padded('Big', limit + 1);
    expectError(
      await post(h.app, { query: big, extensions: apq(documentHash(big)) }),
      413,
      'PAYLOAD_TOO_LARGE',
      new RegExp(
        `^a document registered for automatic persisted queries is at most ${limit} bytes; this one has ${limit + 1}`,
      ),
    );
    expectError(
      await post(h.app, { extensions: apq(documentHash(big)) }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );

    // the free tier's 60 requests a minute, on an app of its own (a fresh budget): 1 + 30 for a 30 KiB document
    const free = h.appWith({});
    const [a, b] = [padded('PaidA', 30 * 1024), padded('PaidB', 30 * 1024)];
    const FREE = { 'x-api-key': 'demo-free' };
    expect((await post(free, { query: a, extensions: apq(documentHash(a)) }, FREE)).body).toEqual({
      data: { __typename: 'Query' },
      ...COSTED,
    });
    expect((await post(free, { extensions: apq(documentHash(a)) }, FREE)).body).toEqual({
      data: { __typename: 'Query' },
      ...COSTED,
    });
    const res = await free.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...FREE },
      body: JSON.stringify({ query: b, extensions: apq(documentHash(b)) }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as Answer['body']).errors).toEqual([
      {
        message: expect.stringMatching(/^rate limit of 60 requests per minute for the free tier reached/),
        extensions: { code: 'RATE_LIMITED' },
      },
    ]);
    expectError(
      await post(free, { extensions: apq(documentHash(b)) }),
      200,
      'PERSISTED_QUERY_NOT_FOUND',
      /^PersistedQueryNotFound$/,
    );
  });

  it('the memory store keeps at most its size in all, least recently used out first', async () => {
    const store = memoryDocumentStore(10_000);
    const texts = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(1000, 'x'));
    for (const text of texts) await store.set(documentHash(text), text);
    expect(await store.get(documentHash(texts[0]!))).toBeUndefined();
    expect(await store.get(documentHash(texts[19]!))).toBe(texts[19]);
    const kept = (await Promise.all(texts.map((t) => store.get(documentHash(t))))).filter((t) => t !== undefined);
    expect(kept.length).toBe(Math.floor(10_000 / 1200));
  });

  it('APQ with Redis: nothing from callers without a credential; the store stays under its size, oldest out, a day at most', {
    tags: ['redis'],
  }, async () => {
    const redis = createRedis(process.env.TEST_REDIS_URL!);
    const ours: string[] = [];
    try {
      await new Promise((resolve) => redis.once('ready', resolve));
      const shared = h.appWith({}, { redis });
      const anonymous = Array.from({ length: 100 }, (_, i) => padded(`RedisAnon${i}x`, 256 * 1024));
      for (const query of anonymous) {
        expectError(
          await post(shared, { query, extensions: apq(documentHash(query)) }, {}),
          400,
          'PERSISTED_QUERY_NOT_SUPPORTED',
          /credential/,
        );
      }
      expect(await redis.exists(...anonymous.map((q) => `mdg:apq:${documentHash(q)}`))).toBe(0);

      // a store of 256 documents of 1 KiB (with 200 bytes each for keys and bookkeeping): 300 registered
      const small = h.appWith({ APQ_MAX_DOCUMENT_BYTES: '1024' }, { redis });
      const cap = 256 * 1024;
      const documents = Array.from({ length: 300 }, (_, i) => padded(`Bounded${i}x`, 1000));
      ours.push(...documents.map(documentHash));
      for (const query of documents)
        expect(
          (await post(small, { query, extensions: apq(documentHash(query)) }, { 'x-api-key': 'demo-enterprise' })).body
            .errors,
        ).toBeUndefined();
      const last = `mdg:apq:${ours.at(-1)}`;
      await expect.poll(() => redis.exists(last), { timeout: 5_000 }).toBe(1); // the write is not awaited by the request
      expect(Number(await redis.get('mdg:apq-bytes'))).toBeLessThanOrEqual(cap);
      const kept = await redis.exists(...ours.map((hash) => `mdg:apq:${hash}`));
      expect(kept).toBeLessThanOrEqual(Math.floor(cap / 1200));
      expect(kept).toBeGreaterThan(100);
      expect(await redis.exists(`mdg:apq:${ours[0]}`)).toBe(0);
      const ttl = await redis.ttl(last);
      expect(ttl).toBeGreaterThan(24 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(24 * 3600);
    } finally {
      if (ours.length) {
        await redis.del(...ours.map((hash) => `mdg:apq:${hash}`));
        // off the books too (graphql/persisted.ts keeps `<hash>:<bytes>` and their total)
        const members = (await redis.zrange('mdg:apq-index', 0, -1)).filter((m) => ours.includes(m.split(':')[0]!));
        if (members.length) {
          await redis.zrem('mdg:apq-index', ...members);
          await redis.decrby(
            'mdg:apq-bytes',
            members.reduce((n, m) => n + Number(m.split(':')[1]), 0),
          );
        }
      }
      redis.disconnect();
    }
  });
});
