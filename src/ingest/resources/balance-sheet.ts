// Balance sheets: one item of `results`, as GET /stocks/v1/fundamentals/balance-sheet
// returns it (src/rest/balance-sheet.ts).
import { BALANCE_SHEET_OPTIONAL, BALANCE_SHEET_REQUIRED, camelOf } from '../../domain/fundamentals.js';
import type { Importer } from '../importer.js';
import { FISCAL_YEARS } from '../../domain/fiscal.js';
import {
  balanceSheetKey,
  writeBalanceSheets,
  type BalanceSheetInput,
  type Timeframe,
} from '../../services/balance-sheet.js';
import * as f from '../record-fields.js';

const TIMEFRAMES = ['quarterly', 'annual', 'trailing_twelve_months'] as const satisfies readonly Timeframe[];

export function parseBalanceSheet(record: unknown): BalanceSheetInput {
  const rec = f.record(record);
  const row: Record<string, unknown> = {
    cik: f.cik(rec.cik, 'cik'),
    symbols: f.symbols(rec.symbols, 'symbols', 'shareClasses'),
    fiscalYear: f.integer(rec.fiscal_year, 'fiscal_year', FISCAL_YEARS.min, FISCAL_YEARS.max),
    fiscalQuarter: f.integer(rec.fiscal_quarter, 'fiscal_quarter', 1, 4),
    reportingPeriodEnd: f.date(rec.reporting_period_end, 'reporting_period_end'),
    timeframe: f.oneOf(rec.timeframe, 'timeframe', TIMEFRAMES),
  };
  for (const field of BALANCE_SHEET_REQUIRED) row[camelOf(field)] = f.number(rec[field], field);
  for (const field of BALANCE_SHEET_OPTIONAL) row[camelOf(field)] = f.optNumber(rec[field], field);
  return row as BalanceSheetInput;
}

export const importer: Importer<BalanceSheetInput> = {
  resource: 'balance-sheets',
  recordsOf: (body) => f.listIn(body, 'results'),
  parse: parseBalanceSheet,
  key: balanceSheetKey,
  write: writeBalanceSheets,
  // the record carries no timestamp: the newest period end is how far a feed has got
  highWater: (row) => row.reportingPeriodEnd,
};
