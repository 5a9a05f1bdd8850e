// Writing fundamentals: the import's idempotent batch upsert, each record with its metrics row
// (derived metrics computed here, insights as the input says), and the recompute of derived metrics
// when trades or the security master change. The reads are services/fundamental.ts's.
import type { Db } from '../db/client.js';
import { columnOf, STATEMENT_LINES, type StatementColumn } from '../domain/fundamentals.js';
import { AppError } from '../errors.js';
import type { WriteCounts } from '../db/upsert.js';
import { Prisma, type FiscalPeriod, type Fundamental, type FundamentalMetrics } from '../../generated/prisma/client.js';
import type { LitigationInsight, MdnaInsight, RiskFactorsInsight } from '../domain/insights.js';
import { DERIVED_METRIC_COLUMNS, derivedMetrics, type DerivedMetrics } from '../domain/financial-metrics.js';
import { latestTrades } from './trade.js';
import { jsonInput, sameFields, writeBatch, type Tx } from '../db/upsert.js';
import { METRICS_INCLUDE, type FundamentalWithMetrics, type InsightColumns } from './fundamental.js';

// each insight group as its columns: riskFactorsOf, mdnaOf and litigationOf (services/fundamental.ts) read them back
function riskFactorColumns(r: RiskFactorsInsight | null) {
  return {
    riskFactorCount: r?.count ?? null,
    riskTopThemes: r ? r.topThemes : null,
    riskAverageSentimentScore: r?.averageSentimentScore ?? null,
    riskMostNegativeHeading: r?.mostNegativeRisk?.heading ?? null,
    riskMostNegativeSentiment: r?.mostNegativeRisk?.sentiment ?? null,
  };
}

function mdnaColumns(m: MdnaInsight | null) {
  return {
    mdnaForwardLookingTermCount: m?.forwardLookingTermCount ?? null,
    mdnaForwardToHistoricalRatio: m?.forwardToHistoricalRatio ?? null,
    mdnaToneScore: m?.toneScore ?? null,
    mdnaKeyTopics: m ? m.keyTopics : null,
  };
}

function litigationColumns(l: LitigationInsight | null) {
  return { litigationCount: l?.count ?? null, litigationRecentHeadings: l ? l.recentHeadings : null };
}

/**
 * One fundamentals record as an import writes it: the lite record's identity and statement lines,
 * and what the import knows of the insights. An insight group left undefined keeps the stored one
 * (none, on insert); null clears it. Derived metrics are not part of it: they are computed here.
 */
export type FundamentalInput = Omit<
  Prisma.FundamentalCreateManyInput,
  'id' | 'cik' | 'createdAt' | 'updatedAt' | 'quarter'
> & {
  quarter: FiscalPeriod;
  /** null: the security master's CIK for the symbol, else the stored one */
  cik: string | null;
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
  riskFactors?: RiskFactorsInsight | null | undefined;
  mdna?: MdnaInsight | null | undefined;
  litigation?: LitigationInsight | null | undefined;
};

export const fundamentalKey = (f: { symbol: string; year: number; quarter: string }) =>
  `${f.symbol}|${f.year}|${f.quarter}`;

const RECORD_FIELDS = Object.values(Prisma.FundamentalScalarFieldEnum).filter((c) => c !== 'id');
const INSIGHT_FIELDS = Object.values(Prisma.FundamentalMetricsScalarFieldEnum).filter(
  (c) => c.startsWith('risk') || c.startsWith('mdna') || c.startsWith('litigation'),
) as (keyof InsightColumns)[];

/** What derived metrics are computed from, besides the record: per symbol, read in the writing transaction. */
interface MarketFacts {
  price: number | null;
  sharesOutstanding: number | null;
  employees: number | null;
  cik: string | null;
}

/**
 * The latest trade price and security-master facts of each symbol. Of several securities with one
 * symbol (listings on several exchanges, a delisted predecessor) the active, most recently updated
 * one speaks.
 */
