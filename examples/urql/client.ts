// urql (6) with Graphcache against the gateway, with the typed documents of `npm run codegen`
// (generated/graphql/, from operations/*.graphql): a company page that keeps partial data, a trades
// list paged with relayPagination, 64-bit numbers as BigInt, and live trades over graphql-ws.
// docs/frontend.md explains each choice; test/app/clients.test.ts runs this against a live app.
//
//   node --import tsx examples/urql/client.ts [http://localhost:4000/graphql] [demo-pro]
import { Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  CompanyPageDocument,
  TradeAddedDocument,
  TradesPageDocument,
  WatchlistDocument,
  WatchlistTradeAddedDocument,
  WatchlistTradesDocument,
} from '../../generated/graphql/graphql.js';

/**
 * Types kept inside their parent rather than normalized by `id`: connections, edges and parts of a
 * record have none, and the company page (operations/company-page.graphql) asks for no record's.
 */
const EMBEDDED = [
  'PageInfo',
  'TradeConnection',
  'TradeEdge',
  'RatingConnection',
  'NewsItemConnection',
  'SecurityClassification',
  'LogoPng',
  'Security',
  'Logo',
  'Quote',
  'BalanceSheet',
  'Rating',
  'NewsItem',
];

export function urqlClient(url: string, apiKey: string) {
  const ws = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { apiKey },
    lazy: true,
  });
  const client = new Client({
    url,
    fetchOptions: { headers: { 'X-API-Key': apiKey } },
    exchanges: [
      cacheExchange({
        keys: {
          ...Object.fromEntries(EMBEDDED.map((type) => [type, () => null])),
          // a trade is normalized by its id where the document asks for it (the trades pages, live
          // trades) and embedded where it does not (the company page's last trades)
          Trade: (trade) => (typeof trade.id === 'string' ? trade.id : null),
        },
        // pages of one list (same symbol and range) read as one, in cursor order
        resolvers: { Query: { trades: relayPagination() } },
      }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  return { client, close: () => ws.dispose() };
}

/** The company page, and the paths of the fields the caller's tier does not include: urql keeps data beside errors. */
export async function companyPage(client: Client, symbol: string) {
  const { data, error } = await client.query(CompanyPageDocument, { symbol }).toPromise();
  // the network, or an answer with no data at all (a 429 once the key's rate is spent): nothing to keep
  if (error?.networkError || (error && !data)) throw error;
  const forbidden = (error?.graphQLErrors ?? [])
    .filter((e) => e.extensions?.code === 'FORBIDDEN')
    .map((e) => e.path?.join('.'));
  return { security: data?.security ?? null, forbidden };
}

/** `pages` pages of a symbol's trades, newest first, read back from the cache as one list. */
export async function tradePages(client: Client, symbol: string, pages: number, first: number) {
  let after: string | null | undefined;
  for (let i = 0; i < pages; i++) {
    const { data, error } = await client
      .query(TradesPageDocument, { symbol, first, after }, { requestPolicy: 'network-only' })
      .toPromise();
    if (error) throw error;
    after = data?.trades?.pageInfo.endCursor;
    if (!data?.trades?.pageInfo.hasNextPage) break;
  }
  const merged = client.readQuery(TradesPageDocument, { symbol, first });
  return (merged?.data?.trades?.edges ?? []).map(({ node }) => ({
    // BigInt fields arrive as decimal strings: every digit of a nanosecond timestamp is kept
    sipTimestamp: BigInt(node.sipTimestamp),
    sequenceNumber: BigInt(node.sequenceNumber),
    price: node.price,
    size: node.size,
  }));
}

/** Live trades of a symbol over WebSocket (graphql-ws through urql's subscriptionExchange), until `stop`. */
export function liveTrades(
  client: Client,
  symbol: string,
  onTrade: (trade: { symbol: string; sipTimestamp: bigint; price: number }) => void,
  /** Why the subscription was refused or ended (a tier without trades, a closed socket). */
  onError: (message: string) => void = () => {},
) {
  let told: string | undefined; // the exchange may deliver one refusal twice (as a result, then as the end)
  const subscription = client.subscription(TradeAddedDocument, { symbol }).subscribe(({ data, error }) => {
    // a socket graphql-ws closed (a refusal before any operation: 4429 rate limit, 4403 …) comes as the
    // network error, a CloseEvent whose code and reason say why
    const closed = error?.networkError as { code?: number; reason?: string } | undefined;
    const message = closed?.reason ? `socket closed: ${closed.code} ${closed.reason}` : error?.message;
    if (message && message !== told) onError((told = message));
    if (data?.tradeAdded)
      onTrade({
        symbol: data.tradeAdded.symbol,
        sipTimestamp: BigInt(data.tradeAdded.sipTimestamp),
        price: data.tradeAdded.price,
      });
  });
  return { stop: () => subscription.unsubscribe() };
}

/**
 * A watchlist: one security (or null, for a symbol the master does not hold) per symbol, in order.
 * Its securities are embedded (EMBEDDED above): the list is cached as one answer of its symbols.
 */
export async function watchlist(client: Client, symbols: string[]) {
  const { data, error } = await client.query(WatchlistDocument, { symbols }).toPromise();
  if (error) throw error;
  return data?.securitiesBySymbols ?? [];
}

/** `pages` pages of a watchlist's trades as one list, newest first, read back from the cache as `tradePages`' are. */
export async function watchlistTradePages(client: Client, symbols: string[], pages: number, first: number) {
  let after: string | null | undefined;
  for (let i = 0; i < pages; i++) {
    const { data, error } = await client
      .query(WatchlistTradesDocument, { symbols, first, after }, { requestPolicy: 'network-only' })
      .toPromise();
    if (error) throw error;
    after = data?.trades?.pageInfo.endCursor;
    if (!data?.trades?.pageInfo.hasNextPage) break;
  }
  const merged = client.readQuery(WatchlistTradesDocument, { symbols, first });
  return (merged?.data?.trades?.edges ?? []).map(({ node }) => ({
    symbol: node.symbol,
    sipTimestamp: BigInt(node.sipTimestamp),
    sequenceNumber: BigInt(node.sequenceNumber),
  }));
}

/** Live trades of every symbol of a watchlist over WebSocket: one subscription for them all, until `stop`. */
export function liveWatchlist(
  client: Client,
  symbols: string[],
  onTrade: (trade: { symbol: string; sipTimestamp: bigint; price: number }) => void,
) {
  const subscription = client.subscription(WatchlistTradeAddedDocument, { symbols }).subscribe(({ data }) => {
    if (data?.tradeAdded)
      onTrade({
        symbol: data.tradeAdded.symbol,
        sipTimestamp: BigInt(data.tradeAdded.sipTimestamp),
        price: data.tradeAdded.price,
      });
  });
  return { stop: () => subscription.unsubscribe() };
}

// run as a program: the page, the trades, a watchlist and live trades for a while, printed
if (import.meta.url === `file://${process.argv[1]}`) {
  const [url = 'http://localhost:4000/graphql', apiKey = 'demo-pro'] = process.argv.slice(2);
  const { client, close } = urqlClient(url, apiKey);
  try {
    const page = await companyPage(client, 'NVLX');
    console.log(page.security?.name, page.forbidden.length ? `(not in this tier: ${page.forbidden.join(', ')})` : '');
  } catch (e) {
    console.log(`company page: ${(e as Error).message}`); // e.g. the key's rate limit spent: a 429
  }
  try {
    const trades = await tradePages(client, 'NVLX', 3, 5);
    console.log(`${trades.length} trades in 3 pages, newest ${trades[0]?.sipTimestamp} ns`);
  } catch (e) {
    console.log(`trades: ${(e as Error).message}`); // the free tier has none
  }
  try {
    const symbols = ['NVLX', 'ORBT', 'NOSUCH'];
    const list = await watchlist(client, symbols);
    console.log(
      `watchlist: ${list.map((s, i) => (s ? `${s.symbol} ${s.latestTrade?.price}` : `${symbols[i]} unknown`)).join(', ')}`,
    );
  } catch (e) {
    console.log(`watchlist: ${(e as Error).message}`); // its latest trades and quotes need the pro tier
  }
  // live trades for LIVE_SECONDS (default 10): import one meanwhile to see it arrive, as the README's
  // "Live" example does (`npm run cli -- import trades -` in another terminal)
  const seconds = Number(process.env.LIVE_SECONDS ?? 10);
  console.log(`live NVLX trades for ${seconds} s (the README's "Live" example imports one)…`);
  let live = 0;
  const listening = liveTrades(
    client,
    'NVLX',
    (t) => console.log(`  live: ${t.symbol} ${t.price} at ${t.sipTimestamp} ns (${++live})`),
    (message) => console.log(`  live: ${message}`), // the free tier has none
  );
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  await listening.stop();
  console.log(`live: ${live} trade(s) in ${seconds} s`);
  await close();
}
