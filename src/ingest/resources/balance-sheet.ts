// Balance sheets: one item of `results`, as GET /stocks/v1/fundamentals/balance-sheet
// returns it (src/rest/balance-sheet.ts).
import { BALANCE_SHEET_FIELDS } from '../../domain/records/balance-sheet.js';
import type { Importer } from '../importer.js';
import { balanceSheetKey, writeBalanceSheets, type BalanceSheetInput } from '../../services/balance-sheet.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

export function parseBalanceSheet(record: unknown): BalanceSheetInput {
  return parseRecord(BALANCE_SHEET_FIELDS, f.record(record)) as BalanceSheetInput;
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
