// @defer and @stream (graphql-yoga's executor, graphql/yoga.ts) under the rules of an answer sent at
// once: the parts put together equal the answer of the same query without the directives; the cost
// counts the deferred parts before anything runs; a tier's refusal reaches the part it belongs to;
// the cost held in the budget of work in flight, and the request's deadline, bound the parts after
// the first (graphql/incremental.ts, tested here with parts that never come).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedParts, type Part } from '../../src/graphql/incremental.js';
import { Deadline } from '../../src/runtime/deadline.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const [tdb] = testDatabases();

/** The JSON parts of a multipart/mixed answer (boundary "-", as graphql-yoga writes it). */
function multipartParts(text: string): any[] {
  return text
    .split(/\r?\n---/)
    .map((chunk) => chunk.slice(chunk.indexOf('{')))
    .filter((chunk) => chunk.startsWith('{'))
    .map((chunk) => JSON.parse(chunk.slice(0, chunk.lastIndexOf('}') + 1)));
}

/** Sets `value` at `path` of `data`. */
function put(data: any, path: (string | number)[], value: unknown) {
  let at = data;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)!] = value;
}

/** The data of an incremental answer's parts put together, as a client's merge does. */
function merged(parts: any[]): any {
  const data = structuredClone(parts[0].data);
  for (const part of parts.slice(1))
    for (const inc of part.incremental ?? []) {
      if (inc.items)
        inc.items.forEach((item: unknown, i: number) =>
          put(data, [...inc.path.slice(0, -1), inc.path.at(-1) + i], item),
        );
      else {
        let at = data;
        for (const k of inc.path) at = at[k];
        Object.assign(at, inc.data);
      }
    }
  return data;
}

async function incremental(h: GraphQLHarness, query: string, key = 'demo-enterprise') {
  const res = await h.app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', 'x-api-key': key },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', parts: multipartParts(await res.text()) };
}

const DEFERRED = `{ security(symbol: "NVLX") { symbol name
  ... @defer(label: "slow") { news(first: 3) { nodes { headline } } ratings(first: 3) { nodes { firm rating } } } } }`;
const STREAMED = `{ security(symbol: "NVLX") { symbol
  bars(timespan: DAY, from: "2026-10-01", to: "2026-11-20") { nodes @stream(initialCount: 2) { start close volume } } } }`;
const strip = (q: string) => q.replace(/@defer\(label: "slow"\)|@stream\(initialCount: 2\)/g, '');

