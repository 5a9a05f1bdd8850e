// Backward paging (`last`/`before`) on every connection of the graph: each list walked backward
// from its end, page by page, equals the same list walked forward, and, for ratings, a security's
// news and trades, the rows as SQL orders them (read here, on their own); a backward page costs
// the statements a forward page costs; `totalCount` of trades and quotes is SQL's COUNT(*).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXACT_TICK_COUNT } from '../../src/domain/limits.js';
import { tickCount } from '../../src/services/tick.js';
import { testDatabases } from '../helpers.js';
import { expectBadUserInput, graphqlHarness, type GraphQLHarness } from './helpers.js';

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

interface Page {
  pageInfo: PageInfo;
  edges: { cursor: string; node: { id: string } }[];
}

const SELECTION = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } }';

/** One connection of the graph: its document around `$paging` (the paging arguments), and where its page is. */
interface ListCase {
  name: string;
  document: string;
  page: (data: any) => Page;
  /** Every item of the list, in its order (the node ids), when the test reads them from SQL itself. */
  sql?: string;
  /** Its items' keys in SQL's terms, from a node's global id. */
  key?: (id: string) => string;
  /** The page sizes it is walked with (long lists: fewer pages). */
  sizes?: number[];
}

/** The symbols the lists are read for: one with a few hundred ticks, one with the most news. */
interface Symbols {
  ticks: string;
  news: string;
}

/** The record key inside a Relay global id (base64 of `Type:key`). */
const keyOf = (id: string) => Buffer.from(id, 'base64').toString('utf8').split(':').slice(1).join(':');
/** A trade's sequence number, from its global id (the key is `["<symbol>","<sequence number>"]`). */
const sequenceOf = (id: string) => (JSON.parse(keyOf(id)) as [string, string])[1];

/** The 20 connections of the graph: 11 at the root, 9 on a security. */
function cases({ ticks: symbol, news: newsSymbol }: Symbols): ListCase[] {
  const root = (field: string, args = ''): ListCase => ({
    name: field,
    document: `query(VARIABLES) { ${field}(${args}${args ? ', ' : ''}$paging) { ${SELECTION} } }`,
    page: (d) => d[field],
  });
  const nested = (field: string, args = '', of = 'NVLX'): ListCase => ({
    name: `security.${field}`,
    document: `query(VARIABLES) { security(symbol: "${of}") { ${field}(${args}${args ? ', ' : ''}$paging) { ${SELECTION} } } }`,
    page: (d) => d.security[field],
  });
  return [
    {
      ...root('ratings'),
      sql: 'SELECT "id"::text AS "k" FROM "Rating" ORDER BY "createdAt" DESC, "id" DESC',
      key: keyOf,
    },
    root('news', 'symbol: "NVLX"'),
    {
      ...root('trades', `symbol: "${symbol}"`),
      sizes: [9, 50],
      sql: `SELECT "sequenceNumber"::text AS "k" FROM "Trade" WHERE "symbol" = '${symbol}' ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC`,
      key: sequenceOf,
    },
    { ...root('quotes', `symbol: "${symbol}", order: ASC`), sizes: [9, 50] },
    root('logos'),
    root('pressReleases'),
    root('callSummaries'),
    { ...root('balanceSheets'), sizes: [9, 50] },
    root('fundamentals', 'symbol: "NVLX"'),
    root('enhancedFundamentals', 'symbol: "NVLX"'),
    root('securities', 'search: "N"'),
    { ...root('securities', 'orderBy: [{ field: MARKET_CAP, direction: DESC }]'), name: 'securities, sorted' },
    {
      ...nested('news', '', newsSymbol),
      sql: `SELECT "id"::text AS "k" FROM "NewsItem" WHERE "ticker" = '${newsSymbol}' ORDER BY "createdAt" DESC, "id" DESC`,
      sizes: [2, 50],
      key: keyOf,
    },
    nested('ratings'),
    { ...nested('trades', 'order: ASC', symbol), sizes: [9, 50] },
    { ...nested('quotes', '', symbol), sizes: [9, 50] },
    nested('pressReleases'),
    nested('callSummaries'),
    nested('balanceSheets', 'orderBy: { field: FISCAL_YEAR, direction: DESC }'),
    nested('fundamentals'),
    nested('enhancedFundamentals'),
  ];
}

