// Watchlists (docs/frontend.md#watchlists): securities by a list of symbols, in order with nulls in
// place, in a bounded number of statements; trades and quotes of several symbols as one list in
// time order, paged by cursor, compared with a merge of the stored rows done here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DELISTINGS } from '../../src/sample/corporate-actions.js';
import { MAX_SYMBOLS } from '../../src/domain/symbols.js';
import { testDatabases } from '../helpers.js';
import { expectBadUserInput, graphqlHarness, type GraphQLHarness } from './helpers.js';

const WATCHLIST = `query Watchlist($symbols: [String!]!) {
  securitiesBySymbols(symbols: $symbols) {
    id symbol name
    latestTrade { price sipTimestamp }
    latestQuote { bidPrice askPrice }
    logo { png { url } }
  }
}`;

interface Tick {
  symbol: string;
  sipTimestamp: bigint;
  sequenceNumber: bigint;
}

/** The brute-force order of a watchlist's ticks: SIP timestamp, then sequence number, then symbol. */
function compareTicks(a: Tick, b: Tick): number {
  if (a.sipTimestamp !== b.sipTimestamp) return a.sipTimestamp < b.sipTimestamp ? -1 : 1;
  if (a.sequenceNumber !== b.sequenceNumber) return a.sequenceNumber < b.sequenceNumber ? -1 : 1;
  return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
}

const key = (t: { symbol: string; sipTimestamp: bigint | string; sequenceNumber: bigint | string }) =>
  `${t.symbol} ${t.sipTimestamp} ${t.sequenceNumber}`;