describe.each([tdb!])('@defer and @stream', () => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb!);
  });
  afterAll(() => h.close());

  it('sends the deferred fields in a later part, and the parts add up to the plain answer', async () => {
    const r = await incremental(h, DEFERRED);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^multipart\/mixed/);
    expect(r.parts.length).toBeGreaterThan(1);
    expect(r.parts[0].hasNext).toBe(true);
    expect(r.parts[0].data.security).toEqual({ symbol: 'NVLX', name: expect.any(String) });
    expect(r.parts[0].extensions.cost.requested).toBeGreaterThan(0);
    expect(r.parts.at(-1).hasNext).toBe(false);
    const plain = await h.gql(strip(DEFERRED));
    expect(plain.data.security.news.nodes.length).toBeGreaterThan(0);
    expect(merged(r.parts)).toEqual(plain.data);
  });

  it('answers a client that asks for JSON only whole, equal to the plain answer', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      const res = await h.app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'x-api-key': 'demo-enterprise' },
        body: JSON.stringify({ query: DEFERRED }),
      });
      expect(res.status, accept).toBe(200);
      const body = (await res.json()) as { data: unknown; extensions: { cost: { requested: number } } };
      expect(body.data, accept).toEqual((await h.gql(strip(DEFERRED))).data);
      expect(body.extensions.cost.requested).toBeGreaterThan(0);
    }
  });

  it('streams a series of bars item by item, equal to the series read at once', async () => {
    const r = await incremental(h, STREAMED);
    expect(r.status).toBe(200);
    expect(r.parts[0].data.security.bars.nodes).toHaveLength(2);
    const plain = await h.gql(strip(STREAMED));
    expect(plain.data.security.bars.nodes.length).toBeGreaterThan(20);
    expect(merged(r.parts)).toEqual(plain.data);
  });

  it('counts the deferred parts in the cost, refused before any part is sent', async () => {
    const plain = await h.gql(strip(DEFERRED));
    const app = h.appWith({ GRAPHQL_MAX_COST: String(plain.extensions!.cost!.requested - 1) });
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({ query: DEFERRED }),
    });
    const parts = multipartParts(await res.text());
    expect(parts).toHaveLength(1);
    expect(parts[0].data).toBeUndefined();
    expect(parts[0].errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('answers a response-cache hit whole, in one part, with no SQL', async () => {
    const query = `{ security(symbol: "NVLX") { symbol ... @defer { logo { png { url } } } } }`;
    const first = await incremental(h, query, 'demo-pro');
    expect(first.parts.length).toBeGreaterThan(1);
    let again!: Awaited<ReturnType<typeof incremental>>;
    expect(await h.countStatements(async () => (again = await incremental(h, query, 'demo-pro')))).toBe(0);
    expect(again.parts).toHaveLength(1);
    expect(again.parts[0].data).toEqual(merged(first.parts));
  });

  it("gives a tier's refusal in the part it belongs to, the first part whole", async () => {
    const r = await incremental(
      h,
      `{ security(symbol: "NVLX") { symbol ... @defer { trades(first: 2) { nodes { price } } } } }`,
      'demo-free',
    );
    expect(r.parts[0].data.security.symbol).toBe('NVLX');
    const later = r.parts
      .slice(1)
      .flatMap((p) => [...(p.errors ?? []), ...(p.incremental ?? []).flatMap((i: any) => i.errors ?? [])]);
    expect(later.map((e: any) => e.extensions.code)).toContain('FORBIDDEN');
  });
});

/** Parts from a list, then (if `hang`) a next() that never settles; records return(). */
function source(list: Part[], hang: boolean) {
  const calls = { returned: 0 };
  let i = 0;
  const it: AsyncIterableIterator<Part> = {
    next: () =>
      i < list.length
        ? Promise.resolve({ done: false, value: list[i++]! })
        : hang
          ? new Promise(() => {})
          : Promise.resolve({ done: true, value: undefined }),
    return: async () => {
      calls.returned++;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => it,
  };
  return { it, calls };
}

async function drain(parts: AsyncIterable<Part>): Promise<Part[]> {
  const out: Part[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

describe('the parts after the first (graphql/incremental.ts)', () => {
  it('releases what the answer holds once, at its last part, and marks the first', async () => {
    let released = 0;
    const { it: parts } = source(
      [
        { data: {}, hasNext: true },
        { incremental: [], hasNext: false },
      ],
      false,
    );
    const out = await drain(
      boundedParts(
        parts,
        new Deadline(60_000),
        () => released++,
        (p) => ({ ...p, extensions: { first: true } }),
      ),
    );
    expect(out).toEqual([
      { data: {}, hasNext: true, extensions: { first: true } },
      { incremental: [], hasNext: false },
    ]);
    expect(released).toBe(1);
  });

  it('ends with TIMEOUT and hasNext false when a part does not come before the deadline', async () => {
    let released = 0;
    const { it: parts, calls } = source([{ data: { a: 1 }, hasNext: true }], true);
    const out = await drain(boundedParts(parts, new Deadline(50), () => released++));
    expect(out).toHaveLength(2);
    expect(out[1]!.hasNext).toBe(false);
    expect(out[1]!.errors![0]!.extensions.code).toBe('TIMEOUT');
    expect(released).toBe(1);
    expect(calls.returned).toBe(1);
  });

  it('releases when the client goes away between parts', async () => {
    let released = 0;
    const { it: parts, calls } = source([{ data: {}, hasNext: true }], true);
    const bounded = boundedParts(parts, new Deadline(60_000), () => released++);
    await bounded.next();
    await bounded.return!();
    await bounded.return!();
    expect(released).toBe(1);
    expect(calls.returned).toBeGreaterThanOrEqual(1);
  });
});
