// Dividends: one item of `results`, as GET /stocks/v3/reference/dividends returns it
// (src/rest/dividend.ts), which is Massive's GET /v3/reference/dividends.
import { DIVIDEND_FIELDS, FREQUENCIES } from '../../domain/records/dividend.js';
import type { Importer } from '../importer.js';
import { writeDividends, type DividendInput } from '../../services/dividend.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

/** Massive leaves out the keys a dividend has no value for; they are stored as null. */
export function parseDividend(record: unknown): DividendInput {
  return parseRecord(DIVIDEND_FIELDS, f.record(record), {
    frequency: (rec) => {
      const n = f.integer(rec.frequency, 'frequency');
      if (!(FREQUENCIES as readonly number[]).includes(n))
        throw f.reject('frequency', `one of ${FREQUENCIES.join(', ')}`, n);
      return { frequency: n };
    },
  }) as DividendInput;
}

export const importer: Importer<DividendInput> = {
  resource: 'dividends',
  recordsOf: (body) => f.listIn(body, 'results'),
  parse: parseDividend,
  key: (row) => row.id,
  write: writeDividends,
};
