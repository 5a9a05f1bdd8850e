/** Balance sheets, fundamentals and their derived metrics for the covered companies, from their simulated quarters. */
import type { Prisma } from '../../generated/prisma/client.js';
import {
  BALANCE_SHEET_OPTIONAL,
  BALANCE_SHEET_REQUIRED,
  STATEMENT_LINES,
  camelOf,
  columnOf,
} from '../domain/fundamentals.js';
import { derivedMetrics } from '../domain/financial-metrics.js';
import { round } from './amounts.js';
import { balanceSheetAmounts } from './books.js';
import type { Company } from './catalog.js';
import { simulateCompany, type Period, type QuarterResult } from './quarters.js';
import { rngFor, type Rng } from './random.js';
import { fiscalYearLines, type Lines } from './statements.js';
import { ANCHOR_MS, DAY_MS } from './time.js';

const RISK_GENERIC = [
  'macroeconomic conditions',
  'cybersecurity',
  'key personnel',
  'litigation',
  'climate-related risks',
  'capital markets access',
];
const RISK_HEADINGS = [
  'We depend on a limited number of suppliers for critical components',
  'Adverse economic conditions could reduce demand for our products',
  'Our indebtedness could limit our operating flexibility',
  'Security breaches could harm our reputation and results',
  'Changes in tax law could increase our effective tax rate',
  'We may not realize the expected benefits of acquisitions',
];
const LITIGATION_HEADINGS = [
  'Securities class action dismissed',
  'Patent infringement suit filed by competitor',
  'Settlement of wage-and-hour claims',
  'Derivative complaint consolidated',
  'Regulatory inquiry into sales practices',
  'Contract dispute with former distributor',
];

/**
 * Derived metrics by domain/financial-metrics.ts from the same inputs a recompute on the seeded database
 * sees (the symbol's last sample trade, the security master's shares and employees), so the two
 * agree; the insights are drawn, as the sample has no filing text.
 */
function metricsRow(
  fundamentalId: number,
  quarter: string,
  lines: Lines,
  c: Company,
  price: number | null,
  rng: Rng,
  stamp: Date,
): Prisma.FundamentalMetricsCreateManyInput {
  const income = lines.NetIncomeLossAttributableCommonShareholders ?? 0;
  const themes = rng.sample([...c.industry.themes, ...RISK_GENERIC], rng.int(3, 4));
  const riskAverage = round(rng.range(-0.6, -0.1), 3);
  const litigationCount = rng.int(0, 6);
  return {
    fundamentalId,
    ...derivedMetrics({ quarter, lines, price, sharesOutstanding: c.shares, employees: c.employees }),
    riskFactorCount: rng.int(18, 64),
    riskTopThemes: themes,
    riskAverageSentimentScore: riskAverage,
    riskMostNegativeHeading: rng.pick(RISK_HEADINGS),
    riskMostNegativeSentiment: round(Math.max(-1, riskAverage - rng.range(0.1, 0.4)), 3),
    mdnaForwardLookingTermCount: rng.int(12, 140),
    mdnaForwardToHistoricalRatio: round(rng.range(0.2, 1.6), 3),
    mdnaToneScore: round(Math.max(-1, Math.min(1, (income > 0 ? 0.25 : -0.2) + rng.range(-0.3, 0.3))), 3),
    mdnaKeyTopics: rng.sample([...c.industry.topics, 'liquidity', 'capital allocation', 'outlook'], rng.int(3, 4)),
    litigationCount,
    litigationRecentHeadings: rng.sample(LITIGATION_HEADINGS, Math.min(litigationCount, 3)),
    createdAt: stamp,
    updatedAt: stamp,
  };
}

export interface Financials {
  balanceSheets: (Prisma.BalanceSheetCreateManyInput & { id: number })[];
  balanceSheetSymbols: Prisma.BalanceSheetSymbolCreateManyInput[];
  fundamentals: (Prisma.FundamentalCreateManyInput & { id: number })[];
  fundamentalMetrics: Prisma.FundamentalMetricsCreateManyInput[];
  /** per company index, its simulated quarters (for call summaries) */
  quarters: Map<number, QuarterResult[]>;
}

/** `lastPrices`: per symbol, the price of its last sample trade (absent: no trades). */
export function buildFinancials(
  seed: number,
  companies: Company[],
  lastPrices: ReadonlyMap<string, number>,
): Financials {
  const out: Financials = {
    balanceSheets: [],
    balanceSheetSymbols: [],
    fundamentals: [],
    fundamentalMetrics: [],
    quarters: new Map(),
  };
  const filed = (period: Period) => new Date(Math.min(period.endMs + 40 * DAY_MS, ANCHOR_MS - DAY_MS) + 13 * 3_600_000);

  for (const c of companies) {
    const quarters = simulateCompany(seed, c);
    out.quarters.set(c.index, quarters);
    const rng = rngFor(seed, 'metrics', c.index);
    const symbols = c.dualClass ? [c.symbol, `${c.symbol}.B`] : [c.symbol];

    const addBalanceSheet = (q: QuarterResult, timeframe: Prisma.BalanceSheetCreateManyInput['timeframe']) => {
      const id = out.balanceSheets.length + 1;
      const row: Record<string, unknown> = {
        id,
        cik: c.cik,
        fiscalYear: q.period.year,
        fiscalQuarter: q.period.quarter,
        reportingPeriodEnd: q.period.end,
        timeframe,
      };
      const amounts = balanceSheetAmounts(q.books);
      for (const field of [...BALANCE_SHEET_REQUIRED, ...BALANCE_SHEET_OPTIONAL]) row[camelOf(field)] = amounts[field];
      row.createdAt = filed(q.period);
      row.updatedAt = row.createdAt;
      out.balanceSheets.push(row as unknown as Prisma.BalanceSheetCreateManyInput & { id: number });
      symbols.forEach((symbol, position) => out.balanceSheetSymbols.push({ balanceSheetId: id, position, symbol }));
    };
    const addFundamental = (q: QuarterResult, lines: Lines, annual: boolean) => {
      const id = out.fundamentals.length + 1;
      const stamp = filed(q.period);
      const row: Record<string, unknown> = {
        id,
        symbol: c.symbol,
        cik: c.cik,
        endPeriod: q.period.end,
        quarter: annual ? 'FY' : `Q${q.period.quarter}`,
        year: q.period.year,
      };
      for (const line of STATEMENT_LINES) row[columnOf(line)] = lines[line];
      row.createdAt = stamp;
      row.updatedAt = stamp;
      out.fundamentals.push(row as unknown as Prisma.FundamentalCreateManyInput & { id: number });
      out.fundamentalMetrics.push(
        metricsRow(id, row.quarter as string, lines, c, lastPrices.get(c.symbol) ?? null, rng, stamp),
      );
    };

    for (let y = 0; y < quarters.length; y += 4) {
      const year = quarters.slice(y, y + 4);
      for (const q of year) {
        addBalanceSheet(q, 'quarterly');
        addFundamental(q, q.lines, false);
      }
      addBalanceSheet(year[3]!, 'annual');
      addFundamental(year[3]!, fiscalYearLines(year.map((q) => q.lines)), true);
    }
    addBalanceSheet(quarters[quarters.length - 1]!, 'trailing_twelve_months');
  }
  return out;
}
