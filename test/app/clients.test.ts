// Typed clients (docs/frontend.md): the documents GraphQL Code Generator makes of operations/
// (scripts/codegen.mjs) are current, and the Apollo Client and urql examples (examples/) work
// against a live app on 127.0.0.1: the company page with partial data for the free tier, trades
// paged by cursor and merged by each client's pagination policy, 64-bit numbers, live trades.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importStream } from '../../src/ingest/import-stream.js';
import { importerFor } from '../../src/ingest/registry.js';
import { memoryEventBus } from '../../src/runtime/events.js';
import * as apollo from '../../examples/apollo/client.js';
import * as urql from '../../examples/urql/client.js';
import { checkSyntax, codegen, codegenConfig, codegenFailure } from '../../scripts/codegen.mjs';
import { ROOT } from '../../src/config.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { listening, ndjson, SEQ, SIP, trade, within } from '../graphql/subscription-helpers.js';
import { testDatabases } from '../helpers.js';

describe('GraphQL Code Generator', () => {
  it('generated/graphql/ is what `npm run codegen` makes of schema.graphql and operations/', async () => {
    const files = await codegen(false);
    expect(files.length).toBeGreaterThan(0);
    for (const { filename, content } of files)
      expect(fs.readFileSync(filename, 'utf8'), `${filename} is stale: run npm run codegen`).toBe(content);
  });

  it('a document that does not fit the schema is told once, with its file, line and column, and no stack', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-codegen-'));
    const bad = path.join(dir, 'bad.graphql');
    fs.writeFileSync(bad, 'query Bad {\n  security(symbol: "X") { nosuchfield }\n}\n');
    try {
      const { generate } = await import('@graphql-codegen/cli');
      const failed = await generate({ ...codegenConfig, documents: [bad] }, false).then(
        () => undefined,
        (e: unknown) => e,
      );
      const told = codegenFailure(failed);
      expect(told.split('Cannot query field "nosuchfield" on type "Security"')).toHaveLength(2);
      expect(told).toContain(`${bad}:2:27`);
      expect(told).not.toMatch(/\n\s+at (async )?\S+ \(|node_modules/);
      // a syntax error, before codegen, with its place
      fs.writeFileSync(bad, 'query Broken {\n  security(symbol: "X") {\n');
      const broken = await checkSyntax(dir).then(
        () => 'no error',
        (e: unknown) => codegenFailure(e),
      );
      expect(broken).toContain(`${path.relative(ROOT, bad)}:3:1: Syntax Error: Expected Name, found <EOF>.`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const tdb = testDatabases()[0]!;

describe('the Apollo Client and urql examples against a live app', () => {
  let h: GraphQLHarness;
  let server: Awaited<ReturnType<typeof listening>>;
  let url: string;
  const bus = memoryEventBus();
  let sequence = SEQ + 1000n;
  /** One new NVLX trade through the import path, which publishes it. */
  const importTrade = async () => {
    sequence++;
    await importStream(
      h.db,
      await importerFor('trades'),
      { stream: Readable.from([ndjson([trade('NVLX', sequence, SIP + sequence)])]) },
      { events: bus },
    );
  };
  /** Trades arrive once the subscription is live: import one every 100 ms until one does. */
  const firstLiveTrade = async (
    start: (onTrade: (t: { symbol: string; sipTimestamp: bigint }) => void) => { stop(): unknown },
  ) => {
    let got: { symbol: string; sipTimestamp: bigint } | undefined;
    const live = start((t) => (got ??= t));
    try {
      await within(
        (async () => {
          while (!got) {
            await importTrade();
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        })(),
        10_000,
        'a live trade',
      );
    } finally {
      await live.stop();
    }
    return got!;
  };

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = await listening(h.appWith({}, { events: bus }));
    url = server.url.replace(/^ws/, 'http');
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await tdb.cleanup();
  });

  /** A 25-symbol watchlist: 23 sample symbols, NVLX, and one the security master does not hold. */
  let watchlist: string[];
  beforeAll(async () => {
    const others = await h.db.prisma.security.findMany({
      where: { symbol: { not: 'NVLX' } },
      select: { symbol: true },
      orderBy: { symbol: 'desc' },
      take: 23,
    });
    watchlist = [...others.map((s) => s.symbol), 'NVLX', 'NOSUCH'];
  });
  /** What each client's watchlist answer must say: each symbol asked for, null for the unknown one. */
  const listed = () => watchlist.map((s) => (s === 'NOSUCH' ? null : s));
  /** The newest `n` trades of the watchlist as the graph answers them in one page. */
  const newestWatchlistTrades = async (n: number) =>
    (
      (
        await h.gql(
          `query($s: [String!]) { trades(symbols: $s, first: ${n}) { nodes { symbol sipTimestamp sequenceNumber } } }`,
          {
            s: watchlist,
          },
        )
      ).data as any
    ).trades.nodes.map((t: any) => [t.symbol, BigInt(t.sipTimestamp), BigInt(t.sequenceNumber)]);
  const keyOf = (t: { symbol: string; sipTimestamp: bigint; sequenceNumber: bigint }) => [
    t.symbol,
    t.sipTimestamp,
    t.sequenceNumber,
  ];

  /** The newest `n` NVLX trades as the graph answers them in one page. */
  const newestTrades = async (n: number) =>
    (
      (await h.gql(`{ trades(symbol: "NVLX", first: ${n}) { nodes { sipTimestamp sequenceNumber } } }`)).data as any
    ).trades.nodes.map((t: any) => [BigInt(t.sipTimestamp), BigInt(t.sequenceNumber)]);

  it('Apollo Client: a free caller keeps the page without the quote and trades; three pages merge into one list; a live trade arrives', async () => {
    const free = await apollo.companyPage(apollo.apolloClient(url, 'demo-free'), 'NVLX');
    expect(free.security?.name).toBeTruthy();
    expect(free.security?.latestQuote).toBeNull();
    expect(free.forbidden.sort()).toEqual(['security.latestQuote', 'security.trades']);
    const client = apollo.apolloClient(url, 'demo-pro');
    expect((await apollo.companyPage(client, 'NVLX')).forbidden).toEqual([]);
    const merged = await apollo.tradePages(client, 'NVLX', 3, 5);
    expect(merged.map((t) => [t.sipTimestamp, t.sequenceNumber])).toEqual(await newestTrades(15));
    const live = await firstLiveTrade((onTrade) => apollo.liveTrades(url, 'demo-pro', 'NVLX', onTrade));
    expect(live.symbol).toBe('NVLX');
    expect(live.sipTimestamp).toBeGreaterThan(SIP); // past 2^53: every digit kept
  });

  it('Apollo Client: a 25-symbol watchlist in order, null for the unknown symbol under the default error policy; its trades paged and merged; one live subscription for all 25', async () => {
    const client = apollo.apolloClient(url, 'demo-pro');
    const securities = await apollo.watchlist(client, watchlist);
    expect(securities.map((s) => s?.symbol ?? null)).toEqual(listed());
    expect(securities.filter(Boolean).every((s) => s!.latestTrade && s!.latestQuote)).toBe(true);
    const merged = await apollo.watchlistTradePages(client, watchlist, 3, 5);
    expect(new Set(merged.map((t) => t.symbol)).size).toBeGreaterThan(1);
    expect(merged.map(keyOf)).toEqual(await newestWatchlistTrades(15));
    const live = await firstLiveTrade((onTrade) => apollo.liveWatchlist(url, 'demo-pro', watchlist, onTrade));
    expect(live.symbol).toBe('NVLX');
    expect(live.sipTimestamp).toBeGreaterThan(SIP);
  });

  it('urql: the same watchlist, its pages and its live trades through Graphcache and the subscription exchange', async () => {
    const { client, close } = urql.urqlClient(url, 'demo-pro');
    try {
      const securities = await urql.watchlist(client, watchlist);
      expect(securities.map((s) => s?.symbol ?? null)).toEqual(listed());
      const merged = await urql.watchlistTradePages(client, watchlist, 3, 5);
      expect(merged.map(keyOf)).toEqual(await newestWatchlistTrades(15));
      const live = await firstLiveTrade((onTrade) => urql.liveWatchlist(client, watchlist, onTrade));
      expect(live.symbol).toBe('NVLX');
    } finally {
      await close();
    }
  });

  it('urql: the same page, pages and live trade through Graphcache and its subscription exchange, with no Graphcache warning', async () => {
    const free = urql.urqlClient(url, 'demo-free');
    const pro = urql.urqlClient(url, 'demo-pro');
    // Graphcache warns ("Invalid key") of each record it can neither key nor was told to embed
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const page = await urql.companyPage(free.client, 'NVLX');
      expect(page.security?.name).toBeTruthy();
      expect(page.forbidden.sort()).toEqual(['security.latestQuote', 'security.trades']);
      const full = await urql.companyPage(pro.client, 'NVLX');
      expect([full.forbidden, full.security?.trades?.nodes.length]).toEqual([[], 5]);
      const merged = await urql.tradePages(pro.client, 'NVLX', 3, 5);
      expect(merged.map((t) => [t.sipTimestamp, t.sequenceNumber])).toEqual(await newestTrades(15));
      const live = await firstLiveTrade((onTrade) => urql.liveTrades(pro.client, 'NVLX', onTrade));
      expect(live.symbol).toBe('NVLX');
      expect(live.sipTimestamp).toBeGreaterThan(SIP);
      expect(warn.mock.calls.map((c) => String(c[0]).split('\n')[0])).toEqual([]);
    } finally {
      warn.mockRestore();
      await Promise.all([free.close(), pro.close()]);
    }
  });
});
