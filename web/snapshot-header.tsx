// The header of the company page: price and change against the previous close. Fed today from the
// latest trade (or a live one) and the last two daily bars; when Security.snapshot exists, only
// headerQuote changes: SnapshotHeader takes the same HeaderQuote.
import type { TradeAddedSubscription, WebCompanyQuery } from '../generated/graphql/graphql';
import { changePercent, day, exchangeDay, nanosToMs, price, time } from './format';

type Company = NonNullable<WebCompanyQuery['security']>;
type LiveTrade = TradeAddedSubscription['tradeAdded'];

export interface HeaderQuote {
  price: number;
  /** When it was: a trade's time, or a daily bar's session. */
  asOf: string;
  at: number;
  /** The close of the session before the price's; undefined when the data has none. */
  previousClose: number | undefined;
}

/** The newest price known (live, then latest trade, then last daily close) and the close before its day. */
export function headerQuote(company: Company, live: LiveTrade | undefined): HeaderQuote | undefined {
  const daily = company.daily?.nodes ?? [];
  const last = daily.at(-1);
  const trade = live
    ? { price: live.price, at: nanosToMs(live.sipTimestamp) }
    : company.latestTrade && { price: company.latestTrade.price, at: Date.parse(company.latestTrade.time) };
  const current = trade
    ? { ...trade, asOf: `as of ${time(trade.at)}` }
    : last && { price: last.close, at: Date.parse(last.start), asOf: `close of ${day(last.start)}` };
  if (!current) return undefined;
  // a daily bar of the price's own day is not its previous close
  const before = daily.filter((b) => exchangeDay(b.start) < exchangeDay(current.at)).at(-1);
  return { ...current, previousClose: before?.close };
}

export function SnapshotHeader({ company, quote }: { company: Company; quote: HeaderQuote | undefined }) {
  const change = quote ? changePercent(quote.price, quote.previousClose) : '';
  const direction = change.startsWith('-') ? 'down' : change ? 'up' : '';
  return (
    <header class="company-header">
      <h1>
        <span class="symbol">{company.symbol}</span> {company.name}
      </h1>
      <p class="meta">
        {company.exchangeInfo.micCode}
        {company.classification.gics ? ` · ${company.classification.gics}` : ''}
      </p>
      {quote && (
        <p class="quote" aria-live="polite">
          <span class="price" data-testid="price">
            {price(quote.price)}
          </span>{' '}
          <span class={`change ${direction}`} data-testid="change">
            {change}
          </span>{' '}
          <small>{quote.asOf}</small>
        </p>
      )}
    </header>
  );
}
