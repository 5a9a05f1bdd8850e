import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Quote } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { quoteFixture, TIES } from '../quote-fixture.js';
import { COSTED, expectBadUserInput, graphqlHarness, type GraphQLHarness } from './helpers.js';

const FIELDS =
  'id symbol askExchange askPrice askSize bidExchange bidPrice bidSize tape conditions sequenceNumber sipTimestamp time';
const PRO = { 'x-api-key': 'demo-pro' };
const FREE = { 'x-api-key': 'demo-free' };

/** What GraphQL answers for a stored quote (the id aside). */
const asGraphQL = (q: Quote) => ({
  symbol: q.symbol,
  askExchange: q.askExchange,
  askPrice: q.askPrice,
  askSize: q.askSize,
  bidExchange: q.bidExchange,
  bidPrice: q.bidPrice,
  bidSize: q.bidSize,
  tape: q.tape,
  conditions: q.conditions,
  sequenceNumber: q.sequenceNumber.toString(),
  sipTimestamp: q.sipTimestamp.toString(),
  time: new Date(Number(q.sipTimestamp / 1_000_000n)).toISOString(),
});

describe.each(testDatabases())('GraphQL quotes on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  /** Every quote of `symbol`, oldest first by (sipTimestamp, sequenceNumber). */
  let stored: Quote[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    ({ symbol, stored } = await quoteFixture(h.db));
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** Follows endCursor to the end; every page's nodes, and whether each page was full. */
  async function pages(
    s: string,
    order: 'ASC' | 'DESC',
    first: number,
    window: { from?: string; to?: string } = {},
  ): Promise<any[][]> {
    const out: any[][] = [];
    const counts = new Set<number>();
    let after: string | null = null;
    do {
      const r: any = await h.gql(
        `query($s: String!, $o: SortOrder, $n: Int, $a: String, $f: DateTime, $t: DateTime) { quotes(symbol: $s, order: $o, first: $n, after: $a, from: $f, to: $t) {
          totalCount pageInfo { hasNextPage endCursor } nodes { ${FIELDS} } } }`,
        { s, o: order, n: first, a: after, f: window.from, t: window.to },
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      counts.add(r.data.quotes.totalCount);
      out.push(r.data.quotes.nodes);
      after = r.data.quotes.pageInfo.hasNextPage ? r.data.quotes.pageInfo.endCursor : null;
      expect(out.length).toBeLessThan(1000);
    } while (after);
    // every page counts what the pages hold together (exact: fewer than EXACT_TICK_COUNT)
    expect([...counts]).toEqual([out.flat().length]);
    return out;
  }

  it('pages newest first to the end with endCursor, every field as stored, and ASC gives the reverse', async () => {
    const desc = await pages(symbol, 'DESC', 97);
    expect(desc.flat().map(({ id, ...rest }) => rest)).toEqual([...stored].reverse().map(asGraphQL));
    expect(desc.slice(0, -1).every((p) => p.length === 97)).toBe(true);
    const asc = await pages(symbol, 'ASC', 97);
    expect(asc.flat().map((q) => q.id)).toEqual(
      desc
        .flat()
        .map((q) => q.id)
        .reverse(),
    );
  });

  it('breaks ties on sipTimestamp by sequenceNumber, and a cursor inside a tie loses and repeats nothing', async () => {
    const rows = await h.db.prisma.quote.findMany({
      where: { symbol: TIES },
      orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
    });
    for (const first of [1, 2, 3]) {
      const asc = await pages(TIES, 'ASC', first);
      expect(
        asc.flat().map((q) => q.sequenceNumber),
        `first: ${first}`,
      ).toEqual(rows.map((r) => r.sequenceNumber.toString()));
      const desc = await pages(TIES, 'DESC', first);
      expect(
        desc.flat().map((q) => q.sequenceNumber),
        `first: ${first}`,
      ).toEqual(rows.map((r) => r.sequenceNumber.toString()).reverse());
    }
    // 19 digits, exact: the sipTimestamp is a string of all its digits
    expect((await pages(TIES, 'ASC', 10)).flat()[0].sipTimestamp).toBe('1795000000000000001');
  });

  it('from/to select a time window, both ends inclusive (to up to the last nanosecond of its millisecond), across pages', async () => {
    const mid = stored[Math.floor(stored.length / 2)]!;
    const from = new Date(Number(mid.sipTimestamp / 1_000_000n));
    const to = new Date(from.getTime() + 60 * 60 * 1000);
    const fromNs = BigInt(from.getTime()) * 1_000_000n;
    const toNs = BigInt(to.getTime()) * 1_000_000n + 999_999n;
    const inWindow = stored.filter((q) => q.sipTimestamp >= fromNs && q.sipTimestamp <= toNs);
    expect(inWindow.length).toBeGreaterThan(1);
    const got = await pages(symbol, 'ASC', 7, { from: from.toISOString(), to: to.toISOString() });
    expect(got.flat().map((q) => q.sequenceNumber)).toEqual(inWindow.map((q) => q.sequenceNumber.toString()));
    // only from, only to
    const since = (await pages(symbol, 'ASC', 5000, { from: from.toISOString() })).flat();
    expect(since.map((q) => q.sequenceNumber)).toEqual(
      stored.filter((q) => q.sipTimestamp >= fromNs).map((q) => q.sequenceNumber.toString()),
    );
    const until = (await pages(symbol, 'DESC', 5000, { to: from.toISOString() })).flat();
    expect(until.map((q) => q.sequenceNumber)).toEqual(
      stored
        .filter((q) => q.sipTimestamp <= BigInt(from.getTime()) * 1_000_000n + 999_999n)
        .map((q) => q.sequenceNumber.toString())
        .reverse(),
    );
  });

  it('without arguments: the 10 newest; Security.quotes and latestQuote agree with the root field', async () => {
    const r = await h.gql(
      `query($s: String!) { quotes(symbol: $s) { nodes { id } } security(symbol: $s) { quotes { nodes { id } } latestQuote { ${FIELDS} } } }`,
      { s: symbol },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.quotes.nodes).toHaveLength(10);
    expect(r.data.security.quotes).toEqual(r.data.quotes);
    const { id, ...latest } = r.data.security.latestQuote;
    expect(latest).toEqual(asGraphQL(stored.at(-1)!));
    expect(id).toBe(r.data.quotes.nodes[0].id);
  });

  it('node(id) gives back the same quote', async () => {
    const r = await h.gql(`query($s: String!) { quotes(symbol: $s, first: 3) { nodes { ${FIELDS} } } }`, { s: symbol });
    for (const q of r.data.quotes.nodes) {
      const node = await h.gql(`query($id: ID!) { node(id: $id) { __typename ... on Quote { ${FIELDS} } } }`, {
        id: q.id,
      });
      expect(node.data.node).toEqual({ __typename: 'Quote', ...q });
    }
  });

  it('refuses bad arguments with one BAD_USER_INPUT naming the argument and the value', async () => {
    const cases: [string, Record<string, unknown>, ...(string | RegExp)[]][] = [
      [
        'query($n: Int) { quotes(symbol: "NVLX", first: $n) { nodes { id } } }',
        { n: 5001 },
        'argument "first" must be an integer from 1 to 5000; got 5001',
      ],
      [
        'query($n: Int) { quotes(symbol: "NVLX", first: $n) { nodes { id } } }',
        { n: 0 },
        'argument "first" must be an integer from 1 to 5000; got 0',
      ],
      ['query($n: Int) { quotes(symbol: "NVLX", first: $n) { nodes { id } } }', { n: -3 }, 'got -3'],
      [
        '{ quotes(symbol: "NVLX", from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { nodes { id } } }',
        {},
        'argument "from" (2026-02-01T00:00:00.000Z) is after "to" (2026-01-01T00:00:00.000Z)',
      ],
      ['{ quotes(symbol: "NVLX", from: "yesterday") { nodes { id } } }', {}, /"from"/, 'yesterday'],
      ['{ quotes(symbol: "NVLX", order: SIDEWAYS) { nodes { id } } }', {}, /"order"/, 'SIDEWAYS'],
      ['{ quotes(symbol: "NVLX", after: "e30") { nodes { id } } }', {}, /after: .* is not a cursor of this list/],
      [
        '{ security(symbol: "NVLX") { quotes(first: 5001) { nodes { id } } } }',
        {},
        'argument "first" must be an integer from 1 to 5000; got 5001',
      ],
    ];
    for (const [query, variables, ...expected] of cases) {
      const r = await h.gql(query, variables);
      expect(r.data?.quotes ?? r.data?.security?.quotes ?? null, query).toBeNull();
      expectBadUserInput(r, ...expected);
    }
  });

  it('a cursor opens only the list and the order it came from', async () => {
    const q = await h.gql(
      `{ quotes(symbol: "${symbol}", first: 1) { pageInfo { endCursor } } trades(symbol: "${symbol}", first: 1) { pageInfo { endCursor } } }`,
    );
    const [quoteCursor, tradeCursor] = [q.data.quotes.pageInfo.endCursor, q.data.trades.pageInfo.endCursor];
    for (const [field, cursor] of [
      [`quotes(symbol: "${symbol}", order: ASC, after: $c)`, quoteCursor],
      [`quotes(symbol: "${symbol}", after: $c)`, tradeCursor],
    ]) {
      expectBadUserInput(
        await h.gql(`query($c: String) { ${field} { nodes { id } } }`, { c: cursor }),
        /after: .* is not a cursor of this list/,
      );
    }
    const next = await h.gql(
      `query($c: String) { quotes(symbol: "${symbol}", first: 1, after: $c) { nodes { sequenceNumber } } }`,
      { c: quoteCursor },
    );
    expect(next.data.quotes.nodes).toEqual([{ sequenceNumber: stored.at(-2)!.sequenceNumber.toString() }]);
  });

  it('an unknown symbol has no quotes and no latest quote, not an error', async () => {
    const r = await h.gql('{ quotes(symbol: "NOSUCH") { pageInfo { hasNextPage endCursor } nodes { id } } }');
    expect(r).toEqual({
      status: 200,
      data: { quotes: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } },
      ...COSTED,
    });
  });

  it('the free tier is refused quotes, latestQuote and node(id) of a quote, naming the pro tier, while the rest answers; pro gets them', async () => {
    const FORBIDDEN = "quotes needs the pro tier or higher; this caller's tier is free";
    const query = `{ quotes(symbol: "${symbol}", first: 1) { nodes { id } } security(symbol: "${symbol}") { symbol quotes(first: 1) { nodes { id } } latestQuote { id } } }`;
    const free = await h.gql(query, {}, FREE);
    expect(free.status).toBe(200);
    expect(free.data).toEqual({ quotes: null, security: { symbol, quotes: null, latestQuote: null } });
    expect(free.errors!.map((e) => [e.path!.join('.'), e.extensions?.code, e.message]).sort()).toEqual([
      ['quotes', 'FORBIDDEN', FORBIDDEN],
      ['security.latestQuote', 'FORBIDDEN', FORBIDDEN],
      ['security.quotes', 'FORBIDDEN', FORBIDDEN],
    ]);
    const pro = await h.gql(query, {}, PRO);
    expect(pro.errors).toBeUndefined();
    const id = pro.data.quotes.nodes[0].id;
    expect(pro.data.security).toEqual({ symbol, quotes: { nodes: [{ id }] }, latestQuote: { id } });
    const node = await h.gql('query($id: ID!) { node(id: $id) { id } }', { id }, FREE);
    expect(node.data.node).toBeNull();
    expect(node.errors!.map((e) => [e.extensions?.code, e.message])).toEqual([['FORBIDDEN', FORBIDDEN]]);
    expect((await h.gql(query, {}, { 'x-api-key': 'wrong' })).errors![0]!.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('costs as many SQL statements for a page of 5000 as for 5, and for 20 securities with quotes and latestQuote as for 2', async () => {
    const page = async (n: number) =>
      h.countStatements(async () =>
        expect(
          (
            await h.gql('query($s: String!, $n: Int) { quotes(symbol: $s, first: $n) { nodes { id } } }', {
              s: symbol,
              n,
            })
          ).data.quotes.nodes.length,
        ).toBe(Math.min(n, stored.length)),
      );
    expect(await page(5000)).toBe(await page(5));
    const query = `query($n: Int!) { securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $n) { nodes {
      symbol quotes(first: 3) { nodes { symbol sequenceNumber } } latestQuote { symbol sequenceNumber } } } }`;
    const counts: number[] = [];
    for (const n of [2, 20]) {
      let r: any;
      counts.push(await h.countWarmStatements(async () => (r = await h.gql(query, { n }))));
      expect(r.errors).toBeUndefined();
      expect(r.data.securities.nodes).toHaveLength(n);
      for (const s of r.data.securities.nodes) {
        expect(s.quotes.nodes.length).toBeGreaterThan(0);
        expect(s.quotes.nodes.every((q: { symbol: string }) => q.symbol === s.symbol)).toBe(true);
        expect(s.latestQuote).toEqual(s.quotes.nodes[0]);
      }
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it('runs aliased root quotes of several symbols as one statement, as many as for one symbol', async () => {
    const one = await h.countStatements(async () =>
      expect((await h.gql(`{ a: quotes(symbol: "${symbol}", first: 2) { nodes { symbol } } }`)).errors).toBeUndefined(),
    );
    let r: any;
    const three = await h.countStatements(async () => {
      r = await h.gql(
        `{ a: quotes(symbol: "${symbol}", first: 2) { nodes { symbol } } b: quotes(symbol: "${TIES}", first: 2) { nodes { symbol } } c: quotes(symbol: "${symbol.toLowerCase()}", first: 2) { nodes { symbol } } }`,
      );
    });
    expect(r.errors).toBeUndefined();
    expect([r.data.a.nodes[0].symbol, r.data.b.nodes[0].symbol, r.data.c.nodes[0].symbol]).toEqual([
      symbol,
      TIES,
      symbol,
    ]);
    expect(three).toBe(one);
  });
});
