// Derived metrics on hand-computed cases: every formula of src/domain/financial-metrics.ts once for a
// quarter (flows ×4, 91 days) and once for a fiscal year (×1, 365 days), then every way a metric
// cannot be computed (null, never Infinity or NaN).
import { describe, expect, it } from 'vitest';
import type { StatementLine } from '../../src/domain/fundamentals.js';
import { derivedMetrics, type DerivedMetrics, type MetricsInput } from '../../src/domain/financial-metrics.js';

// Shares 100, price 54, 10 employees. Net income 135 = EPS 1.35 × 100; tax rate 45 / 180 = 25%.
// Receivables (the residual) = 1500 − 400 − 100 − 300 = 700; debt = 300 + 700 = 1000.
const LINES: Partial<Record<StatementLine, number | null>> = {
  Revenue: 1000,
  CostOfRevenue: 600,
  OperatingIncome: 200,
  IncomeBeforeIncomeTaxes: 180,
  IncomeTaxes: 45,
  NetIncomeLossAttributableCommonShareholders: 135,
  DilutedEarningsPerShare: 1.35,
  TotalAssets: 5000,
  TotalEquity: 2000,
  TotalEquityAttributableParent: 1800,
  DebtCurrent: 300,
  LongTermDebtCapitalLeaseObligations: 700,
  NetCashOperatingActivities: 250,
  PurchasePropertyPlantEquipment: -50,
  TotalCurrentAssets: 1500,
  CashEquivalents: 400,
  ShortTermInvestments: 100,
  Inventories: 300,
  AccountsPayable: 200,
};

const input = (
  over: Partial<MetricsInput> = {},
  lines: Partial<Record<StatementLine, number | null>> = {},
): MetricsInput => ({
  quarter: 'Q2',
  price: 54,
  sharesOutstanding: 100,
  employees: 10,
  ...over,
  lines: { ...LINES, ...lines },
});

const ALL_NULL: DerivedMetrics = {
  peRatio: null,
  priceToBook: null,
  debtToEquity: null,
  returnOnAssets: null,
  returnOnEquity: null,
  revenuePerEmployee: null,
  roic: null,
  fcfYield: null,
  dso: null,
  dio: null,
  dpo: null,
};

