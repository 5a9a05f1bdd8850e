/**
 * A company's books at a period end and the two shapes they are published in: the fundamentals'
 * balance-sheet lines and the balance-sheet resource's amounts (src/domain/fundamentals.ts).
 */
import type { BALANCE_SHEET, BalanceSheetAmount } from '../domain/fundamentals.js';
import { neg } from './amounts.js';

/**
 * Balance-sheet state at a period end, in whole dollars. Optional balance-sheet fields are null
 * when the company does not report them. Sign convention: every amount is positive in its natural
 * direction except `oci`, `otherEquity` and `retained`, which may be negative; `treasury` is a
 * positive amount that is SUBTRACTED from equity (the balance sheet's `treasury_stock`; the
 * fundamentals' `TreasuryStock` line carries it negated, so equity there is a plain sum of its lines).
 */
export interface Books {
  cash: number;
  marketable: number | null;
  receivables: number;
  inventory: number | null;
  otherCurrentAssets: number;
  fixedAssets: number;
  goodwill: number;
  intangibles: number;
  otherAssets: number;
  payables: number;
  deferredRevenue: number;
  shortTermDebt: number;
  accrued: number;
  longTermDebt: number;
  otherLiabilities: number;
  shareCapital: number;
  paidInCapital: number | null;
  retained: number;
  oci: number;
  otherEquity: number;
  treasury: number | null;
  minority: number | null;
}

export function totals(b: Books) {
  const currentAssets = b.cash + (b.marketable ?? 0) + b.receivables + (b.inventory ?? 0) + b.otherCurrentAssets;
  const assets = currentAssets + b.fixedAssets + b.goodwill + b.intangibles + b.otherAssets;
  const currentLiabilities = b.payables + b.deferredRevenue + b.shortTermDebt + b.accrued;
  const liabilities = currentLiabilities + b.longTermDebt + b.otherLiabilities;
  const parentEquity = b.shareCapital + (b.paidInCapital ?? 0) + b.retained + b.oci + b.otherEquity - (b.treasury ?? 0);
  const equity = parentEquity + (b.minority ?? 0);
  return { currentAssets, assets, currentLiabilities, liabilities, parentEquity, equity };
}

/**
 * Closes the books: other long-term liabilities take up what the roll-forward leaves over (small,
 * since the statements are built from consistent flows), and other assets take it instead when
 * liabilities would fall below `floor`. Amounts are integers, so the identity holds exactly.
 */
export function balance(b: Books, floor: number): void {
  b.otherLiabilities = 0;
  const t = totals(b);
  const plug = t.assets - t.liabilities - t.equity;
  if (plug >= floor) {
    b.otherLiabilities = plug;
  } else {
    b.otherAssets += floor - plug;
    b.otherLiabilities = floor;
  }
}

type BalanceSheetLine = (typeof BALANCE_SHEET)[number];

export function balanceSheetLines(b: Books, commitments: number | null): Record<BalanceSheetLine, number | null> {
  const t = totals(b);
  return {
    CashEquivalents: b.cash,
    ShortTermInvestments: b.marketable ?? 0,
    Inventories: b.inventory ?? 0,
    PrepaidExpensesOtherCurrentAssets: b.receivables + b.otherCurrentAssets,
    TotalCurrentAssets: t.currentAssets,
    PropertyPlantEquipmentNet: b.fixedAssets,
    Goodwill: b.goodwill,
    IntangibleAssetsNet: b.intangibles,
    OtherAssets: b.otherAssets,
    TotalAssets: t.assets,
    AccountsPayable: b.payables,
    DeferredRevenueCurrent: b.deferredRevenue,
    DeferredLiabilitiesCurrent: 0,
    DebtCurrent: b.shortTermDebt,
    AccruedOtherCurrentLiabilities: b.accrued,
    TotalCurrentLiabilities: t.currentLiabilities,
    LongTermDebtCapitalLeaseObligations: b.longTermDebt,
    OtherNoncurrentLiabilities: b.otherLiabilities,
    TotalLiabilities: t.liabilities,
    CommitmentsContingencies: commitments,
    PreferredStock: 0,
    CommonStock: b.shareCapital,
    AdditionalPaidInCapital: b.paidInCapital ?? 0,
    TreasuryStock: neg(b.treasury ?? 0),
    AccumulatedOtherComprehensiveIncome: b.oci,
    RetainedEarningsDeficit: b.retained,
    OtherEquity: b.otherEquity,
    TotalEquityAttributableParent: t.parentEquity,
    NoncontrollingInterest: b.minority ?? 0,
    TotalEquity: t.equity,
    TotalLiabilitiesEquity: t.liabilities + t.equity,
  };
}

/** The balance-sheet resource's amounts (snake_case); absent optional fields are null. */
export function balanceSheetAmounts(b: Books): Record<BalanceSheetAmount, number | null> {
  const t = totals(b);
  return {
    accumulated_retained_earnings: b.retained,
    acquired_goodwill: b.goodwill,
    advance_customer_payments: b.deferredRevenue,
    cash_and_short_term_equivalents: b.cash,
    current_accrued_liabilities: b.accrued,
    customer_receivables: b.receivables,
    long_term_debt_obligations: b.longTermDebt,
    long_term_miscellaneous_liabilities: b.otherLiabilities,
    miscellaneous_assets: b.otherAssets,
    miscellaneous_current_assets: b.otherCurrentAssets,
    net_fixed_assets: b.fixedAssets,
    net_intangible_assets: b.intangibles,
    ordinary_share_capital: b.shareCapital,
    other_comprehensive_income_accumulated: b.oci,
    other_stockholder_equity: b.otherEquity,
    parent_company_equity: t.parentEquity,
    payable_to_suppliers: b.payables,
    short_term_debt_obligations: b.shortTermDebt,
    sum_of_current_assets: t.currentAssets,
    sum_of_current_liabilities: t.currentLiabilities,
    total_assets: t.assets,
    total_equity: t.equity,
    total_liabilities: t.liabilities,
    total_liabilities_plus_equity: t.liabilities + t.equity,
    capital_paid_in_excess: b.paidInCapital,
    marketable_securities_short_term: b.marketable,
    minority_shareholder_interest: b.minority,
    stock_inventory: b.inventory,
    treasury_stock: b.treasury,
  };
}
