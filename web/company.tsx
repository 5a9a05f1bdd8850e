// The company page of one symbol: the header, the chart, live trades, news, ratings and
// fundamentals, from one query (operations/web-company.graphql) plus the chart's own and the
// trades subscription. A panel the key's tier does not include shows itself locked.
import { useEffect, useState } from 'preact/hooks';
import webCompany from '../operations/web-company.graphql';
import type { TradeAddedSubscription, WebCompanyQuery } from '../generated/graphql/graphql';
import { errorAt, query, type Result } from './api';
import { PriceChart } from './chart';
import { exchangeDay, shiftDay } from './format';
import { LiveTrades } from './live-trades';
import { FundamentalsPanel, NewsPanel, RatingsPanel } from './reference-panels';
import { headerQuote, SnapshotHeader } from './snapshot-header';

type LiveTrade = TradeAddedSubscription['tradeAdded'];

export function CompanyPage({ symbol, apiKey }: { symbol: string; apiKey: string }) {
  const [result, setResult] = useState<Result<WebCompanyQuery> | undefined>();
  const [live, setLive] = useState<LiveTrade | undefined>();
  useEffect(() => {
    const aborted = new AbortController();
    const today = exchangeDay(Date.now());
    query<WebCompanyQuery>(
      webCompany,
      { symbol, from: shiftDay(today, { days: -30 }), to: today },
      apiKey,
      aborted.signal,
    ).then(setResult, (e: Error) => setResult({ data: null, errors: [{ message: e.message }] }));
    return () => aborted.abort();
  }, [symbol, apiKey]);
  if (!result) return <p class="loading">Loading {symbol}…</p>;
  const company = result.data?.security;
  if (!company)
    return (
      <p class="failed" role="alert">
        {result.errors[0]?.message ?? `No security has the symbol ${symbol}.`}
      </p>
    );
  const { errors } = result;
  const lastSession = company.daily?.nodes.at(-1)?.start;
  return (
    <article class="company" data-symbol={company.symbol}>
      <SnapshotHeader company={company} quote={headerQuote(company, live)} />
      <PriceChart
        symbol={company.symbol}
        apiKey={apiKey}
        lastSession={lastSession ? exchangeDay(lastSession) : exchangeDay(Date.now())}
      />
      <div class="grid">
        <LiveTrades symbol={company.symbol} apiKey={apiKey} latest={company.latestTrade} onTrade={setLive} />
        <NewsPanel news={company.news?.nodes ?? []} error={errorAt(errors, 'security', 'news')} />
        <RatingsPanel ratings={company.ratings?.nodes ?? []} error={errorAt(errors, 'security', 'ratings')} />
        <FundamentalsPanel
          fundamentals={company.fundamentals?.nodes ?? []}
          error={errorAt(errors, 'security', 'fundamentals')}
        />
      </div>
    </article>
  );
}