describe.each(testDatabases())('backward paging on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  let symbols: Symbols;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    // a listed symbol with a few hundred trades: several pages of 50
    const counts = await h.db.prisma.$queryRawUnsafe<{ symbol: string; n: bigint }[]>(
      'SELECT "symbol", COUNT(*) AS "n" FROM "Trade" WHERE "symbol" IN (SELECT "symbol" FROM "Security") GROUP BY "symbol" ORDER BY "symbol"',
    );
    symbol = counts.find((c) => c.n > 150n && c.n < 400n)!.symbol;
    const [most] = (await h.db.prisma.$queryRawUnsafe(
      'SELECT "ticker" FROM "NewsItem" WHERE "ticker" IN (SELECT "symbol" FROM "Security") GROUP BY "ticker" ORDER BY COUNT(*) DESC, "ticker" LIMIT 1',
    )) as [{ ticker: string }];
    symbols = { ticks: symbol, news: most.ticker };
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  async function page(c: ListCase, paging: string, vars: Record<string, unknown>): Promise<Page> {
    const types = { n: 'Int', a: 'String', b: 'String' };
    const variables = Object.entries(types).flatMap(([v, t]) => (paging.includes(`$${v}`) ? [`$${v}: ${t}`] : []));
    const r = await h.gql(c.document.replace('VARIABLES', variables.join(', ')).replace('$paging', paging), vars);
    expect(r.errors, `${c.name} ${paging} ${JSON.stringify(vars)}`).toBeUndefined();
    return c.page(r.data);
  }

  /** The list forward, `size` at a time: each page's edges, in order. */
  async function forward(c: ListCase, size: number): Promise<Page[]> {
    const pages: Page[] = [];
    let after: string | null = null;
    do {
      const p = await page(c, 'first: $n, after: $a', { n: size, a: after });
      expect(p.pageInfo.hasPreviousPage).toBe(false); // Relay lets a forward page say false
      pages.push(p);
      after = p.pageInfo.hasNextPage ? p.pageInfo.endCursor : null;
    } while (after && pages.length < 100);
    return pages;
  }

  /** The list backward from its end, `size` at a time: each page as answered (in the list's order). */
  async function backward(c: ListCase, size: number): Promise<Page[]> {
    const pages: Page[] = [];
    let before: string | null = null;
    do {
      const p = await page(c, 'last: $n, before: $b', { n: size, b: before });
      expect(p.pageInfo.hasNextPage).toBe(false); // Relay lets a backward page say false
      pages.push(p);
      before = p.pageInfo.hasPreviousPage ? p.pageInfo.startCursor : null;
    } while (before && pages.length < 100);
    return pages;
  }

  const edgesOf = (pages: Page[]) => pages.flatMap((p) => p.edges);

  it.each(cases({ ticks: '', news: '' }).map((c) => [c.name] as const))(
    '%s: backward from the end, page by page, is the forward list; cursors agree',
    async (name) => {
      const c = cases(symbols).find((x) => x.name === name)!;
      const sizes = c.sizes ?? [3, 50];
      for (const size of sizes) {
        const ahead = edgesOf(await forward(c, size));
        const back = await backward(c, size);
        // the pages come last first, each in the list's order
        const joined = edgesOf([...back].reverse());
        expect(
          joined.map((e) => e.node.id),
          `${name}, pages of ${size}`,
        ).toEqual(ahead.map((e) => e.node.id));
        expect(joined.map((e) => e.cursor)).toEqual(ahead.map((e) => e.cursor));
        // every page but the first of the list says items precede it; each is full but the first
        back.forEach((p, i) => {
          expect(p.pageInfo.hasPreviousPage).toBe(i < back.length - 1);
          if (i < back.length - 1) expect(p.edges).toHaveLength(size);
          expect(p.pageInfo.startCursor).toBe(p.edges[0]?.cursor ?? null);
          expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
        });
        if (c.sql) {
          const rows = await h.db.prisma.$queryRawUnsafe<{ k: string }[]>(c.sql);
          expect(rows.length, `${name} should span several pages`).toBeGreaterThan(2 * sizes[0]!);
          expect(joined.map((e) => c.key!(e.node.id))).toEqual(rows.map((r) => r.k));
        }
      }
    },
  );

  it('last and before pick the items just before a cursor; after and before together bound both sides', async () => {
    const c = cases(symbols)[0]!; // ratings, against SQL
    const all = edgesOf(await forward(c, 100));
    expect(all.length).toBeGreaterThan(12);
    const at = (i: number) => all[i]!.cursor;
    const ids = (p: Page) => p.edges.map((e) => e.node.id);
    const slice = (from: number, to: number) => all.slice(from, to).map((e) => e.node.id);
    expect(ids(await page(c, 'last: $n, before: $b', { n: 4, b: at(10) }))).toEqual(slice(6, 10));
    // fewer before the cursor than asked for: what there is, and nothing precedes it
    const start = await page(c, 'last: $n, before: $b', { n: 4, b: at(2) });
    expect(ids(start)).toEqual(slice(0, 2));
    expect(start.pageInfo.hasPreviousPage).toBe(false);
    expect(ids(await page(c, 'last: $n, before: $b', { n: 4, b: at(0) }))).toEqual([]);
    // without before: the end of the whole list
    expect(ids(await page(c, 'last: $n', { n: 3 }))).toEqual(slice(all.length - 3, all.length));
    // a window between two cursors, from either end
    const window = await page(c, 'first: $n, after: $a, before: $b', { n: 3, a: at(4), b: at(11) });
    expect(ids(window)).toEqual(slice(5, 8));
    expect(window.pageInfo.hasNextPage).toBe(true);
    const short = await page(c, 'first: $n, after: $a, before: $b', { n: 10, a: at(4), b: at(11) });
    expect(ids(short)).toEqual(slice(5, 11));
    expect(short.pageInfo.hasNextPage).toBe(false);
    expect(ids(await page(c, 'last: $n, after: $a, before: $b', { n: 3, a: at(4), b: at(11) }))).toEqual(slice(8, 11));
    expect(ids(await page(c, 'last: $n, after: $a', { n: 2, a: at(4) }))).toEqual(slice(all.length - 2, all.length));
    // only before, no count: the default page size (10) just before it
    expect(ids(await page(c, 'before: $b', { b: at(12) }))).toEqual(slice(2, 12));
  });

  it('refuses first with last, a count out of range and a cursor of another list, naming the argument', async () => {
    const ratings = (args: string) => h.gql(`{ ratings(${args}) { nodes { ratingId } } }`);
    expectBadUserInput(await ratings('first: 2, last: 2'), 'give "first"', 'not both', 'first: 2 and last: 2');
    expectBadUserInput(await ratings('last: 0'), 'argument "last" must be an integer from 1 to 100; got 0');
    expectBadUserInput(await ratings('last: 101'), 'argument "last"', 'got 101');
    expectBadUserInput(await ratings('last: 2, before: "nope"'), 'before:', 'is not a cursor of this list');
    const news = await h.gql('{ news(symbol: "NVLX", first: 1) { pageInfo { endCursor } } }');
    expectBadUserInput(
      await ratings(`last: 2, before: "${news.data.news.pageInfo.endCursor}"`),
      'before:',
      'not a cursor of this list',
    );
    // the same rule on a nested list, a tick list and a ranked search
    expectBadUserInput(
      await h.gql('{ security(symbol: "NVLX") { news(first: 1, last: 1) { nodes { headline } } } }'),
      'not both',
    );
    expectBadUserInput(
      await h.gql(`{ trades(symbol: "${symbol}", last: 5001) { nodes { price } } }`),
      '"last"',
      '5000',
    );
    expectBadUserInput(
      await h.gql('{ securities(query: "nova", last: 2, before: "x") { nodes { symbol } } }'),
      'before:',
    );
  });

  it('a backward page costs the statements of a forward page: root, nested (planned), ticks, securities', async () => {
    // CURSORS: where the paged list's cursors are read, to page from the last of them
    const documents = [
      '{ ratings(PAGING) { CURSORS nodes { ratingId firm } pageInfo { startCursor hasPreviousPage } } }',
      '{ security(symbol: "NVLX") { symbol news(PAGING) { CURSORS nodes { headline } pageInfo { startCursor } } } }',
      `{ trades(symbol: "${symbol}", PAGING) { CURSORS nodes { price } pageInfo { startCursor } } }`,
      '{ securities(search: "N", PAGING) { CURSORS nodes { symbol trades(first: 2) { nodes { price } } } } }',
      '{ securities(search: "N", first: 3) { nodes { symbol ratings(PAGING) { CURSORS nodes { firm } } } } }',
    ];
    for (const doc of documents) {
      const listed = await h.gql(doc.replace('PAGING', 'first: 6').replace('CURSORS', 'edges { cursor }'));
      const cursor = JSON.stringify([...JSON.stringify(listed.data).matchAll(/"cursor":"([^"]+)"/g)].at(-1)![1]);
      const ahead = doc.replace('PAGING', `first: 3, after: ${cursor}`).replace('CURSORS', '');
      const back = doc.replace('PAGING', `last: 3, before: ${cursor}`).replace('CURSORS', '');
      const counted = async (query: string) => {
        const r = await h.gql(query);
        expect(r.errors, query).toBeUndefined();
        return h.countWarmStatements(() => h.gql(query));
      };
      expect(await counted(back), back).toBe(await counted(ahead));
    }
  });

  it('totalCount of trades and quotes is COUNT(*) of the symbol and range, and says it is exact', async () => {
    for (const [field, table] of [
      ['trades', 'Trade'],
      ['quotes', 'Quote'],
    ] as const) {
      const [{ lo, hi }] = (await h.db.prisma.$queryRawUnsafe(
        `SELECT MIN("sipTimestamp") AS "lo", MAX("sipTimestamp") AS "hi" FROM "${table}" WHERE "symbol" = $1`,
        symbol,
      )) as [{ lo: bigint; hi: bigint }];
      const mid = new Date(Number((lo + (hi - lo) / 2n) / 1_000_000n));
      for (const range of [{}, { from: mid }, { to: mid }]) {
        const where = [
          `"symbol" = '${symbol}'`,
          ...('from' in range ? [`"sipTimestamp" >= ${BigInt(mid.getTime()) * 1_000_000n}`] : []),
          ...('to' in range ? [`"sipTimestamp" <= ${BigInt(mid.getTime()) * 1_000_000n + 999_999n}`] : []),
        ].join(' AND ');
        const [{ n }] = (await h.db.prisma.$queryRawUnsafe(
          `SELECT COUNT(*) AS "n" FROM "${table}" WHERE ${where}`,
        )) as [{ n: bigint }];
        const r = await h.gql(
          `query($s: String!, $f: DateTime, $t: DateTime) { ${field}(symbol: $s, from: $f, to: $t, last: 2) { totalCount totalCountIsEstimate nodes { sequenceNumber } } }`,
          { s: symbol.toLowerCase(), f: 'from' in range ? mid : null, t: 'to' in range ? mid : null },
        );
        expect(r.errors).toBeUndefined();
        expect(r.data[field].totalCount, `${field} ${JSON.stringify(range)}`).toBe(Number(n));
        expect(r.data[field].totalCountIsEstimate).toBe(false);
        expect(Number(n)).toBeGreaterThan(0);
      }
    }
    // a security's trades count nothing (a nested list); other root lists count exactly
    const nested = await h.gql(
      '{ security(symbol: "NVLX") { trades { totalCount totalCountIsEstimate } } ratings { totalCountIsEstimate } }',
    );
    expect(nested.data).toEqual({
      security: { trades: { totalCount: null, totalCountIsEstimate: null } },
      ratings: { totalCountIsEstimate: false },
    });
  });

  it('past EXACT_TICK_COUNT, totalCount is PostgreSQL’s estimate, flagged, without counting every row', async () => {
    const many = EXACT_TICK_COUNT + 5_000;
    // one trade a millisecond from 2026-01-02T00:00:00Z
    await h.db.prisma.$executeRawUnsafe(
      `INSERT INTO "Trade" ("symbol", "sequenceNumber", "sipTimestamp", "tradeId", "price", "size", "exchange", "tape", "conditions")
       SELECT 'ZZMANY', i, 1767312000000000000 + i::bigint * 1000000, i::text, 10, 1, 4, 1, '[]' FROM generate_series(1, ${many}) i`,
    );
    await h.db.prisma.$executeRawUnsafe('ANALYZE "Trade"');
    const count = (args: string) =>
      h.gql(
        `{ trades(symbol: "ZZMANY"${args}, last: 1) { totalCount totalCountIsEstimate nodes { sequenceNumber } } }`,
      );
    const all = await count('');
    expect(all.errors).toBeUndefined();
    expect(all.data.trades.totalCountIsEstimate).toBe(true);
    // never under what the bounded count saw; the planner's statistics put it near the truth
    expect(all.data.trades.totalCount).toBeGreaterThan(EXACT_TICK_COUNT);
    expect(Math.abs(all.data.trades.totalCount - many) / many).toBeLessThan(0.2);
    // the last of a newest-first list: the oldest
    expect(all.data.trades.nodes).toEqual([{ sequenceNumber: '1' }]);
    // a range of fewer: exact again (the first 1,000 ms hold trades 1 to 999)
    const few = await count(', to: "2026-01-02T00:00:00.999Z"');
    expect(few.data.trades).toMatchObject({ totalCount: 999, totalCountIsEstimate: false });
    // the service's bound is the only thing that decides: the same rows, counted exactly up to 2,000
    expect(await tickCount(h.db, 'Trade', 'ZZMANY', { lte: 1767312000000000000n + 1_500_000_000n }, 2_000)).toEqual({
      count: 1_500,
      estimate: false,
    });
    const estimated = await tickCount(h.db, 'Trade', 'ZZMANY', { lte: 1767312000000000000n + 1_500_000_000n }, 1_000);
    expect(estimated.estimate).toBe(true);
    expect(estimated.count).toBeGreaterThan(1_000);
  });
});