async function marketFacts(db: Db, tx: Tx, symbols: readonly string[]): Promise<Map<string, MarketFacts>> {
  // the trade service's one-statement lookup, run on the transaction's connection
  const trades = await latestTrades({ ...db, prisma: tx as unknown as Db['prisma'] }, symbols);
  const securities = await tx.security.findMany({
    where: { symbol: { in: [...symbols] } },
    orderBy: [{ active: 'desc' }, { updatedAt: 'desc' }, { id: 'asc' }],
    select: {
      symbol: true,
      cik: true,
      totalEmployees: true,
      shareClassSharesOutstanding: true,
      weightedSharesOutstanding: true,
    },
  });
  const speaking = new Map<string, (typeof securities)[number]>();
  for (const s of securities) if (!speaking.has(s.symbol)) speaking.set(s.symbol, s);
  const out = new Map<string, MarketFacts>();
  for (const symbol of symbols) {
    const s = speaking.get(symbol);
    const shares = s?.shareClassSharesOutstanding ?? s?.weightedSharesOutstanding ?? null;
    out.set(symbol, {
      price: trades.get(symbol)?.price ?? null,
      sharesOutstanding: shares === null ? null : Number(shares),
      employees: s?.totalEmployees ?? null,
      cik: s?.cik ?? null,
    });
  }
  return out;
}

function derivedFor(
  f: Partial<Pick<Fundamental, StatementColumn>> & { quarter: string },
  facts: MarketFacts | undefined,
): DerivedMetrics {
  const lines = Object.fromEntries(STATEMENT_LINES.map((line) => [line, f[columnOf(line)]]));
  return derivedMetrics({
    quarter: f.quarter,
    lines,
    price: facts?.price ?? null,
    sharesOutstanding: facts?.sharesOutstanding ?? null,
    employees: facts?.employees ?? null,
  });
}

const sameDerived = (wanted: DerivedMetrics, stored: FundamentalMetrics) =>
  sameFields({ ...wanted }, stored, DERIVED_METRIC_COLUMNS);

/** The insight columns a row asks for: its groups where it has them, the stored ones elsewhere. */
function insightsFor(row: FundamentalInput, stored: FundamentalMetrics | null | undefined): InsightColumns {
  const none = { ...riskFactorColumns(null), ...mdnaColumns(null), ...litigationColumns(null) };
  const base: InsightColumns = stored
    ? (Object.fromEntries(INSIGHT_FIELDS.map((c) => [c, stored[c]])) as unknown as InsightColumns)
    : none;
  return {
    ...base,
    ...(row.riskFactors !== undefined && riskFactorColumns(row.riskFactors)),
    ...(row.mdna !== undefined && mdnaColumns(row.mdna)),
    ...(row.litigation !== undefined && litigationColumns(row.litigation)),
  };
}

const metricsData = (m: DerivedMetrics & InsightColumns) => ({
  ...m,
  riskTopThemes: jsonInput(m.riskTopThemes),
  mdnaKeyTopics: jsonInput(m.mdnaKeyTopics),
  litigationRecentHeadings: jsonInput(m.litigationRecentHeadings),
});

function recordData(row: FundamentalInput, cik: string) {
  const { riskFactors: _r, mdna: _m, litigation: _l, ...record } = row;
  return { ...record, cik };
}

/**
 * Oldest period first, a fiscal year's FY record after its Q4 (same period end): the order new
 * records get their ids in, as the listings break the tie of a shared period end by id.
 */
const periodOrder = (x: FundamentalInput, y: FundamentalInput) =>
  x.endPeriod.localeCompare(y.endPeriod) || Number(x.quarter === 'FY') - Number(y.quarter === 'FY');

/**
 * Upserts fundamentals records by symbol + year + quarter in one transaction, each with its
 * metrics row: derived metrics computed by domain/financial-metrics.ts from the record, the symbol's latest
 * trade and the security master as they are in this transaction; insights as the input says.
 * `updatedAt` moves when the record or its insights change; a change of derived metrics alone (a
 * new price) rewrites only the metrics row. Throws BAD_REQUEST for a record without a CIK when
 * neither the security master nor a stored record has one for its symbol.
 */
