/**
 * Eight simulated quarters per company. Income statement, cash flow and balance sheet come from one
 * set of flows: cash rolls forward by the cash-flow statement, retained earnings by net income and
 * dividends, debt by its issuances and repayments, fixed assets by capex and depreciation, working
 * capital from days-of-revenue ratios (its change is the cash-flow working-capital line).
 *
 * Every step draws from one stream per company in a fixed order; reordering the draws changes
 * every number after them (test/sample/sample.test.ts, test/app/golden.test.ts).
 */
import { k, neg, round } from './amounts.js';
import { balance, totals, type Books } from './books.js';
import type { Company } from './catalog.js';
import { rngFor, type Rng } from './random.js';
import { statementLines, type CashFlows, type Income, type Lines, type WorkingCapital } from './statements.js';
import { ANCHOR_MS, DAY_MS, isoDate, monthEndMs } from './time.js';

export interface Period {
  year: number;
  quarter: 1 | 2 | 3 | 4;
  end: string;
  endMs: number;
}

export interface QuarterResult {
  period: Period;
  books: Books;
  lines: Lines;
  /** share price at the period end; metrics use the last trade instead, but drawing it keeps the stream stable */
  price: number;
}

/**
 * The 8 fiscal quarters of the company's two latest complete fiscal years: those whose annual
 * report (~45 days after year end) is out by the anchor date.
 */
function fiscalQuarters(fiscalYearEndMonth: number): Period[] {
  let latest = 2026;
  while (monthEndMs(latest, fiscalYearEndMonth) + 45 * DAY_MS > ANCHOR_MS) latest--;
  const periods: Period[] = [];
  for (const year of [latest - 1, latest]) {
    for (const quarter of [1, 2, 3, 4] as const) {
      let month = fiscalYearEndMonth - 3 * (4 - quarter);
      let calendarYear = year;
      if (month <= 0) {
        month += 12;
        calendarYear--;
      }
      const endMs = monthEndMs(calendarYear, month);
      periods.push({ year, quarter, end: isoDate(endMs), endMs });
    }
  }
  return periods;
}

/** What a company's quarters are drawn around: growth, margins, ratios to revenue and one-off events. */
interface Profile {
  growth: number;
  /** the quarterly revenue trend one quarter before the first period */
  startTrend: number;
  grossMargin: number;
  sgaRatio: number;
  rdRatio: number;
  capexRatio: number;
  depreciationRate: number;
  amortizationRate: number;
  ddaOperatingShare: number;
  sbcRatio: number;
  taxRate: number;
  dsoDays: number;
  dioDays: number;
  dpoDays: number;
  otherCurrentRatio: number;
  deferredRatio: number;
  accruedRatio: number;
  dividendRatio: number;
  hasTreasury: boolean;
  buybackRatio: number;
  shareDrift: number;
  dilution: number;
  hasAffiliates: boolean;
  minorityShare: number;
  commitments: number | null;
  /** index of the quarter with a discontinued operation, or -1 */
  discontinuedQuarter: number;
  /** index of the quarter with an acquisition, or -1 */
  acquisitionQuarter: number;
}

function drawProfile(rng: Rng, c: Company): Profile {
  const ind = c.industry;
  const growth = rng.range(-0.01, 0.05);
  const startTrend = c.annualRevenue / 4 / (1 + growth) ** 8;
  const grossMargin = ind.grossMargin * rng.range(0.9, 1.1);
  const sgaRatio = ind.sga * rng.range(0.85, 1.15);
  const rdRatio = ind.rd * rng.range(0.8, 1.25);
  const capexRatio = ind.capex * rng.range(0.8, 1.2);
  const depreciationRate = (ind.capex / (4 * ind.fixedAssets)) * 0.9;
  const amortizationRate = 0.03;
  const ddaOperatingShare = rng.range(0.3, 0.7);
  const sbcRatio = rng.range(0.005, 0.05);
  const taxRate = rng.range(0.14, 0.25);
  const dsoDays = rng.range(30, 70);
  const dioDays = rng.range(40, 110);
  const dpoDays = rng.range(30, 75);
  const otherCurrentRatio = rng.range(0.05, 0.2);
  const deferredRatio = rng.range(0.02, 0.3);
  const accruedRatio = rng.range(0.15, 0.35);
  const dividendRatio = rng.chance(ind.dividendProbability) ? rng.range(0.01, 0.05) : 0;
  const hasTreasury = rng.chance(0.6);
  const buybackRatio = hasTreasury && rng.chance(0.7) ? rng.range(0.01, 0.05) : 0;
  const shareDrift = buybackRatio > 0 ? -rng.range(0.001, 0.006) : rng.range(0, 0.006);
  const dilution = rng.range(1.004, 1.025);
  const hasAffiliates = rng.chance(0.3);
  const minorityShare = rng.range(0.01, 0.05);
  const commitments = rng.chance(0.6) ? 0 : null;
  const discontinuedQuarter = rng.chance(0.12) ? rng.int(0, 7) : -1;
  const acquisitionQuarter = rng.chance(0.25) ? rng.int(0, 7) : -1;
  return {
    growth,
    startTrend,
    grossMargin,
    sgaRatio,
    rdRatio,
    capexRatio,
    depreciationRate,
    amortizationRate,
    ddaOperatingShare,
    sbcRatio,
    taxRate,
    dsoDays,
    dioDays,
    dpoDays,
    otherCurrentRatio,
    deferredRatio,
    accruedRatio,
    dividendRatio,
    hasTreasury,
    buybackRatio,
    shareDrift,
    dilution,
    hasAffiliates,
    minorityShare,
    commitments,
    discontinuedQuarter,
    acquisitionQuarter,
  };
}

