/**
 * Deterministic sample data: the entry points of src/sample/, which `seed.ts` writes through the
 * database layer. test/sample/sample.test.ts checks the promises below.
 *
 * A pure function of `SampleOptions`: no database, no I/O, no clock, no `Math.random`. Every value
 * comes from a seeded stream named after what it generates (src/sample/random.ts), and dates are
 * relative to a fixed anchor instant (src/sample/time.ts), so the same options always give
 * byte-identical rows.
 *
 * Reference data (securities, logos, statements, news ...) is small and returned at once; trades
 * and quotes are streamed in batches so that tens of millions of rows never sit in memory.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { dayValues, minuteWindow, symbolDayBars, symbolMinuteBars } from './bars.js';
import { delistedAfter } from './corporate-actions.js';
import { buildCallSummaries } from './call-summaries.js';
import { COVERED_COMPANIES, buildCompanies, type Company, type CompanyIds } from './catalog.js';
import { SAMPLE_DIVIDENDS, SAMPLE_SPLITS, SAMPLE_TICKER_CHANGES } from './corporate-actions.js';
import { buildExchanges } from './exchanges.js';
import { buildFinancials } from './financials.js';
import { MAX_SECURITIES } from './identifiers.js';
import { buildNews } from './news.js';
import { buildPressReleases } from './press-releases.js';
import { buildRatings } from './ratings.js';
import { buildSecurities } from './securities.js';
import { sessionOpensNs, symbolQuotes, symbolTrades, type MarketSymbol } from './ticks.js';

export interface SampleOptions {
  seed: number;
  scale: number;
  securities: number;
}

export const DEFAULT_SAMPLE: SampleOptions = { seed: 42, scale: 1, securities: 50 };

function checkOptions(opts: SampleOptions): void {
  if (!Number.isFinite(opts.seed)) throw new RangeError(`sample seed must be a finite number, got ${opts.seed}`);
  if (!Number.isFinite(opts.scale) || opts.scale < 0)
    throw new RangeError(`sample scale must be >= 0, got ${opts.scale}`);
  if (!Number.isSafeInteger(opts.securities) || opts.securities < 1 || opts.securities > MAX_SECURITIES) {
    throw new RangeError(`sample securities must be an integer in 1..${MAX_SECURITIES}, got ${opts.securities}`);
  }
}

// ================================================================ reference data

export function generateReference(opts: SampleOptions): {
  securities: Prisma.SecurityCreateManyInput[];
  logos: (Prisma.LogoCreateManyInput & { id: number })[];
  logoSecurityInfo: Prisma.LogoSecurityInfoCreateManyInput[];
  balanceSheets: (Prisma.BalanceSheetCreateManyInput & { id: number })[];
  balanceSheetSymbols: Prisma.BalanceSheetSymbolCreateManyInput[];
  fundamentals: (Prisma.FundamentalCreateManyInput & { id: number })[];
  fundamentalMetrics: Prisma.FundamentalMetricsCreateManyInput[];
  pressReleases: (Prisma.PressReleaseCreateManyInput & { id: number })[];
  pressReleaseTickers: Prisma.PressReleaseTickerCreateManyInput[];
  pressReleaseSecurities: Prisma.PressReleaseSecurityCreateManyInput[];
  ratings: Prisma.RatingCreateManyInput[];
  callSummaries: Prisma.CallSummaryCreateManyInput[];
  newsItems: Prisma.NewsItemCreateManyInput[];
  newsSecurities: Prisma.NewsSecurityCreateManyInput[];
  exchanges: (Prisma.ExchangeCreateManyInput & { id: number })[];
  splits: Prisma.SplitCreateManyInput[];
  dividends: Prisma.DividendCreateManyInput[];
  symbolHistory: Prisma.SymbolHistoryCreateManyInput[];
} {
  checkOptions(opts);
  const companies = buildCompanies(opts.seed, opts.securities);
  const securities = buildSecurities(opts.seed, companies);
  const covered = companies.slice(0, COVERED_COMPANIES);
  const ids = new Map<number, CompanyIds>(covered.map((c) => [c.index, { pressReleases: [], ratings: [], calls: [] }]));

  const financials = buildFinancials(opts.seed, covered, lastTradePrices(opts));
  const press = buildPressReleases(opts.seed, covered, ids);
  const ratings = buildRatings(opts.seed, covered, ids);
  const callSummaries = buildCallSummaries(opts.seed, covered, financials, ids);
  const news = buildNews(opts.seed, covered, securities, ids);

  return {
    securities: securities.map((s) => s.row),
    logos: securities.map((s) => s.logo),
    logoSecurityInfo: securities.flatMap((s) => s.logoSecurityInfo),
    balanceSheets: financials.balanceSheets,
    balanceSheetSymbols: financials.balanceSheetSymbols,
    fundamentals: financials.fundamentals,
    fundamentalMetrics: financials.fundamentalMetrics,
    pressReleases: press.releases,
    pressReleaseTickers: press.tickers,
    pressReleaseSecurities: press.securities,
    ratings,
    callSummaries,
    newsItems: news.items,
    newsSecurities: news.rows,
    exchanges: buildExchanges(),
    ...corporateActions(
      companies,
      securities.map((s) => s.row),
    ),
  };
}

/**
 * The corporate actions of sample/corporate-actions.ts of the symbols this sample holds (fewer
 * `--securities` hold fewer). A renamed security's history: its former symbol from its list date,
 * its present one from the change.
 */
