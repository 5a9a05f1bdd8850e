// Fiscal periods and calendar dates as every filter and the import take them: REST parameters,
// GraphQL arguments through the services, and imported records agree on these.

/** The fiscal years a filter or a record may name. */
export const FISCAL_YEARS = { min: 1900, max: 2100 } as const;

export function isFiscalYear(value: number): boolean {
  return Number.isInteger(value) && value >= FISCAL_YEARS.min && value <= FISCAL_YEARS.max;
}

/** A fiscal quarter, or the full fiscal year (the FiscalPeriod enum of prisma/schema.prisma). */
export const FISCAL_PERIODS = ['Q1', 'Q2', 'Q3', 'Q4', 'FY'] as const;

/** `yyyy-mm-dd` naming a day that exists: 2026-02-30 parses in JavaScript (as March 2) but is not a date. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
}