/** The books one quarter before the first period; retained earnings close the balance-sheet identity. */
function openingBooks(rng: Rng, c: Company, p: Profile): Books {
  const ind = c.industry;
  const r0 = p.startTrend;
  const cogs0 = r0 * (1 - p.grossMargin);
  const open: Books = {
    cash: k(4 * r0 * rng.range(0.08, 0.35)),
    marketable: rng.chance(0.6) ? k(4 * r0 * rng.range(0.05, 0.3)) : null,
    receivables: k((r0 * p.dsoDays) / 91),
    inventory: ind.inventory && rng.chance(0.95) ? k((cogs0 * p.dioDays) / 91) : null,
    otherCurrentAssets: k(r0 * p.otherCurrentRatio),
    fixedAssets: k(4 * r0 * ind.fixedAssets * rng.range(0.8, 1.2)),
    goodwill: k(4 * r0 * rng.range(0.05, 0.4)),
    intangibles: k(4 * r0 * rng.range(0.02, 0.2)),
    otherAssets: k(4 * r0 * rng.range(0.03, 0.1)),
    payables: k((cogs0 * p.dpoDays) / 91),
    deferredRevenue: k(r0 * p.deferredRatio),
    shortTermDebt: 0,
    accrued: k(r0 * p.accruedRatio),
    longTermDebt: 0,
    otherLiabilities: 0,
    shareCapital: k(c.shares * rng.pick([0.0001, 0.001, 0.01])),
    paidInCapital: null,
    retained: 0,
    oci: 0,
    otherEquity: 0,
    treasury: null,
    minority: null,
  };
  const openAssets = totals(open).assets;
  open.shortTermDebt = k(openAssets * rng.range(0, 0.04));
  open.longTermDebt = k(openAssets * rng.range(0.05, 0.3));
  open.otherLiabilities = k(openAssets * rng.range(0.03, 0.08));
  const openEquity = openAssets - totals(open).liabilities;
  open.minority = rng.chance(0.3) ? k(openEquity * rng.range(0.01, 0.05)) : null;
  open.paidInCapital = rng.chance(0.85) ? k(openEquity * rng.range(0.2, 0.6)) : null;
  open.treasury = p.hasTreasury ? k(openEquity * rng.range(0.05, 0.3)) : null;
  open.oci = k(openEquity * rng.range(-0.05, 0.02));
  open.otherEquity = rng.chance(0.5) ? k(openEquity * rng.range(-0.01, 0.01)) : 0;
  open.retained =
    openEquity -
    (open.minority ?? 0) -
    open.shareCapital -
    (open.paidInCapital ?? 0) -
    open.oci -
    open.otherEquity +
    (open.treasury ?? 0);
  return open;
}