export function writeFundamentals(db: Db, rows: readonly FundamentalInput[]): Promise<WriteCounts> {
  // read in `load`, the first step of the transaction, and used by the steps after it
  let facts = new Map<string, MarketFacts>();
  const cikOf = (row: FundamentalInput, stored?: Fundamental) => {
    const cik = row.cik ?? facts.get(row.symbol)?.cik ?? stored?.cik;
    if (!cik)
      throw new AppError(
        'BAD_REQUEST',
        `cik: ${row.symbol} ${row.year} ${row.quarter} carries no cik and the security master has none for ${row.symbol}; import its security first or give the record a cik`,
      );
    return cik;
  };
  const wanted = (row: FundamentalInput, stored?: FundamentalWithMetrics) => ({
    ...derivedFor(row, facts.get(row.symbol)),
    ...insightsFor(row, stored?.metrics),
  });

  return writeBatch<FundamentalInput, FundamentalWithMetrics>(db, rows, {
    key: fundamentalKey,
    async load(tx, batch) {
      const symbols = [...new Set(batch.map((r) => r.symbol))];
      facts = await marketFacts(db, tx, symbols);
      // a superset (every listed year of every symbol of the batch) matched by key afterwards
      return tx.fundamental.findMany({
        where: { symbol: { in: symbols }, year: { in: [...new Set(batch.map((r) => r.year))] } },
        include: METRICS_INCLUDE,
      });
    },
    storedKey: fundamentalKey,
    same: (row, stored) =>
      stored.metrics !== null &&
      sameFields(recordData(row, cikOf(row, stored)), stored, RECORD_FIELDS) &&
      sameFields(wanted(row, stored), stored.metrics, [...DERIVED_METRIC_COLUMNS, ...INSIGHT_FIELDS]),
    async insert(tx, batch) {
      const now = new Date();
      const created = await tx.fundamental.createManyAndReturn({
        data: [...batch].sort(periodOrder).map((row) => {
          const createdAt = row.createdAt ?? now;
          return { ...recordData(row, cikOf(row)), createdAt, updatedAt: row.updatedAt ?? createdAt };
        }),
        select: { id: true, symbol: true, year: true, quarter: true },
      });
      const ids = new Map(created.map((c) => [fundamentalKey(c), c.id]));
      await tx.fundamentalMetrics.createMany({
        data: batch.map((row) => ({ fundamentalId: ids.get(fundamentalKey(row))!, ...metricsData(wanted(row)) })),
      });
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        const metrics = wanted(row, stored);
        const recordChanged =
          !sameFields(recordData(row, cikOf(row, stored)), stored, RECORD_FIELDS) ||
          !stored.metrics ||
          !sameFields(metrics, stored.metrics, INSIGHT_FIELDS);
        if (recordChanged)
          await tx.fundamental.update({
            where: { id: stored.id },
            data: { ...recordData(row, cikOf(row, stored)), updatedAt: row.updatedAt ?? new Date() },
          });
        await tx.fundamentalMetrics.upsert({
          where: { fundamentalId: stored.id },
          create: { fundamentalId: stored.id, ...metricsData(metrics) },
          update: metricsData(metrics),
        });
      }
    },
  });
}

/** Symbols per transaction of a recompute: keeps each one short while trades keep arriving. */
const RECOMPUTE_SYMBOLS = 50;
const RECOMPUTE_TRANSACTION = { maxWait: 30_000, timeout: 120_000 };

/**
 * Recomputes the derived metrics of every fundamentals record of `symbols` (all symbols when not
 * given) from the latest trade price and the security master, rewriting only the metrics rows whose
 * values change; the record's `updatedAt` stays (derived metrics follow the market, not the filing).
 * Records without a metrics row (lite only) are left so. Called after trades or securities arrive.
 */
export async function recomputeDerivedMetrics(
  db: Db,
  symbols?: readonly string[],
): Promise<{ updated: number; unchanged: number }> {
  const list = symbols
    ? [...new Set(symbols)]
    : (await db.prisma.fundamental.findMany({ distinct: ['symbol'], select: { symbol: true } })).map((f) => f.symbol);
  const counts = { updated: 0, unchanged: 0 };
  for (let i = 0; i < list.length; i += RECOMPUTE_SYMBOLS) {
    const chunk = list.slice(i, i + RECOMPUTE_SYMBOLS);
    await db.prisma.$transaction(async (tx) => {
      const records = await tx.fundamental.findMany({
        where: { symbol: { in: chunk }, metrics: { isNot: null } },
        include: METRICS_INCLUDE,
      });
      // a trade feed's symbols mostly have no fundamentals: then nothing else is read
      if (records.length === 0) return;
      const facts = await marketFacts(db, tx, [...new Set(records.map((f) => f.symbol))]);
      for (const f of records) {
        const derived = derivedFor(f, facts.get(f.symbol));
        if (sameDerived(derived, f.metrics!)) counts.unchanged++;
        else {
          await tx.fundamentalMetrics.update({ where: { fundamentalId: f.id }, data: derived });
          counts.updated++;
        }
      }
    }, RECOMPUTE_TRANSACTION);
  }
  return counts;
}
