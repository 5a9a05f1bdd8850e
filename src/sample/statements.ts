/**
 * A simulated quarter's flows (src/sample/quarters.ts) written as the fundamentals' statement
 * lines (src/domain/fundamentals.ts), and a fiscal year's lines summed from its quarters.
 */
import { CASH_FLOW, INCOME_STATEMENT, type StatementLine } from '../domain/fundamentals.js';
import { neg, round } from './amounts.js';
import { balanceSheetLines, type Books } from './books.js';

export type Lines = Record<StatementLine, number | null>;

/** One quarter's income statement in whole dollars; share counts in shares. */
export interface Income {
  revenue: number;
  cogs: number;
  grossProfit: number;
  depreciation: number;
  amortization: number;
  dda: number;
  ddaExpense: number;
  sga: number;
  rnd: number;
  otherOpex: number;
  totalOpex: number;
  operatingIncome: number;
  interestExpense: number;
  interestIncome: number;
  otherIncome: number;
  totalOther: number;
  pretax: number;
  taxes: number;
  discontinued: number;
  affiliates: number;
  consolidated: number;
  minorityIncome: number;
  commonIncome: number;
  basicShares: number;
  dilutedShares: number;
}

/** Working capital at a period end; `change` is the cash-flow statement's working-capital line. */
export interface WorkingCapital {
  receivables: number;
  inventory: number | null;
  otherCurrentAssets: number;
  payables: number;
  deferredRevenue: number;
  accrued: number;
  change: number;
}

/** One quarter's cash-flow statement; outflows are negative. */
export interface CashFlows {
  sbc: number;
  otherOperating: number;
  operatingContinuing: number;
  operating: number;
  capex: number;
  assetSales: number;
  acquisition: number;
  acquiredIntangibles: number;
  acquiredGoodwill: number;
  marketable: number | null;
  otherInvesting: number;
  investing: number;
  dividends: number;
  repurchases: number;
  longTermDebtChange: number;
  shortTermDebtChange: number;
  fx: number;
  financing: number;
  cashChange: number;
}

export const eps = (income: number, shares: number): number => round(income / shares, 2);

export function statementLines(
  i: Income,
  wc: WorkingCapital,
  f: CashFlows,
  books: Books,
  commitments: number | null,
): Lines {
  return {
    Revenue: i.revenue,
    CostOfRevenue: i.cogs,
    GrossProfit: i.grossProfit,
    SellingGeneralAdministrative: i.sga,
    ResearchDevelopment: i.rnd,
    DepreciationDepletionAmortizationExpense: i.ddaExpense,
    OtherOperatingExpenses: i.otherOpex,
    TotalOperatingExpenses: i.totalOpex,
    OperatingIncome: i.operatingIncome,
    InterestExpense: i.interestExpense,
    InterestInvestmentIncome: i.interestIncome,
    OtherExpenseIncome: i.otherIncome,
    TotalOtherIncomeExpense: i.totalOther,
    IncomeBeforeIncomeTaxes: i.pretax,
    IncomeTaxes: i.taxes,
    DiscontinuedOperations: i.discontinued,
    EquityInAffiliates: i.affiliates,
    ExtraordinaryItems: 0,
    ConsolidatedNetIncomeLoss: i.consolidated,
    NoncontrollingInterestIncome: i.minorityIncome,
    PreferredStockDividendsDeclared: 0,
    NetIncomeLossAttributableCommonShareholders: i.commonIncome,
    BasicEarningsPerShare: eps(i.commonIncome, i.basicShares),
    DilutedEarningsPerShare: eps(i.commonIncome, i.dilutedShares),
    BasicSharesOutstanding: i.basicShares,
    DilutedSharesOutstanding: i.dilutedShares,
    EBITDA: i.operatingIncome + i.dda,
    ...balanceSheetLines(books, commitments),
    NetIncomeCashFlow: i.consolidated,
    IncomeLossDiscontinuedOperations: neg(i.discontinued),
    DepreciationDepletionAmortization: i.dda,
    OtherOperatingActivities: f.otherOperating,
    ChangeOtherOperatingAssetsLiabilitiesNet: wc.change,
    CashOperatingActivitiesContinuingOperations: f.operatingContinuing,
    NetCashOperatingActivitiesDiscontinuedOperations: i.discontinued,
    NetCashOperatingActivities: f.operating,
    PurchasePropertyPlantEquipment: f.capex,
    SalePropertyPlantEquipment: f.assetSales,
    AcquisitionsNet: f.acquisition,
    OtherInvestingActivities: f.otherInvesting,
    NetCashInvestingActivitiesContinuingOperations: f.investing,
    NetCashInvestingActivitiesDiscontinuedOperations: 0,
    NetCashInvestingActivities: f.investing,
    ShortTermDebtIssuancesRepayments: f.shortTermDebtChange,
    CashDividends: f.dividends,
    EquityRepurchases: f.repurchases,
    OtherFinancingActivities: f.longTermDebtChange,
    NetCashFinancingActivitiesContinuingOperations: f.financing,
    NetCashFinancingActivitiesDiscontinuedOperations: 0,
    NetCashFinancingActivities: f.financing,
    EffectCurrencyExchangeRate: f.fx,
    OtherCashAdjustments: 0,
    ChangeCashEquivalents: f.cashChange,
  };
}

/** A fiscal year from its quarters' lines, oldest first: flows are their sum, positions those of the last quarter. */
export function fiscalYearLines(quarters: readonly Lines[]): Lines {
  const lines: Lines = { ...quarters[quarters.length - 1]! };
  for (const line of [...INCOME_STATEMENT, ...CASH_FLOW]) {
    lines[line] = quarters.reduce((sum, q) => sum + (q[line] ?? 0), 0);
  }
  const income = lines.NetIncomeLossAttributableCommonShareholders ?? 0;
  const basic = Math.round(quarters.reduce((s, q) => s + (q.BasicSharesOutstanding ?? 0), 0) / quarters.length);
  const diluted =
    income > 0
      ? Math.round(quarters.reduce((s, q) => s + (q.DilutedSharesOutstanding ?? 0), 0) / quarters.length)
      : basic;
  lines.BasicSharesOutstanding = basic;
  lines.DilutedSharesOutstanding = diluted;
  lines.BasicEarningsPerShare = eps(income, basic);
  lines.DilutedEarningsPerShare = eps(income, diluted);
  return lines;
}