/** Quarter `t`'s income statement around the revenue `trend`; interest and depreciation run on the previous books. */
function drawIncome(rng: Rng, c: Company, p: Profile, prev: Books, t: number, trend: number): Income {
  const revenue = k(trend * rng.range(0.96, 1.04));
  const cogs = k(revenue * (1 - p.grossMargin * rng.range(0.97, 1.03)));
  const grossProfit = revenue - cogs;
  const depreciation = k(prev.fixedAssets * p.depreciationRate);
  const amortization = k(prev.intangibles * p.amortizationRate);
  const dda = depreciation + amortization;
  const ddaExpense = k(dda * p.ddaOperatingShare); // the rest sits in cost of revenue
  const sga = k(revenue * p.sgaRatio * rng.range(0.95, 1.05));
  const rnd = k(revenue * p.rdRatio * rng.range(0.95, 1.05));
  const otherOpex = k(revenue * rng.range(0, 0.015));
  const totalOpex = sga + rnd + ddaExpense + otherOpex;
  const operatingIncome = grossProfit - totalOpex;
  const interestExpense = k(((prev.shortTermDebt + prev.longTermDebt) * 0.055) / 4);
  const interestIncome = k(((prev.cash + (prev.marketable ?? 0)) * 0.035) / 4);
  const otherIncome = k(revenue * rng.range(-0.004, 0.004));
  const totalOther = interestIncome - interestExpense + otherIncome;
  const pretax = operatingIncome + totalOther;
  const taxes = k(pretax * p.taxRate);
  const discontinued = t === p.discontinuedQuarter ? k(revenue * rng.range(-0.03, 0.02)) : 0;
  const affiliates = p.hasAffiliates ? k(revenue * rng.range(0, 0.004)) : 0;
  const consolidated = pretax - taxes + discontinued + affiliates;
  const minorityIncome = prev.minority === null ? 0 : k(consolidated * p.minorityShare);
  const commonIncome = consolidated - minorityIncome;
  const basicShares = Math.round(c.shares * (1 + p.shareDrift * (t - 7)));
  const dilutedShares = commonIncome > 0 ? Math.round(basicShares * p.dilution) : basicShares;
  return {
    revenue,
    cogs,
    grossProfit,
    depreciation,
    amortization,
    dda,
    ddaExpense,
    sga,
    rnd,
    otherOpex,
    totalOpex,
    operatingIncome,
    interestExpense,
    interestIncome,
    otherIncome,
    totalOther,
    pretax,
    taxes,
    discontinued,
    affiliates,
    consolidated,
    minorityIncome,
    commonIncome,
    basicShares,
    dilutedShares,
  };
}

function drawWorkingCapital(rng: Rng, p: Profile, prev: Books, i: Income): WorkingCapital {
  const receivables = k((i.revenue * p.dsoDays) / 91);
  const inventory = prev.inventory === null ? null : k((i.cogs * p.dioDays) / 91);
  const otherCurrentAssets = k(i.revenue * p.otherCurrentRatio * rng.range(0.95, 1.05));
  const payables = k((i.cogs * p.dpoDays) / 91);
  const deferredRevenue = k(i.revenue * p.deferredRatio * rng.range(0.95, 1.05));
  const accrued = k(i.revenue * p.accruedRatio * rng.range(0.95, 1.05));
  const change =
    prev.receivables -
    receivables +
    (prev.inventory ?? 0) -
    (inventory ?? 0) +
    prev.otherCurrentAssets -
    otherCurrentAssets +
    payables -
    prev.payables +
    deferredRevenue -
    prev.deferredRevenue +
    accrued -
    prev.accrued;
  return { receivables, inventory, otherCurrentAssets, payables, deferredRevenue, accrued, change };
}

