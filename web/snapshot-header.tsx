// The header of the company page: price and change against the previous close. With the pro tier,
// the symbol's snapshot (price = its last trade, change = todaysChange and todaysChangePerc), moved
// by each live trade since; without one (the free tier), the last two daily bars.
import type { TradeAddedSubscription, WebCompanyQuery } from '../generated/graphql/graphql';
import { changePercent, day, exchangeDay, nanosToMs, price, signed, time } from './format';

type Company = NonNullable<WebCompanyQuery['security']>;
type LiveTrade = TradeAddedSubscription['tradeAdded'];

export interface HeaderQuote {
  price: number;
  /** When it was: a trade's time, or a daily bar's session. */
  asOf: string;
  at: number;
  /** The change against the previous session's close, and as a signed percentage; undefined without one. */
  change: { amount: number; percent: string } | undefined;
}

/** The header's price and change: the snapshot's, a live trade's against its previous close, or the daily bars'. */
export function headerQuote(company: Company, live: LiveTrade | undefined): HeaderQuote | undefined {
  const snapshot = company.snapshot;
  if (!snapshot?.lastTrade) return dailyQuote(company, live);
  const previousClose = snapshot.previousDay?.close;
  const at = Date.parse(snapshot.lastTrade.time);
  const liveAt = live ? nanosToMs(live.sipTimestamp) : Number.NaN;
  if (live && liveAt >= at) {
    // a trade newer than the snapshot: the same change, against the same previous day's close
    const change = previousClose ? changeOf(live.price, previousClose) : undefined;
    return { price: live.price, at: liveAt, asOf: `as of ${time(liveAt)}`, change };
  }
  const { todaysChange, todaysChangePerc } = snapshot;
  return {
    price: snapshot.lastTrade.price,
    at,
    asOf: `as of ${time(at)}`,
    change:
      todaysChange == null || todaysChangePerc == null
        ? undefined
        : { amount: todaysChange, percent: `${signed(todaysChangePerc.toFixed(2))}%` },
  };
}

const changeOf = (now: number, before: number) => ({ amount: now - before, percent: changePercent(now, before) });

/** Without a snapshot: the newest price known (live, then latest trade, then last daily close) and the close before its day. */
function dailyQuote(company: Company, live: LiveTrade | undefined): HeaderQuote | undefined {
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
  return { ...current, change: before ? changeOf(current.price, before.close) : undefined };
}

export function SnapshotHeader({ company, quote }: { company: Company; quote: HeaderQuote | undefined }) {
  const change = quote?.change;
  const direction = change ? (change.amount < 0 ? 'down' : 'up') : '';
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
          {change && (
            <span class={`change ${direction}`}>
              <span data-testid="change-amount">{signed(change.amount.toFixed(2))}</span>{' '}
              <span data-testid="change">{change.percent}</span>
            </span>
          )}{' '}
          <small>{quote.asOf}</small>
        </p>
      )}
    </header>
  );
}
