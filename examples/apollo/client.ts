// Apollo Client (4) against the gateway, with the typed documents of `npm run codegen`
// (generated/graphql/, from operations/*.graphql): a company page that keeps partial data, a trades
// list paged with relayStylePagination, 64-bit numbers as BigInt, and live trades over graphql-ws.
// docs/frontend.md explains each choice; test/app/clients.test.ts runs this against a live app.
//
//   node --import tsx examples/apollo/client.ts [http://localhost:4000/graphql] [demo-pro]
import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { relayStylePagination } from '@apollo/client/utilities';
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

export function apolloClient(url: string, apiKey: string) {
  return new ApolloClient({
    link: new HttpLink({ uri: url, headers: { 'X-API-Key': apiKey } }),
    cache: new InMemoryCache({
      // pages of one list (same symbol and range) are merged, in cursor order, instead of replacing
      // (a watchlist's list is chosen by `symbols`)
      typePolicies: {
        Query: { fields: { trades: relayStylePagination(['symbol', 'symbols', 'from', 'to', 'order']) } },
      },
    }),
  });
}

/** The company page, and the paths of the fields the caller's tier does not include. */
export async function companyPage(client: ApolloClient, symbol: string) {
  // a field outside the caller's tier is null with a FORBIDDEN error: the default policy ('none')
  // would throw the whole page away, 'all' keeps the data beside the errors
  const { data, error } = await client.query({ query: CompanyPageDocument, variables: { symbol }, errorPolicy: 'all' });
  if (error && !CombinedGraphQLErrors.is(error)) throw error; // the network, not the graph
  const forbidden = CombinedGraphQLErrors.is(error)
    ? error.errors.filter((e) => e.extensions?.code === 'FORBIDDEN').map((e) => e.path?.join('.'))
    : [];
  return { security: data?.security ?? null, forbidden };
}

/** `pages` pages of a symbol's trades, newest first, merged by the cache into one list. */
export async function tradePages(client: ApolloClient, symbol: string, pages: number, first: number) {
  let after: string | null | undefined;
  for (let i = 0; i < pages; i++) {
    // each page from the server; the field policy appends it after the cursor it was asked after
    const { data } = await client.query({
      query: TradesPageDocument,
      variables: { symbol, first, after },
      fetchPolicy: 'network-only',
    });
    after = data?.trades?.pageInfo.endCursor;
    if (!data?.trades?.pageInfo.hasNextPage) break;
  }
  const merged = client.readQuery({ query: TradesPageDocument, variables: { symbol, first } });
  return (merged?.trades?.edges ?? []).map(({ node }) => ({
    // BigInt fields arrive as decimal strings: every digit of a nanosecond timestamp is kept
    sipTimestamp: BigInt(node.sipTimestamp),
    sequenceNumber: BigInt(node.sequenceNumber),
    price: node.price,
    size: node.size,
  }));
}

/** Live trades of a symbol over WebSocket (graphql-ws), until `stop`. */
export function liveTrades(
  url: string,
  apiKey: string,
  symbol: string,
  onTrade: (trade: { symbol: string; sipTimestamp: bigint; price: number }) => void,
  /** Why the subscription was refused or ended (a tier without trades, a closed socket). */
  onError: (message: string) => void = () => {},
) {
  const ws = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { apiKey } });
  const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  const subscription = client.subscribe({ query: TradeAddedDocument, variables: { symbol } }).subscribe({
    error: (e: Error) => onError(e.message),
    next: ({ data, error }) => {
      if (error) onError(error.message);
      if (data?.tradeAdded)
        onTrade({
          symbol: data.tradeAdded.symbol,
          sipTimestamp: BigInt(data.tradeAdded.sipTimestamp),
          price: data.tradeAdded.price,
        });
    },
  });
  return {
    async stop() {
      subscription.unsubscribe();
      await ws.dispose();
    },
  };
}

/**
 * A watchlist: one security (or null, for a symbol the master does not hold) per symbol, in order.
 * Unknown symbols are nulls, not errors, so the default error policy keeps the list.
 */
export async function watchlist(client: ApolloClient, symbols: string[]) {
  const { data } = await client.query({ query: WatchlistDocument, variables: { symbols } });
  return data?.securitiesBySymbols ?? [];
}

/** `pages` pages of a watchlist's trades as one list, newest first, merged by the cache as `tradePages`' are. */
export async function watchlistTradePages(client: ApolloClient, symbols: string[], pages: number, first: number) {
  let after: string | null | undefined;
  for (let i = 0; i < pages; i++) {
    const { data } = await client.query({
      query: WatchlistTradesDocument,
      variables: { symbols, first, after },
      fetchPolicy: 'network-only',
    });
    after = data?.trades?.pageInfo.endCursor;
    if (!data?.trades?.pageInfo.hasNextPage) break;
  }
  const merged = client.readQuery({ query: WatchlistTradesDocument, variables: { symbols, first } });
  return (merged?.trades?.edges ?? []).map(({ node }) => ({
    symbol: node.symbol,
    sipTimestamp: BigInt(node.sipTimestamp),
    sequenceNumber: BigInt(node.sequenceNumber),
  }));
}

/** Live trades of every symbol of a watchlist over WebSocket: one subscription for them all, until `stop`. */
export function liveWatchlist(
  url: string,
  apiKey: string,
  symbols: string[],
  onTrade: (trade: { symbol: string; sipTimestamp: bigint; price: number }) => void,
) {
  const ws = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { apiKey } });
  const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  const subscription = client.subscribe({ query: WatchlistTradeAddedDocument, variables: { symbols } }).subscribe({
    next: ({ data }) => {
      if (data?.tradeAdded)
        onTrade({
          symbol: data.tradeAdded.symbol,
          sipTimestamp: BigInt(data.tradeAdded.sipTimestamp),
          price: data.tradeAdded.price,
        });
    },
  });
  return {
    async stop() {
      subscription.unsubscribe();
      await ws.dispose();
    },
  };
}

// run as a program: the page, the trades, a watchlist and live trades for a while, printed
if (import.meta.url === `file://${process.argv[1]}`) {
  const [url = 'http://localhost:4000/graphql', apiKey = 'demo-pro'] = process.argv.slice(2);
  const client = apolloClient(url, apiKey);
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
    url,
    apiKey,
    'NVLX',
    (t) => console.log(`  live: ${t.symbol} ${t.price} at ${t.sipTimestamp} ns (${++live})`),
    (message) => console.log(`  live: ${message}`), // the free tier has none
  );
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  await listening.stop();
  console.log(`live: ${live} trade(s) in ${seconds} s`);
}