function drawCashFlows(rng: Rng, p: Profile, prev: Books, t: number, i: Income, wc: WorkingCapital): CashFlows {
  const revenue = i.revenue;
  const sbc = k(revenue * p.sbcRatio);
  const otherOperating = sbc - i.affiliates;
  const operatingContinuing = i.consolidated - i.discontinued + i.dda + otherOperating + wc.change;
  const operating = operatingContinuing + i.discontinued;
  const capex = neg(k(revenue * p.capexRatio * rng.range(0.8, 1.2)));
  const assetSales = rng.chance(0.3) ? k(prev.fixedAssets * rng.range(0, 0.01)) : 0;
  const acquisition = t === p.acquisitionQuarter ? neg(k(revenue * rng.range(0.2, 0.8))) : 0;
  const acquiredIntangibles = k(neg(acquisition) * 0.35);
  const acquiredGoodwill = neg(acquisition) - acquiredIntangibles;
  const marketable = prev.marketable === null ? null : k(prev.marketable * rng.range(0.9, 1.12));
  const otherInvesting = (prev.marketable ?? 0) - (marketable ?? 0);
  const investing = capex + assetSales + acquisition + otherInvesting;
  const dividends = neg(k(revenue * p.dividendRatio));
  const repurchases = neg(k(revenue * p.buybackRatio * rng.range(0.5, 1.5)));
  const debtDraw = rng.next();
  const longTermDebtChange =
    debtDraw < 0.12
      ? k(prev.longTermDebt * rng.range(0.05, 0.2) + revenue * 0.05)
      : debtDraw < 0.3
        ? neg(k(prev.longTermDebt * rng.range(0.02, 0.1)))
        : 0;
  let shortTermDebtChange = rng.chance(0.3)
    ? neg(k(prev.shortTermDebt * rng.range(0, 0.5)))
    : rng.chance(0.2)
      ? k(revenue * rng.range(0, 0.05))
      : 0;
  const fx = k(revenue * rng.range(-0.002, 0.002));
  // Borrow short term rather than let cash fall below a working minimum.
  const cashFloor = k(revenue * 0.15);
  const projected =
    prev.cash + operating + investing + shortTermDebtChange + dividends + repurchases + longTermDebtChange + fx;
  if (projected < cashFloor) shortTermDebtChange += cashFloor - projected;
  const financing = shortTermDebtChange + dividends + repurchases + longTermDebtChange;
  const cashChange = operating + investing + financing + fx;
  return {
    sbc,
    otherOperating,
    operatingContinuing,
    operating,
    capex,
    assetSales,
    acquisition,
    acquiredIntangibles,
    acquiredGoodwill,
    marketable,
    otherInvesting,
    investing,
    dividends,
    repurchases,
    longTermDebtChange,
    shortTermDebtChange,
    fx,
    financing,
    cashChange,
  };
}

/** Rolls the previous books forward by the quarter's flows, then balances them. */
function closeBooks(rng: Rng, prev: Books, i: Income, wc: WorkingCapital, f: CashFlows): Books {
  const books: Books = {
    cash: prev.cash + f.cashChange,
    marketable: f.marketable,
    receivables: wc.receivables,
    inventory: wc.inventory,
    otherCurrentAssets: wc.otherCurrentAssets,
    fixedAssets: prev.fixedAssets - f.capex - i.depreciation - f.assetSales,
    goodwill: prev.goodwill + f.acquiredGoodwill,
    intangibles: prev.intangibles - i.amortization + f.acquiredIntangibles,
    otherAssets: prev.otherAssets + i.affiliates + k(prev.otherAssets * rng.range(-0.01, 0.01)),
    payables: wc.payables,
    deferredRevenue: wc.deferredRevenue,
    shortTermDebt: prev.shortTermDebt + f.shortTermDebtChange,
    accrued: wc.accrued,
    longTermDebt: prev.longTermDebt + f.longTermDebtChange,
    otherLiabilities: 0,
    shareCapital: prev.shareCapital + (prev.paidInCapital === null ? f.sbc : 0),
    paidInCapital: prev.paidInCapital === null ? null : prev.paidInCapital + f.sbc,
    retained: prev.retained + i.commonIncome + f.dividends,
    oci: prev.oci + f.fx + k(i.revenue * rng.range(-0.003, 0.003)),
    otherEquity: prev.otherEquity,
    treasury: prev.treasury === null ? null : prev.treasury - f.repurchases,
    minority: prev.minority === null ? null : prev.minority + i.minorityIncome,
  };
  balance(books, k(i.revenue * 0.05));
  return books;
}

export function simulateCompany(seed: number, c: Company): QuarterResult[] {
  const rng = rngFor(seed, 'financials', c.index);
  const profile = drawProfile(rng, c);
  let prev = openingBooks(rng, c, profile);
  let trend = profile.startTrend;
  return fiscalQuarters(c.fiscalYearEndMonth).map((period, t) => {
    trend *= 1 + profile.growth;
    const income = drawIncome(rng, c, profile, prev, t, trend);
    const workingCapital = drawWorkingCapital(rng, profile, prev, income);
    const flows = drawCashFlows(rng, profile, prev, t, income, workingCapital);
    const books = closeBooks(rng, prev, income, workingCapital, flows);
    const lines = statementLines(income, workingCapital, flows, books, profile.commitments);
    const price = round(c.price * (1 + 0.03 * (t - 7)) * rng.range(0.92, 1.08), 2);
    prev = books;
    return { period, books, lines, price };
  });
}