describe('derivedMetrics', () => {
  it('a quarter annualizes flows ×4 and counts 91 days', () => {
    expect(derivedMetrics(input())).toEqual({
      peRatio: 10, // 54 / (1.35 × 4)
      priceToBook: 3, // 54 × 100 / 1800
      debtToEquity: 0.5, // 1000 / 2000
      returnOnAssets: 0.108, // 135 × 4 / 5000
      returnOnEquity: 0.27, // 135 × 4 / 2000
      revenuePerEmployee: 400, // 1000 × 4 / 10
      roic: 0.2, // 200 × (1 − 0.25) × 4 / (1000 + 2000)
      fcfYield: 0.1481, // (250 − 50) × 4 / 5400 = 0.148148…
      dso: 63.7, // 700 × 91 / 1000
      dio: 45.5, // 300 × 91 / 600
      dpo: 30.3, // 200 × 91 / 600 = 30.33…
    });
    for (const quarter of ['Q1', 'Q3', 'Q4'])
      expect(derivedMetrics(input({ quarter }))).toEqual(derivedMetrics(input()));
  });

  it('a fiscal year takes flows as they are and counts 365 days', () => {
    expect(derivedMetrics(input({ quarter: 'FY' }))).toEqual({
      peRatio: 40, // 54 / 1.35
      priceToBook: 3, // a position: the same as for a quarter
      debtToEquity: 0.5,
      returnOnAssets: 0.027, // 135 / 5000
      returnOnEquity: 0.0675, // 135 / 2000
      revenuePerEmployee: 100, // 1000 / 10
      roic: 0.05, // 150 / 3000
      fcfYield: 0.037, // 200 / 5400 = 0.037037…
      dso: 255.5, // 700 × 365 / 1000
      dio: 182.5, // 300 × 365 / 600
      dpo: 121.7, // 200 × 365 / 600 = 121.66…
    });
  });

  it('is null, not Infinity, for each zero denominator, and leaves the other metrics alone', () => {
    const base = derivedMetrics(input());
    const cases: [Partial<Record<StatementLine, number | null>>, (keyof DerivedMetrics)[]][] = [
      [{ DilutedEarningsPerShare: 0 }, ['peRatio']],
      [{ TotalEquityAttributableParent: 0 }, ['priceToBook']],
      // roic's denominator is debt + equity = 1000, so it stays: 600 / 1000
      [{ TotalEquity: 0 }, ['debtToEquity', 'returnOnEquity']],
      [{ TotalAssets: 0 }, ['returnOnAssets']],
      [{ TotalEquity: -1000 }, ['roic']],
      [{ Revenue: 0 }, ['dso']],
      [{ CostOfRevenue: 0 }, ['dio', 'dpo']],
    ];
    for (const [lines, nulls] of cases) {
      const m = derivedMetrics(input({}, lines));
      for (const key of Object.keys(base) as (keyof DerivedMetrics)[]) {
        if (nulls.includes(key)) expect(m[key], `${JSON.stringify(lines)} ${key}`).toBeNull();
        else expect(m[key], `${JSON.stringify(lines)} ${key}`).not.toBeNull();
      }
    }
    expect(derivedMetrics(input({}, { TotalEquity: 0 })).roic).toBe(0.6);
    // a zero result is 0, never -0 (which would print as 0 but compare unequal in Object.is)
    expect(Object.is(derivedMetrics(input({}, { Revenue: -0 })).revenuePerEmployee, 0)).toBe(true);
  });

  it('is null for the market metrics without a trade price, shares or employees (0 counts as none)', () => {
    for (const price of [null, 0, -5, Number.NaN]) {
      expect(derivedMetrics(input({ price })), String(price)).toMatchObject({
        peRatio: null,
        priceToBook: null,
        fcfYield: null,
        debtToEquity: 0.5,
      });
    }
    for (const sharesOutstanding of [null, 0]) {
      expect(derivedMetrics(input({ sharesOutstanding }))).toMatchObject({
        peRatio: 10,
        priceToBook: null,
        fcfYield: null,
      });
    }
    for (const employees of [null, 0]) expect(derivedMetrics(input({ employees })).revenuePerEmployee).toBeNull();
  });

  it('is null when a line it needs is missing or not finite, whatever the others', () => {
    expect(derivedMetrics(input({}, { TotalCurrentAssets: null })).dso).toBeNull();
    expect(derivedMetrics(input({}, { Inventories: undefined as unknown as null }))).toMatchObject({
      dso: null,
      dio: null,
      dpo: 30.3,
    });
    expect(derivedMetrics(input({}, { NetCashOperatingActivities: Number.POSITIVE_INFINITY })).fcfYield).toBeNull();
    expect(derivedMetrics(input({}, { IncomeTaxes: null })).roic).toBeNull();
    expect(derivedMetrics({ quarter: 'Q1', lines: {}, price: null, sharesOutstanding: null, employees: null })).toEqual(
      ALL_NULL,
    );
    // huge but finite inputs whose ratio overflows are null too
    const m = derivedMetrics(input({ price: 1e308 }, { DilutedEarningsPerShare: 1e-308 }));
    expect(m.peRatio).toBeNull();
    expect(derivedMetrics(input({ price: 1e307 }, { DilutedEarningsPerShare: 0.25 })).peRatio).toBeNull(); // finite ratio, infinite once rounded
    for (const v of Object.values(m)) expect(v === null || Number.isFinite(v)).toBe(true);
  });

  it('keeps the sign of a loss or of negative equity; takes capex as an outflow whichever its sign', () => {
    expect(derivedMetrics(input({}, { DilutedEarningsPerShare: -1.35 })).peRatio).toBe(-10);
    expect(derivedMetrics(input({}, { TotalEquity: -4000 })).debtToEquity).toBe(-0.25);
    expect(derivedMetrics(input({}, { PurchasePropertyPlantEquipment: 50 })).fcfYield).toBe(0.1481);
  });

  it('takes the effective tax rate, clamped to 0..1, and no tax when pre-tax income is zero or taxes are a charge on a loss', () => {
    // NOPAT = 200 × (1 − rate) × 4 over 3000
    expect(derivedMetrics(input({}, { IncomeBeforeIncomeTaxes: 0 })).roic).toBe(0.2667); // rate 0
    expect(derivedMetrics(input({}, { IncomeBeforeIncomeTaxes: -100, IncomeTaxes: -25 })).roic).toBe(0.2); // a benefit on a loss: 25%
    expect(derivedMetrics(input({}, { IncomeBeforeIncomeTaxes: -100, IncomeTaxes: 10 })).roic).toBe(0.2667); // −10% clamps to 0
    expect(derivedMetrics(input({}, { IncomeBeforeIncomeTaxes: 10, IncomeTaxes: 50 })).roic).toBe(0); // 500% clamps to 100%
  });
});
