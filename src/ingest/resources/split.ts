// Splits: one item of `results`, as GET /stocks/v3/reference/splits returns it (src/rest/split.ts),
// which is Massive's GET /v3/reference/splits.
import { SPLIT_FIELDS } from '../../domain/records/split.js';
import type { Importer } from '../importer.js';
import { writeSplits, type SplitInput } from '../../services/split.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

/** A share count of the ratio: every price before the split is divided by to/from, so neither may be 0. */
const positive = (key: string, column: string) => (rec: f.Rec) => {
  const n = f.number(rec[key], key);
  if (!(n > 0)) throw f.reject(key, 'a number greater than 0', n);
  return { [column]: n };
};

export function parseSplit(record: unknown): SplitInput {
  return parseRecord(SPLIT_FIELDS, f.record(record), {
    split_from: positive('split_from', 'splitFrom'),
    split_to: positive('split_to', 'splitTo'),
  }) as SplitInput;
}

export const importer: Importer<SplitInput> = {
  resource: 'splits',
  recordsOf: (body) => f.listIn(body, 'results'),
  parse: parseSplit,
  key: (row) => row.id,
  write: writeSplits,
};
