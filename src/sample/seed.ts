import type { Db } from '../db/client.js';
import { bulkInsert, refreshStatistics } from '../db/bulk.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { PARENTS_FIRST, type AnyResource } from '../resources/index.js';
import {
  dayBarBatches,
  minuteBarBatches,
  generateReference,
  plannedMarketRows,
  quoteBatches,
  tradeBatches,
  type SampleOptions,
} from './generate.js';
import { rebuildBars, refreshDaysOf } from '../services/bar-write.js';
import { refreshAllSnapshots } from '../services/snapshot.js';

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

/**
 * The tables of the resources' manifests, parents first: the reference data, written in one go,
 * and the bulk tables (trades, quotes), streamed in batches and deleted in statements of their own.
 */
const TABLES = PARENTS_FIRST.flatMap((r) => (r.tables ?? []).map((t) => ({ ...t, resource: r })));
const REFERENCE_TABLES = TABLES.filter((t) => !t.resource.bulk);
const BULK_TABLES = TABLES.filter((t) => t.resource.bulk);

/** The keys of the sample's rows the manifests name (`tables[].sample`): each must be one of generateReference's. */
type SampleKey<R> = R extends { tables: readonly (infer T)[] }
  ? T extends { sample: infer K extends string }
    ? K
    : never
  : never;

type Deletable = { deleteMany(args?: object): Prisma.PrismaPromise<unknown> };
const table = (db: Db, model: string) =>
  (db.prisma as unknown as Record<string, Deletable>)[`${model[0]!.toLowerCase()}${model.slice(1)}`]!;

/** Deletes every market-data row (accounts, keys and sessions stay). */
export async function clearResourceData(db: Db): Promise<void> {
  const p = db.prisma;
  // Children first, so it does not depend on the database cascading.
  await p.$transaction([
    ...[...REFERENCE_TABLES].reverse().map((t) => table(db, t.model).deleteMany()),
    p.appMeta.deleteMany({ where: { key: META_KEY } }),
  ]);
  // The big tables in their own statements: one huge transaction would hold the write lock long.
  for (const t of BULK_TABLES) await table(db, t.model).deleteMany();
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
  const rows: Readonly<Record<SampleKey<AnyResource>, Record<string, unknown>[]>> = ref;
  // parents before children (foreign keys)
  const reference = REFERENCE_TABLES.map((t) => [t.model, rows[t.sample as SampleKey<AnyResource>]] as const);
  for (const [model, modelRows] of reference) await bulkInsert(db, model, modelRows);
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
  // the bars: those of the trades' minutes and days, by the rule the trade writer keeps them with,
  // then the days before the trades (sample/bars.ts)
  await rebuildBars(db, {});
  for (const batch of dayBarBatches(options)) await bulkInsert(db, 'DayBar', batch);
  // three weeks of minutes before the trades, and their days made of them as the writer makes days
  const days = new Map<string, { symbol: string; minute: number }>();
  for (const batch of minuteBarBatches(options)) {
    await bulkInsert(db, 'MinuteBar', batch);
    for (const m of batch) days.set(`${m.symbol} ${m.day}`, { symbol: m.symbol as string, minute: m.minute as number });
  }
  await refreshDaysOf(db, [...days.values()]);
  const bars = (await db.prisma.minuteBar.count()) + (await db.prisma.dayBar.count());
  await refreshStatistics(db, [
    ...reference.map(([model]) => model),
    'SecurityMetrics',
    ...BULK_TABLES.map((t) => t.model),
  ]);
  // written around the writers, so the snapshots are made once all is in, by the writers' rule;
  // after the statistics, which let each symbol's reads be index probes
  const snapshots = await refreshAllSnapshots(db);
  await refreshStatistics(db, ['Snapshot']);
  const streamed: Readonly<Record<string, number>> = { trades, quotes, bars, snapshots };
  await marker('complete');

  return {
    options,
    // each resource's records (the rows of its first table), parents first
    counts: Object.fromEntries(
      PARENTS_FIRST.flatMap((r) => {
        const first = r.tables?.[0];
        if (!first) return [];
        return [[r.camel, first.sample ? rows[first.sample as SampleKey<AnyResource>].length : streamed[r.camel]!]];
      }),
    ),
    ms: Date.now() - started,
  };
}
