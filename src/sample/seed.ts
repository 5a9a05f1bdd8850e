import type { Db } from '../db/client.js';
import { bulkInsert, refreshStatistics } from '../db/bulk.js';
import { generateReference, plannedMarketRows, quoteBatches, tradeBatches, type SampleOptions } from './generate.js';

const META_KEY = 'sample_data';

export type SampleState =
  | { state: 'empty' }
  /** Data that did not come from the sample generator (an import or a sync): never overwritten. */
  | { state: 'foreign' }
  | { state: 'partial' | 'complete'; options: SampleOptions };

export async function sampleDataState(db: Db): Promise<SampleState> {
  const meta = await db.prisma.appMeta.findUnique({ where: { key: META_KEY } });
  if (meta) {
    const value = JSON.parse(meta.value) as { state: 'partial' | 'complete'; options: SampleOptions };
    return { state: value.state, options: value.options };
  }
  const [securities, trades] = await Promise.all([
    db.prisma.security.findFirst({ select: { id: true } }),
    db.prisma.trade.findFirst({ select: { symbol: true } }),
  ]);
  return securities || trades ? { state: 'foreign' } : { state: 'empty' };
}

/** Deletes every market-data row (accounts, keys and sessions stay). */
export async function clearResourceData(db: Db): Promise<void> {
  const p = db.prisma;
  // Children first, so it does not depend on the database cascading.
  await p.$transaction([
    p.logoSecurityInfo.deleteMany(),
    p.logo.deleteMany(),
    p.security.deleteMany(),
    p.balanceSheetSymbol.deleteMany(),
    p.balanceSheet.deleteMany(),
    p.fundamentalMetrics.deleteMany(),
    p.fundamental.deleteMany(),
    p.pressReleaseTicker.deleteMany(),
    p.pressReleaseSecurity.deleteMany(),
    p.pressRelease.deleteMany(),
    p.rating.deleteMany(),
    p.callSummary.deleteMany(),
    p.newsSecurity.deleteMany(),
    p.newsItem.deleteMany(),
    p.appMeta.deleteMany({ where: { key: META_KEY } }),
  ]);
  // The two big tables in their own statements: one huge transaction would hold the write lock long.
  await p.trade.deleteMany();
  await p.quote.deleteMany();
}

export interface SeedProgress {
  phase: 'reference' | 'trades' | 'quotes';
  done: number;
  total: number;
}

export interface SeedReport {
  options: SampleOptions;
  counts: Record<string, number>;
  ms: number;
}

/** Rows per transaction for trades and quotes: large enough to amortize commits, small enough to keep memory flat. */
const MARKET_TX_ROWS = 50_000;

/**
 * Replaces all market data with the deterministic sample set. A marker row says "partial" until
 * the last row is in, so a start after an interrupted seed knows to start over rather than serve
 * half a data set.
 */
export async function seedSampleData(
  db: Db,
  options: SampleOptions,
  onProgress?: (p: SeedProgress) => void,
): Promise<SeedReport> {
  const started = Date.now();
  await clearResourceData(db);
  const marker = (state: 'partial' | 'complete') => {
    const value = JSON.stringify({ state, options });
    return db.prisma.appMeta.upsert({ where: { key: META_KEY }, create: { key: META_KEY, value }, update: { value } });
  };
  await marker('partial');

  const ref = generateReference(options);
  onProgress?.({ phase: 'reference', done: 0, total: 1 });
  // parents before children (foreign keys)
  const reference: [string, Record<string, unknown>[]][] = [
    ['Security', ref.securities],
    ['Logo', ref.logos],
    ['LogoSecurityInfo', ref.logoSecurityInfo],
    ['BalanceSheet', ref.balanceSheets],
    ['BalanceSheetSymbol', ref.balanceSheetSymbols],
    ['Fundamental', ref.fundamentals],
    ['FundamentalMetrics', ref.fundamentalMetrics],
    ['PressRelease', ref.pressReleases],
    ['PressReleaseTicker', ref.pressReleaseTickers],
    ['PressReleaseSecurity', ref.pressReleaseSecurities],
    ['Rating', ref.ratings],
    ['CallSummary', ref.callSummaries],
    ['NewsItem', ref.newsItems],
    ['NewsSecurity', ref.newsSecurities],
  ];
  for (const [model, rows] of reference) await bulkInsert(db, model, rows);
  onProgress?.({ phase: 'reference', done: 1, total: 1 });

  const planned = plannedMarketRows(options);
  const insertAll = async (
    phase: 'trades' | 'quotes',
    model: string,
    batches: Generator<Record<string, unknown>[]>,
    total: number,
  ) => {
    let done = 0;
    let pending: Record<string, unknown>[] = [];
    onProgress?.({ phase, done, total }); // the phase's clock starts here, for its rate
    const flush = async () => {
      done += await bulkInsert(db, model, pending);
      pending = [];
      onProgress?.({ phase, done, total });
    };
    for (const batch of batches) {
      pending = pending.length ? pending.concat(batch) : batch;
      if (pending.length >= MARKET_TX_ROWS) await flush();
    }
    if (pending.length) await flush();
    return done;
  };
  const trades = await insertAll('trades', 'Trade', tradeBatches(options), planned.trades);
  const quotes = await insertAll('quotes', 'Quote', quoteBatches(options), planned.quotes);
  await refreshStatistics(db, [...reference.map(([model]) => model), 'SecurityMetrics', 'Trade', 'Quote']);
  await marker('complete');

  return {
    options,
    counts: {
      securities: ref.securities.length,
      logos: ref.logos.length,
      balanceSheets: ref.balanceSheets.length,
      fundamentals: ref.fundamentals.length,
      pressReleases: ref.pressReleases.length,
      ratings: ref.ratings.length,
      callSummaries: ref.callSummaries.length,
      news: ref.newsItems.length,
      trades,
      quotes,
    },
    ms: Date.now() - started,
  };
}