function corporateActions(companies: readonly Company[], securities: readonly Prisma.SecurityCreateManyInput[]) {
  const held = new Set(companies.map((c) => c.symbol));
  return {
    splits: SAMPLE_SPLITS.filter((s) => held.has(s.ticker)).map((s) => ({ ...s })),
    dividends: SAMPLE_DIVIDENDS.filter((d) => held.has(d.ticker)).map((d) => ({ ...d })),
    symbolHistory: SAMPLE_TICKER_CHANGES.flatMap((change) => {
      const security = securities.find((s) => s.symbol === change.symbol);
      if (!security) return [];
      return [
        { securityId: security.id, symbol: change.previous, startDate: security.listDate! },
        { securityId: security.id, symbol: change.symbol, startDate: change.startDate },
      ];
    }),
  };
}

// ================================================================ trades and quotes

const TRADES_PER_SCALE = 30_000;
const QUOTES_PER_SCALE = 30_000;
const DEFAULT_BATCH = 5000;

/** Splits total by weights with largest remainders, so the parts sum to total exactly. */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let left = total - parts.reduce((a, b) => a + b, 0), r = 0; left > 0; left--, r = (r + 1) % order.length)
    parts[order[r]!.i]!++;
  return parts;
}

/** Zipf-like volume (weight 1/rank): with 50 symbols the busiest carries ~22% of all rows. */
function marketPlan(opts: SampleOptions): MarketSymbol[] {
  checkOptions(opts);
  const companies = buildCompanies(opts.seed, Math.min(COVERED_COMPANIES, opts.securities));
  const weights = companies.map((_, rank) => 1 / (rank + 1));
  const trades = apportion(Math.round(TRADES_PER_SCALE * opts.scale), weights);
  const quotes = apportion(Math.round(QUOTES_PER_SCALE * opts.scale), weights);
  return companies.map((c, i) => ({
    index: c.index,
    symbol: c.symbol,
    price: c.price,
    tape: c.exchange.tape,
    // a listing that ended before the ticks has none (the others keep theirs)
    trades: delistedAfter(c.symbol) ? 0 : trades[i]!,
    quotes: delistedAfter(c.symbol) ? 0 : quotes[i]!,
  }));
}

export function plannedMarketRows(opts: SampleOptions): {
  trades: number;
  quotes: number;
  perSymbol: { symbol: string; trades: number; quotes: number }[];
} {
  const plan = marketPlan(opts);
  return {
    trades: plan.reduce((s, p) => s + p.trades, 0),
    quotes: plan.reduce((s, p) => s + p.quotes, 0),
    perSymbol: plan.map((p) => ({ symbol: p.symbol, trades: p.trades, quotes: p.quotes })),
  };
}

function checkBatchSize(batchSize: number): void {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batch size must be a positive integer, got ${batchSize}`);
}

/** Rows of every planned symbol in plan order, `batchSize` at a time (the last batch may be shorter). */
function* inBatches<T>(
  plan: MarketSymbol[],
  rows: (s: MarketSymbol) => Iterable<T>,
  batchSize: number,
): Generator<T[]> {
  let batch: T[] = [];
  for (const s of plan) {
    for (const row of rows(s)) {
      batch.push(row);
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

export function tradeBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Prisma.TradeCreateManyInput[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  const opens = sessionOpensNs();
  return inBatches(plan, (s) => symbolTrades(opts.seed, s, opens), batchSize);
}

/** Two years of day bars per covered symbol before its first session (sample/bars.ts). */
export function dayBarBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Record<string, unknown>[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  const firstSessionMs = Number(sessionOpensNs()[0]! / 1_000_000n);
  return inBatches(plan, (s) => symbolDayBars(opts.seed, s, firstSessionMs), batchSize);
}

/** Three weeks of regular-session minute bars per covered symbol before its first session (sample/bars.ts). */
export function minuteBarBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Record<string, unknown>[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  const firstSessionMs = Number(sessionOpensNs()[0]! / 1_000_000n);
  return inBatches(plan, (s) => symbolMinuteBars(opts.seed, s, firstSessionMs), batchSize);
}

/** The day values the sample's minute bars are made from (its last MINUTE_DAYS days per symbol): what their day bars must come to. */
export function minuteDayValues(opts: SampleOptions): ReturnType<typeof dayValues> {
  const firstSessionMs = Number(sessionOpensNs()[0]! / 1_000_000n);
  const window = minuteWindow(firstSessionMs);
  return marketPlan(opts).flatMap((s) => dayValues(opts.seed, s, firstSessionMs).filter((d) => window.has(d.date)));
}

export function quoteBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Prisma.QuoteCreateManyInput[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  const opens = sessionOpensNs();
  return inBatches(plan, (s) => symbolQuotes(opts.seed, s, opens), batchSize);
}

/** The price of each symbol's last sample trade (its latest: time and sequence only rise); symbols without trades are absent. */
function lastTradePrices(opts: SampleOptions): Map<string, number> {
  const opens = sessionOpensNs();
  const out = new Map<string, number>();
  for (const s of marketPlan(opts)) {
    let last: Prisma.TradeCreateManyInput | undefined;
    for (const trade of symbolTrades(opts.seed, s, opens)) last = trade;
    if (last) out.set(s.symbol, last.price);
  }
  return out;
}
