import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkInsert } from '../../src/db/bulk.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';

const PAGE = `pageInfo { hasNextPage endCursor } nodes { id sequenceNumber sipTimestamp }`;

describe.each(testDatabases())('GraphQL trades and quotes on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    // a symbol with a few hundred trades, so paging runs through several pages quickly
    const counts = await h.db.prisma.trade.groupBy({
      by: ['symbol'],
      _count: { _all: true },
      orderBy: { symbol: 'asc' },
    });
    symbol = counts.find((c) => c._count._all > 150 && c._count._all < 400)!.symbol;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  for (const kind of ['trades', 'quotes'] as const) {
    it(`${kind}: pages newest first by (sipTimestamp, sequenceNumber) until the end, and ASC reverses`, async () => {
      const model = kind === 'trades' ? h.db.prisma.trade : h.db.prisma.quote;
      const stored = await (model as typeof h.db.prisma.trade).findMany({
        where: { symbol },
        orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
      });
      for (const order of ['DESC', 'ASC'] as const) {
        const expected = (order === 'DESC' ? stored : [...stored].reverse()).map((t) => t.sequenceNumber.toString());
        const seen: string[] = [];
        let after: string | null = null;
        do {
          const r: any = await h.gql(
            `query($s: String!, $o: SortOrder, $a: String) { ${kind}(symbol: $s, order: $o, first: 97, after: $a) { totalCount ${PAGE} } }`,
            { s: symbol, o: order, a: after },
          );
          expect(r.errors).toBeUndefined();
          expect(r.data[kind].totalCount).toBe(stored.length); // exact: fewer than EXACT_TICK_COUNT
          seen.push(...r.data[kind].nodes.map((n: { sequenceNumber: string }) => n.sequenceNumber));
          after = r.data[kind].pageInfo.hasNextPage ? r.data[kind].pageInfo.endCursor : null;
        } while (after);
        expect(seen).toEqual(expected);
      }
    });

    it(`${kind}: from/to select a time window (inclusive) and default to 10 newest`, async () => {
      const model = (kind === 'trades' ? h.db.prisma.trade : h.db.prisma.quote) as typeof h.db.prisma.trade;
      const stored = await model.findMany({
        where: { symbol },
        orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
      });
      const mid = stored[Math.floor(stored.length / 2)]!;
      const from = new Date(Number(mid.sipTimestamp / 1_000_000n));
      const to = new Date(from.getTime() + 60 * 60 * 1000);
      const inWindow = stored.filter(
        (t) =>
          t.sipTimestamp >= BigInt(from.getTime()) * 1_000_000n &&
          t.sipTimestamp <= BigInt(to.getTime()) * 1_000_000n + 999_999n,
      );
      const r = await h.gql(
        `query($s: String!, $f: DateTime, $t: DateTime) { ${kind}(symbol: $s, from: $f, to: $t, order: ASC, first: 5000) { nodes { sequenceNumber } } }`,
        { s: symbol, f: from.toISOString(), t: to.toISOString() },
      );
      expect(r.data[kind].nodes.map((n: { sequenceNumber: string }) => n.sequenceNumber)).toEqual(
        inWindow.map((t) => t.sequenceNumber.toString()),
      );
      const d = await h.gql(`query($s: String!) { ${kind}(symbol: $s) { nodes { sequenceNumber } } }`, { s: symbol });
      expect(d.data[kind].nodes).toHaveLength(10);
      expect(d.data[kind].nodes[0].sequenceNumber).toBe(stored.at(-1)!.sequenceNumber.toString());
    });
  }

  it('a 19-digit sipTimestamp and a sequence number past 2^53 round-trip exactly, also through node(id)', async () => {
    const sip = 1_795_208_399_869_397_596n;
    const seq = 9_007_199_254_740_993n; // 2^53 + 1: a double would round it
    await bulkInsert(h.db, 'Trade', [
      {
        symbol: 'EXACT',
        sequenceNumber: seq,
        sipTimestamp: sip,
        tradeId: 'x',
        price: 1.5,
        size: 10,
        exchange: 4,
        tape: 1,
        conditions: [],
      },
    ]);
    const r = await h.gql('{ trades(symbol: "EXACT") { nodes { id sequenceNumber sipTimestamp time } } }');
    expect(r.data.trades.nodes[0]).toMatchObject({
      sequenceNumber: seq.toString(),
      sipTimestamp: sip.toString(),
      time: '2026-11-20T20:59:59.869Z',
    });
    const node = await h.gql('query($id: ID!) { node(id: $id) { ... on Trade { sipTimestamp sequenceNumber } } }', {
      id: r.data.trades.nodes[0].id,
    });
    expect(node.data.node).toEqual({ sipTimestamp: sip.toString(), sequenceNumber: seq.toString() });
    // and the cursor carries the exact key: the next page after it is empty
    const page = await h.gql('{ trades(symbol: "EXACT", first: 1) { pageInfo { endCursor hasNextPage } } }');
    const next = await h.gql('query($a: String) { trades(symbol: "EXACT", after: $a) { nodes { id } } }', {
      a: page.data.trades.pageInfo.endCursor,
    });
    expect(next.data.trades.nodes).toEqual([]);
  });

  it('Security.latestTrade/latestQuote are the newest rows', async () => {
    const newest = await h.db.prisma.trade.findFirstOrThrow({
      where: { symbol },
      orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
    });
    const newestQuote = await h.db.prisma.quote.findFirstOrThrow({
      where: { symbol },
      orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
    });
    const r = await h.gql(
      'query($s: String!) { security(symbol: $s) { latestTrade { sequenceNumber price } latestQuote { sequenceNumber bidPrice } } }',
      { s: symbol },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.security.latestTrade).toEqual({
      sequenceNumber: newest.sequenceNumber.toString(),
      price: newest.price,
    });
    expect(r.data.security.latestQuote.sequenceNumber).toBe(newestQuote.sequenceNumber.toString());
  });

  // bars against a brute-force recomputation from the trades: test/rest/bar.test.ts

  it('rejects bad arguments with coded errors that name them', async () => {
    const cases: [string, RegExp][] = [
      [
        `{ trades(symbol: "${'X'}", first: 5001) { nodes { id } } }`,
        /argument "first" must be an integer from 1 to 5000; got 5001/,
      ],
      [
        '{ quotes(symbol: "X", first: 0) { nodes { id } } }',
        /argument "first" must be an integer from 1 to 5000; got 0/,
      ],
      [
        '{ trades(symbol: "X", from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { nodes { id } } }',
        /argument "from" .* is after "to"/,
      ],
      ['{ trades(symbol: "X", from: "yesterday") { nodes { id } } }', /argument "from"/],
      ['{ trades(symbol: "X", order: SIDEWAYS) { nodes { id } } }', /argument "order"/],
      ['{ trades(symbol: "X", after: "e30") { nodes { id } } }', /after: .* is not a cursor of this list/],
      [
        '{ security(symbol: "NVLX") { bars(timespan: MINUTE, multiplier: 0, from: "2026-01-01T00:00:00Z", to: "2026-03-01T00:00:00Z") { nodes { open } } } }',
        /argument "multiplier" must be an integer from 1 to 100000; got 0/,
      ],
    ];
    for (const [query, message] of cases) {
      const r = await h.gql(query);
      expect(r.errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
      expect(r.errors?.[0]?.message, query).toMatch(message);
    }
    // a trades cursor is not a quotes cursor, nor valid in the other order
    const t = await h.gql(`{ trades(symbol: "${symbol}", first: 1) { pageInfo { endCursor } } }`);
    for (const q of [`quotes(symbol: "${symbol}", after: $c)`, `trades(symbol: "${symbol}", order: ASC, after: $c)`]) {
      const r = await h.gql(`query($c: String) { ${q} { nodes { id } } }`, { c: t.data.trades.pageInfo.endCursor });
      expect(r.errors?.[0]?.extensions?.code, q).toBe('BAD_USER_INPUT');
    }
  });

  it('an unknown symbol has no trades, not an error', async () => {
    const r = await h.gql(
      '{ trades(symbol: "NOSUCH") { pageInfo { hasNextPage } nodes { id } } quotes(symbol: "NOSUCH") { nodes { id } } }',
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.trades).toEqual({ pageInfo: { hasNextPage: false }, nodes: [] });
  });
});
