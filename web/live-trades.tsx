// Trades of the symbol as they are stored, over graphql-ws (operations/trade-added.graphql), newest
// first, after the latest one the page loaded with. Each reaches the header too (onTrade). When the
// connection drops and comes back, the trades stored meanwhile arrive marked as replayed, each once.
import { useEffect, useState } from 'preact/hooks';
import tradeAdded from '../operations/trade-added.graphql';
import type { TradeAddedSubscription, WebCompanyQuery } from '../generated/graphql/graphql';
import { type GraphQLError, subscribe } from './api';
import { compact, nanosToMs, price, time } from './format';
import { Panel } from './panel';

type LiveTrade = TradeAddedSubscription['tradeAdded'];
type Latest = NonNullable<WebCompanyQuery['security']>['latestTrade'];

/** How many trades the panel lists: the page's memory stays bounded however long it is open. */
const SHOWN = 20;

export function LiveTrades({
  symbol,
  apiKey,
  latest,
  onTrade,
}: {
  symbol: string;
  apiKey: string;
  latest: Latest;
  onTrade: (trade: LiveTrade) => void;
}) {
  const [trades, setTrades] = useState<LiveTrade[]>([]);
  const [error, setError] = useState<GraphQLError | undefined>();
  const [connected, setConnected] = useState(false);
  useEffect(
    () =>
      subscribe<TradeAddedSubscription>(tradeAdded, { symbol }, apiKey, {
        data: ({ tradeAdded: t }) => {
          setTrades((list) => [t, ...list].slice(0, SHOWN));
          onTrade(t);
        },
        error: setError,
        connected: () => setConnected(true),
        disconnected: () => setConnected(false),
        positionOf: ({ tradeAdded: t }) => t.position,
      }),
    [symbol, apiKey],
  );
  return (
    <Panel title="Live trades" error={error} className="live">
      <p class="status" data-state={connected ? 'live' : 'connecting'}>
        <span class="dot" aria-hidden="true" /> {connected ? 'Listening for' : 'Connecting for'} {symbol} trades
        {latest ? ` · last before: ${price(latest.price)} × ${compact(latest.size)} at ${time(latest.time)}` : ''}
      </p>
      <ol class="trades" aria-live="polite" data-testid="live-trades">
        {trades.map((t) => (
          <li
            key={t.position ?? t.id}
            class={t.replay ? 'replay' : undefined}
            title={t.replay ? 'missed while offline' : undefined}
          >
            <span class="num">{price(t.price)}</span> × <span class="num">{compact(t.size)}</span>{' '}
            <small>{time(nanosToMs(t.sipTimestamp))}</small>
          </li>
        ))}
      </ol>
    </Panel>
  );
}
