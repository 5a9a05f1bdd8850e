/**
 * The statement lines of a fundamentals record, in the legacy record's order, as they are
 * spelled on the wire (PascalCase). The Prisma column of each is the same name with a lower-case
 * first letter (`Revenue` -> `revenue`, `EBITDA` -> `ebitda`): see `columnOf`.
 */
export const INCOME_STATEMENT = [
  'Revenue',
  'CostOfRevenue',
  'GrossProfit',
  'SellingGeneralAdministrative',
  'ResearchDevelopment',
  'DepreciationDepletionAmortizationExpense',
  'OtherOperatingExpenses',
  'TotalOperatingExpenses',
  'OperatingIncome',
  'InterestExpense',
  'InterestInvestmentIncome',
  'OtherExpenseIncome',
  'TotalOtherIncomeExpense',
  'IncomeBeforeIncomeTaxes',
  'IncomeTaxes',
  'DiscontinuedOperations',
  'EquityInAffiliates',
  'ExtraordinaryItems',
  'ConsolidatedNetIncomeLoss',
  'NoncontrollingInterestIncome',
  'PreferredStockDividendsDeclared',
  'NetIncomeLossAttributableCommonShareholders',
  'BasicEarningsPerShare',
  'DilutedEarningsPerShare',
  'BasicSharesOutstanding',
  'DilutedSharesOutstanding',
  'EBITDA',
] as const;

export const BALANCE_SHEET = [
  'CashEquivalents',
  'ShortTermInvestments',
  'Inventories',
  'PrepaidExpensesOtherCurrentAssets',
  'TotalCurrentAssets',
  'PropertyPlantEquipmentNet',
  'Goodwill',
  'IntangibleAssetsNet',
  'OtherAssets',
  'TotalAssets',
  'AccountsPayable',
  'DeferredRevenueCurrent',
  'DeferredLiabilitiesCurrent',
  'DebtCurrent',
  'AccruedOtherCurrentLiabilities',
  'TotalCurrentLiabilities',
  'LongTermDebtCapitalLeaseObligations',
  'OtherNoncurrentLiabilities',
  'TotalLiabilities',
  'CommitmentsContingencies',
  'PreferredStock',
  'CommonStock',
  'AdditionalPaidInCapital',
  'TreasuryStock',
  'AccumulatedOtherComprehensiveIncome',
  'RetainedEarningsDeficit',
  'OtherEquity',
  'TotalEquityAttributableParent',
  'NoncontrollingInterest',
  'TotalEquity',
  'TotalLiabilitiesEquity',
] as const;

export const CASH_FLOW = [
  'NetIncomeCashFlow',
  'IncomeLossDiscontinuedOperations',
  'DepreciationDepletionAmortization',
  'OtherOperatingActivities',
  'ChangeOtherOperatingAssetsLiabilitiesNet',
  'CashOperatingActivitiesContinuingOperations',
  'NetCashOperatingActivitiesDiscontinuedOperations',
  'NetCashOperatingActivities',
  'PurchasePropertyPlantEquipment',
  'SalePropertyPlantEquipment',
  'AcquisitionsNet',
  'OtherInvestingActivities',
  'NetCashInvestingActivitiesContinuingOperations',
  'NetCashInvestingActivitiesDiscontinuedOperations',
  'NetCashInvestingActivities',
  'ShortTermDebtIssuancesRepayments',
  'CashDividends',
  'EquityRepurchases',
  'OtherFinancingActivities',
  'NetCashFinancingActivitiesContinuingOperations',
  'NetCashFinancingActivitiesDiscontinuedOperations',
  'NetCashFinancingActivities',
  'EffectCurrencyExchangeRate',
  'OtherCashAdjustments',
  'ChangeCashEquivalents',
] as const;

export const STATEMENT_LINES = [...INCOME_STATEMENT, ...BALANCE_SHEET, ...CASH_FLOW] as const;
export type StatementLine = (typeof STATEMENT_LINES)[number];

/** The only statement line the legacy record allows to be null. */
export const NULLABLE_LINES: ReadonlySet<StatementLine> = new Set(['CommitmentsContingencies']);

export type StatementColumn = Exclude<Uncapitalize<StatementLine>, 'eBITDA'> | 'ebitda';

export function columnOf(line: StatementLine): StatementColumn {
  return line === 'EBITDA' ? 'ebitda' : ((line[0]!.toLowerCase() + line.slice(1)) as StatementColumn);
}

/** Balance-sheet record fields, snake_case as on the wire. */
export const BALANCE_SHEET_REQUIRED = [
  'accumulated_retained_earnings',
  'acquired_goodwill',
  'advance_customer_payments',
  'cash_and_short_term_equivalents',
  'current_accrued_liabilities',
  'customer_receivables',
  'long_term_debt_obligations',
  'long_term_miscellaneous_liabilities',
  'miscellaneous_assets',
  'miscellaneous_current_assets',
  'net_fixed_assets',
  'net_intangible_assets',
  'ordinary_share_capital',
  'other_comprehensive_income_accumulated',
  'other_stockholder_equity',
  'parent_company_equity',
  'payable_to_suppliers',
  'short_term_debt_obligations',
  'sum_of_current_assets',
  'sum_of_current_liabilities',
  'total_assets',
  'total_equity',
  'total_liabilities',
  'total_liabilities_plus_equity',
] as const;

export const BALANCE_SHEET_OPTIONAL = [
  'capital_paid_in_excess',
  'marketable_securities_short_term',
  'minority_shareholder_interest',
  'stock_inventory',
  'treasury_stock',
] as const;

export type BalanceSheetAmount = (typeof BALANCE_SHEET_REQUIRED)[number] | (typeof BALANCE_SHEET_OPTIONAL)[number];

/** snake_case wire name -> camelCase column name. */
export function camelOf(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
