/**
 * Derived metrics of an enhanced fundamentals record (docs/data.md, the formulas): pure arithmetic over the
 * lite record's statement lines, the symbol's latest trade price and two facts of the security
 * master (shares outstanding, total employees). No database; services/fundamental-write.ts gathers the
 * inputs, and the sample generator calls the same function, so there is one formula.
 *
 * Period conventions: a quarterly record (Q1..Q4) annualises flows ×4 and counts a period as 91
 * days; an FY record uses ×1 and 365 days. Balance-sheet lines are period-end positions.
 *
 * | metric | formula | rounded to |
 * |---|---|---|
 * | `pe_ratio` | price ÷ (DilutedEarningsPerShare × f) | 2 decimals |
 * | `price_to_book` | market cap ÷ TotalEquityAttributableParent | 2 decimals |
 * | `debt_to_equity` | (DebtCurrent + LongTermDebtCapitalLeaseObligations) ÷ TotalEquity | 4 decimals |
 * | `return_on_assets` | NetIncomeLossAttributableCommonShareholders × f ÷ TotalAssets | 4 decimals |
 * | `return_on_equity` | NetIncomeLossAttributableCommonShareholders × f ÷ TotalEquity | 4 decimals |
 * | `revenue_per_employee` | Revenue × f ÷ total employees | whole dollars |
 * | `roic` | OperatingIncome × (1 − tax rate) × f ÷ (DebtCurrent + LongTermDebtCapitalLeaseObligations + TotalEquity) | 4 decimals |
 * | `fcf_yield` | (NetCashOperatingActivities − \|PurchasePropertyPlantEquipment\|) × f ÷ market cap | 4 decimals |
 * | `working_capital_days.dso` | receivables × d ÷ Revenue | 1 decimal |
 * | `working_capital_days.dio` | Inventories × d ÷ CostOfRevenue | 1 decimal |
 * | `working_capital_days.dpo` | AccountsPayable × d ÷ CostOfRevenue | 1 decimal |
 *
 * where f = 4 (quarter) or 1 (FY); d = 91 (quarter) or 365 (FY);
 * market cap = latest trade price × security-master shares outstanding (share-class shares, else
 * weighted shares); tax rate = IncomeTaxes ÷ IncomeBeforeIncomeTaxes clamped to [0, 1], and 0 when
 * pre-tax income is 0; receivables = TotalCurrentAssets − CashEquivalents − ShortTermInvestments −
 * Inventories (the lite record has no receivables line; this residual is receivables plus prepaid
 * and other current assets, because many sources, our sample data among them, fold receivables
 * into PrepaidExpensesOtherCurrentAssets).
 *
 * A metric is null, never Infinity or NaN, when it cannot be computed: a denominator of 0, an input
 * that is missing or not a finite number, no trade price (price ≤ 0 counts as none), no share
 * count or employee count (≤ 0 counts as none). Negative denominators are kept (a loss gives a
 * negative P/E, negative equity a negative ROE): the sign is information, not an error.
 */
import type { StatementLine } from './fundamentals.js';

export interface MetricsInput {
  /** `Q1`..`Q4` or `FY` (REST field `Quarter`). */
  quarter: string;
  /** The lite record's statement lines (absent or null when unknown). */
  lines: Readonly<Partial<Record<StatementLine, number | null>>>;
  /** The symbol's latest trade price, null when it has no trades. */
  price: number | null;
  /** Shares outstanding from the security master, null when unknown. */
  sharesOutstanding: number | null;
  /** Total employees from the security master, null when unknown. */
  employees: number | null;
}

/** Named as the FundamentalMetrics columns, so a service can store the object as it is. */
export interface DerivedMetrics {
  peRatio: number | null;
  priceToBook: number | null;
  debtToEquity: number | null;
  returnOnAssets: number | null;
  returnOnEquity: number | null;
  revenuePerEmployee: number | null;
  roic: number | null;
  fcfYield: number | null;
  dso: number | null;
  dio: number | null;
  dpo: number | null;
}

export const DERIVED_METRIC_COLUMNS = [
  'peRatio',
  'priceToBook',
  'debtToEquity',
  'returnOnAssets',
  'returnOnEquity',
  'revenuePerEmployee',
  'roic',
  'fcfYield',
  'dso',
  'dio',
  'dpo',
] as const satisfies readonly (keyof DerivedMetrics)[];

type Value = number | null;

const finite = (x: number | null | undefined): Value => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const positive = (x: number | null | undefined): Value => {
  const v = finite(x);
  return v !== null && v > 0 ? v : null;
};

/** Any null operand makes the result null. */
const sum = (...xs: Value[]): Value =>
  xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0);
const neg = (x: Value): Value => (x === null ? null : -x);
const times = (...xs: Value[]): Value =>
  xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a * b, 1);

function ratio(numerator: Value, denominator: Value, digits: number): Value {
  if (numerator === null || denominator === null || denominator === 0) return null;
  const f = 10 ** digits;
  // + 0 turns -0 into 0, so a zero result prints and compares as 0
  const r = Math.round((numerator / denominator) * f) / f + 0;
  return Number.isFinite(r) ? r : null;
}

export function derivedMetrics(input: MetricsInput): DerivedMetrics {
  const annual = input.quarter === 'FY';
  const f = annual ? 1 : 4;
  const d = annual ? 365 : 91;
  const v = (line: StatementLine): Value => finite(input.lines[line]);

  const price = positive(input.price);
  const marketCap = times(price, positive(input.sharesOutstanding));
  const income = v('NetIncomeLossAttributableCommonShareholders');
  const equity = v('TotalEquity');
  const debt = sum(v('DebtCurrent'), v('LongTermDebtCapitalLeaseObligations'));
  const pretax = v('IncomeBeforeIncomeTaxes');
  const taxes = v('IncomeTaxes');
  const taxRate =
    pretax === null || taxes === null ? null : pretax === 0 ? 0 : Math.min(1, Math.max(0, taxes / pretax));
  const capex = v('PurchasePropertyPlantEquipment');
  // capex is an outflow whichever sign the source reports it with
  const freeCashFlow = capex === null ? null : sum(v('NetCashOperatingActivities'), -Math.abs(capex));
  const receivables = sum(
    v('TotalCurrentAssets'),
    neg(v('CashEquivalents')),
    neg(v('ShortTermInvestments')),
    neg(v('Inventories')),
  );

  return {
    peRatio: ratio(price, times(v('DilutedEarningsPerShare'), f), 2),
    priceToBook: ratio(marketCap, v('TotalEquityAttributableParent'), 2),
    debtToEquity: ratio(debt, equity, 4),
    returnOnAssets: ratio(times(income, f), v('TotalAssets'), 4),
    returnOnEquity: ratio(times(income, f), equity, 4),
    revenuePerEmployee: ratio(times(v('Revenue'), f), positive(input.employees), 0),
    roic: ratio(times(v('OperatingIncome'), taxRate === null ? null : 1 - taxRate, f), sum(debt, equity), 4),
    fcfYield: ratio(times(freeCashFlow, f), marketCap, 4),
    dso: ratio(times(receivables, d), v('Revenue'), 1),
    dio: ratio(times(v('Inventories'), d), v('CostOfRevenue'), 1),
    dpo: ratio(times(v('AccountsPayable'), d), v('CostOfRevenue'), 1),
  };
}