describe.each(testDatabases())('watchlists on $name', (tdb) => {
  let h: GraphQLHarness;
  /** Every sample symbol of the security master. */
  let symbols: string[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    symbols = (await h.db.prisma.security.findMany({ select: { symbol: true }, orderBy: { symbol: 'asc' } })).map(
      (s) => s.symbol,
    );
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  describe('securitiesBySymbols', () => {
    it('answers one item per symbol given, in its order: case-insensitive, null for an unknown one with no error, a repeated one twice', async () => {
      const r = await h.gql(WATCHLIST, { symbols: ['orbt', 'NOPE', ' nvlx ', 'ORBT'] });
      expect(r.errors).toBeUndefined();
      expect(r.data.securitiesBySymbols.map((s: any) => s?.symbol ?? null)).toEqual(['ORBT', null, 'NVLX', 'ORBT']);
      expect(r.data.securitiesBySymbols[3]).toEqual(r.data.securitiesBySymbols[0]);
      expect((await h.gql(WATCHLIST, { symbols: [] })).data.securitiesBySymbols).toEqual([]);
    });

    it('each item is the security `security(symbol:)` answers, the first listing by id of a symbol on several exchanges', async () => {
      // a second listing of ORBT, whose id sorts after the first
      const [orbt] = await h.db.prisma.$queryRawUnsafe<{ id: string }[]>(
        `SELECT "id" FROM "Security" WHERE "symbol" = 'ORBT'`,
      );
      await h.db.prisma.$executeRawUnsafe(
        `INSERT INTO "Security" SELECT (jsonb_populate_record(NULL::"Security",
           to_jsonb(s) || '{"id": "ZZZZ_XLON", "micCode": "XLON", "figi": "ZZZZ"}')).* FROM "Security" s WHERE "symbol" = 'ORBT'`,
      );
      const list = [...symbols, 'ORBT'];
      const r = await h.gql(`query($s: [String!]!) { securitiesBySymbols(symbols: $s) { securityId symbol name } }`, {
        s: list,
      });
      expect(r.errors).toBeUndefined();
      const stored = await h.db.prisma.security.findMany({ orderBy: { id: 'asc' } });
      const first = (symbol: string) => stored.find((s) => s.symbol === symbol)!;
      expect(r.data.securitiesBySymbols.map((s: any) => s.securityId)).toEqual(list.map((s) => first(s).id));
      expect(first('ORBT').id).toBe(orbt!.id);
      for (const symbol of ['ORBT', 'NVLX']) {
        const one = await h.gql(`{ security(symbol: "${symbol}") { securityId symbol name } }`);
        expect(r.data.securitiesBySymbols[list.indexOf(symbol)]).toEqual(one.data.security);
      }
    });

    it(`refuses more than ${MAX_SYMBOLS} symbols and a malformed one, naming the limit or the item`, async () => {
      const many = Array.from({ length: MAX_SYMBOLS + 1 }, (_, i) => `S${i}`);
      expectBadUserInput(
        await h.gql(WATCHLIST, { symbols: many }),
        `argument "symbols" may name at most ${MAX_SYMBOLS} symbols; got ${MAX_SYMBOLS + 1}`,
      );
      expectBadUserInput(
        await h.gql(WATCHLIST, { symbols: ['NVLX', 'ORBT', 'NV LX'] }),
        'argument "symbols[2]": a symbol must be 1 to 20 characters',
      );
      // a comma list is not split here: one item, one answer
      expectBadUserInput(await h.gql(WATCHLIST, { symbols: ['NVLX,ORBT'] }), 'symbols[0]');
    });

    it(`5 symbols and ${MAX_SYMBOLS} (every sample security, the rest unknown) cost the same statements: 2`, async () => {
      const counts: number[] = [];
      for (const list of [
        symbols.slice(0, 5),
        [...symbols, ...Array.from({ length: MAX_SYMBOLS - symbols.length }, (_, i) => `UNKNOWN${i}`)],
      ]) {
        let r: any;
        counts.push(await h.countWarmStatements(async () => (r = await h.gql(WATCHLIST, { symbols: list }))));
        expect(r.errors).toBeUndefined();
        const found = r.data.securitiesBySymbols.filter(Boolean);
        expect(r.data.securitiesBySymbols).toHaveLength(list.length);
        expect(found).toHaveLength(Math.min(list.length, symbols.length));
        // real rows came back for every known symbol, children too (no ticks for a listing that ended)
        const ended = new Set(SAMPLE_DELISTINGS.map((d) => d.ticker));
        expect(found.every((s: any) => s.logo && (ended.has(s.symbol) || (s.latestTrade && s.latestQuote)))).toBe(true);
        expect(found.filter((s: any) => s.latestTrade).length).toBe(
          found.length - found.filter((s: any) => ended.has(s.symbol)).length,
        );
      }
      // the securities in one statement, then every child of every one in one more (Db.forRequest)
      expect(counts).toEqual([2, 2]);
    });
  });

  describe('trades and quotes of several symbols', () => {
    /** Two sample symbols with a few hundred trades each, and rows that tie across them. */
    let pair: [string, string];
    /** The SIP timestamp the rows of both symbols tie on. */
    let tie: bigint;
    beforeAll(async () => {
      const counts = await h.db.prisma.trade.groupBy({
        by: ['symbol'],
        _count: { _all: true },
        orderBy: { symbol: 'asc' },
      });
      const modest = counts.filter((c) => c._count._all > 100 && c._count._all < 600).map((c) => c.symbol);
      pair = [modest[0]!, modest[1]!];
      // the same SIP timestamps and sequence numbers in both symbols, inside their time range
      // (only the symbol breaks these ties), and ties inside one symbol too
      const [mid] = await h.db.prisma.$queryRawUnsafe<{ sip: bigint }[]>(
        `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY "sipTimestamp") AS sip FROM "Trade" WHERE "symbol" IN ('${pair[0]}', '${pair[1]}')`,
      );
      tie = BigInt(mid!.sip);
      const rows = pair.flatMap((symbol) =>
        [0, 0, 0, 1, 1].map((step, i) => ({
          symbol,
          sequenceNumber: 10_000_000n + BigInt(i),
          sipTimestamp: tie + BigInt(step),
          tradeId: `tie${i}`,
          price: 10 + i,
          size: 100,
          exchange: 4,
          tape: 1,
          conditions: [],
        })),
      );
      await h.db.prisma.trade.createMany({ data: rows });
    });

    /** The stored trades of `of`, each symbol read apart, merged and sorted here. */
    async function merged(of: readonly string[], order: 'ASC' | 'DESC', range: { gte?: bigint; lte?: bigint } = {}) {
      const rows = (
        await Promise.all(of.map((symbol) => h.db.prisma.trade.findMany({ where: { symbol, sipTimestamp: range } })))
      ).flat();
      rows.sort(compareTicks);
      if (order === 'DESC') rows.reverse();
      return rows.map((t) => ({ key: key(t), price: t.price, size: t.size }));
    }

    /** Follows endCursor to the end of `trades(symbols:)`; every page's nodes. */
    async function pages(list: readonly string[], order: 'ASC' | 'DESC', first: number, window: object = {}) {
      const out: any[][] = [];
      let after: string | null = null;
      do {
        const r: any = await h.gql(
          `query($s: [String!], $o: SortOrder, $n: Int, $a: String, $f: DateTime, $t: DateTime) {
            trades(symbols: $s, order: $o, first: $n, after: $a, from: $f, to: $t) {
              pageInfo { hasNextPage endCursor } edges { cursor node { symbol sipTimestamp sequenceNumber price size } } } }`,
          { s: list, o: order, n: first, a: after, ...window },
        );
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const { edges, pageInfo } = r.data.trades;
        // each edge's cursor resumes right after it, as endCursor does
        if (edges.length) expect(edges.at(-1).cursor).toBe(pageInfo.endCursor);
        out.push(edges.map((e: any) => e.node));
        after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
        expect(out.length).toBeLessThan(500);
      } while (after);
      return out;
    }

    /** Follows startCursor back to the start of `trades(symbols:)` with `last`; the pages, last page first. */
    async function backPages(list: readonly string[], order: 'ASC' | 'DESC', last: number, window: object = {}) {
      const out: any[][] = [];
      let before: string | null = null;
      do {
        const r: any = await h.gql(
          `query($s: [String!], $o: SortOrder, $n: Int, $b: String, $f: DateTime, $t: DateTime) {
            trades(symbols: $s, order: $o, last: $n, before: $b, from: $f, to: $t) {
              pageInfo { hasPreviousPage hasNextPage startCursor } totalCount totalCountIsEstimate
              edges { cursor node { symbol sipTimestamp sequenceNumber price size } } } }`,
          { s: list, o: order, n: last, b: before, ...window },
        );
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const { edges, pageInfo, totalCount, totalCountIsEstimate } = r.data.trades;
        // a watchlist has no count (docs/graphql.md#paging)
        expect([totalCount, totalCountIsEstimate, pageInfo.hasNextPage]).toEqual([null, null, false]);
        if (edges.length) expect(edges[0].cursor).toBe(pageInfo.startCursor);
        out.push(edges.map((e: any) => e.node));
        before = pageInfo.hasPreviousPage ? pageInfo.startCursor : null;
        expect(out.length).toBeLessThan(500);
      } while (before);
      return out;
    }

    const asMerged = (nodes: any[]) => nodes.map((t) => ({ key: key(t), price: t.price, size: t.size }));

    it('pages two symbols newest first to the end as one list: the stored rows merged by time, sequence, symbol; ASC the reverse', async () => {
      const expected = await merged(pair, 'DESC');
      expect(new Set(expected.map((t) => t.key.split(' ')[0]))).toEqual(new Set(pair));
      // pages of 7 end inside the ties of both kinds
      const desc = await pages([pair[1], pair[0].toLowerCase()], 'DESC', 7);
      expect(asMerged(desc.flat())).toEqual(expected);
      expect(desc.slice(0, -1).every((p) => p.length === 7)).toBe(true);
      const asc = await pages(pair, 'ASC', 50);
      expect(asMerged(asc.flat())).toEqual(await merged(pair, 'ASC'));
    });

    it("keeps `from`/`to` and repeats nothing across pages; one symbol in `symbols` is that symbol's list", async () => {
      const all = await merged(pair, 'ASC');
      const lo = BigInt(all[40]!.key.split(' ')[1]!);
      const hi = BigInt(all[all.length - 40]!.key.split(' ')[1]!);
      const window = {
        f: new Date(Number(lo / 1_000_000n)).toISOString(),
        t: new Date(Number(hi / 1_000_000n)).toISOString(),
      };
      const got = (await pages(pair, 'ASC', 13, window)).flat();
      const expected = await merged(pair, 'ASC', {
        gte: (lo / 1_000_000n) * 1_000_000n,
        lte: (hi / 1_000_000n) * 1_000_000n + 999_999n,
      });
      expect(asMerged(got)).toEqual(expected);
      expect(new Set(got.map(key)).size).toBe(got.length);
      const single = await h.gql(
        `{ trades(symbol: "${pair[0]}", first: 30) { nodes { symbol sipTimestamp sequenceNumber } } }`,
      );
      const listed = await h.gql(
        `{ trades(symbols: ["${pair[0]}"], first: 30) { nodes { symbol sipTimestamp sequenceNumber } } }`,
      );
      expect(listed.data.trades.nodes).toEqual(single.data.trades.nodes);
    });

    it('pages of one row through the ties: each cursor resumes between two symbols tied on time and sequence', async () => {
      const ms = tie / 1_000_000n;
      const window = { f: new Date(Number(ms)).toISOString(), t: new Date(Number(ms)).toISOString() };
      const expected = await merged(pair, 'DESC', { gte: ms * 1_000_000n, lte: ms * 1_000_000n + 999_999n });
      expect(expected.length).toBeGreaterThanOrEqual(10);
      const got = await pages(pair, 'DESC', 1, window);
      expect(asMerged(got.flat())).toEqual(expected);
    });

    it('pages two symbols backward (`last`/`before`) to the start: the same merged list, each page in its order, through the ties', async () => {
      const expected = await merged(pair, 'DESC');
      const desc = await backPages([pair[1], pair[0]], 'DESC', 7);
      expect(asMerged(desc.reverse().flat())).toEqual(expected);
      expect(desc.slice(1).every((p) => p.length === 7)).toBe(true);
      const asc = await backPages(pair, 'ASC', 50);
      expect(asMerged(asc.reverse().flat())).toEqual(await merged(pair, 'ASC'));
      const ms = tie / 1_000_000n;
      const window = { f: new Date(Number(ms)).toISOString(), t: new Date(Number(ms)).toISOString() };
      const ties = await merged(pair, 'DESC', { gte: ms * 1_000_000n, lte: ms * 1_000_000n + 999_999n });
      expect(asMerged((await backPages(pair, 'DESC', 1, window)).reverse().flat())).toEqual(ties);
    });

    it('a backward page is the forward page before its cursor, and `after` with `before` bounds both sides', async () => {
      const q = `query($s: [String!], $first: Int, $last: Int, $a: String, $b: String) {
        trades(symbols: $s, first: $first, last: $last, after: $a, before: $b) {
          pageInfo { startCursor endCursor } nodes { symbol sipTimestamp sequenceNumber } } }`;
      const head: any = await h.gql(q, { s: pair, first: 30 });
      const edges: any = await h.gql(q.replace('nodes {', 'edges { cursor } nodes {'), { s: pair, first: 30 });
      const cursors = edges.data.trades.edges.map((e: any) => e.cursor);
      const back: any = await h.gql(q, { s: pair, last: 10, b: cursors[20] });
      expect(back.data.trades.nodes).toEqual(head.data.trades.nodes.slice(10, 20));
      const between: any = await h.gql(q, { s: pair, last: 100, a: cursors[4], b: cursors[9] });
      expect(between.data.trades.nodes).toEqual(head.data.trades.nodes.slice(5, 9));
    });

    it('a page of a watchlist is one statement, whatever the number of symbols', async () => {
      for (const list of [pair, symbols.slice(0, 40)]) {
        let r: any;
        const q = `query($s: [String!]) { trades(symbols: $s, first: 100) { nodes { symbol price } } }`;
        expect(await h.countWarmStatements(async () => (r = await h.gql(q, { s: list })))).toBe(1);
        expect(r.data.trades.nodes).toHaveLength(100);
      }
    });

    it('quotes of several symbols: the stored rows merged, newest first', async () => {
      const rows = (await Promise.all(pair.map((symbol) => h.db.prisma.quote.findMany({ where: { symbol } })))).flat();
      rows.sort(compareTicks).reverse();
      const got: any[] = [];
      let after: string | null = null;
      do {
        const r: any = await h.gql(
          `query($a: String) { quotes(symbols: ["${pair[0]}", "${pair[1]}"], first: 500, after: $a) {
            pageInfo { hasNextPage endCursor } nodes { symbol sipTimestamp sequenceNumber bidPrice } } }`,
          { a: after },
        );
        expect(r.errors).toBeUndefined();
        got.push(...r.data.quotes.nodes);
        after = r.data.quotes.pageInfo.hasNextPage ? r.data.quotes.pageInfo.endCursor : null;
      } while (after);
      expect(got.map((q) => [key(q), q.bidPrice])).toEqual(rows.map((q) => [key(q), q.bidPrice]));
    });

    it('refuses both arguments, neither, an empty or too long list, and a cursor of another list', async () => {
      const trades = (args: string) => h.gql(`{ trades(${args}) { nodes { price } } }`);
      expectBadUserInput(await trades('symbol: "NVLX", symbols: ["ORBT"]'), 'exactly one of the arguments', 'got both');
      expectBadUserInput(await trades('first: 1'), 'exactly one of the arguments', 'got neither');
      expectBadUserInput(
        await trades('symbols: []'),
        `argument "symbols" must name 1 to ${MAX_SYMBOLS} symbols; got 0`,
      );
      const many = JSON.stringify(Array.from({ length: MAX_SYMBOLS + 1 }, (_, i) => `S${i}`));
      expectBadUserInput(
        await trades(`symbols: ${many}`),
        `must name 1 to ${MAX_SYMBOLS} symbols; got ${MAX_SYMBOLS + 1}`,
      );
      expectBadUserInput(await trades('symbols: ["NVLX", "N V"]'), 'argument "symbols"', '"N V"');
      // a comma list where one symbol goes: what to give instead
      expectBadUserInput(
        await trades('symbol: "NVLX,ORBT"'),
        'argument "symbol" names one symbol; for several give "symbols" a list instead (as ["NVLX","ORBT"]); got "NVLX,ORBT"',
      );
      const single = await h.gql(`{ trades(symbol: "NVLX", first: 1) { pageInfo { endCursor } } }`);
      const cursor = single.data.trades.pageInfo.endCursor;
      expectBadUserInput(await trades(`symbols: ["NVLX"], after: "${cursor}"`), 'is not a cursor of this list');
      const multi = await h.gql(`{ trades(symbols: ["NVLX"], first: 1) { pageInfo { endCursor } } }`);
      const listCursor = multi.data.trades.pageInfo.endCursor;
      expectBadUserInput(await trades(`symbol: "NVLX", after: "${listCursor}"`), 'is not a cursor of this list');
      expectBadUserInput(await trades(`symbols: ["NVLX"], order: ASC, after: "${listCursor}"`), 'is not a cursor');
      expectBadUserInput(
        await h.gql(`{ quotes(symbols: ["NVLX"], after: "${listCursor}") { nodes { bidPrice } } }`),
        'is not a cursor of this list',
      );
    });
  });
});
