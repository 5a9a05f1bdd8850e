// Conference-call summaries (docs/rest.md): one item of `data`, as GET /delivery/api/v1/summaries
// returns it (src/rest/call-summary.ts).
import type { Importer } from '../importer.js';
import { callSummaryKey, writeCallSummaries, type CallSummaryInput } from '../../services/call-summary.js';
import { CALL_SUMMARY_FIELDS } from '../../domain/records/call-summary.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

export function parseCallSummary(record: unknown): CallSummaryInput {
  return parseRecord(CALL_SUMMARY_FIELDS, f.record(record)) as CallSummaryInput;
}

export const importer: Importer<CallSummaryInput> = {
  resource: 'call-summaries',
  recordsOf: (body) => f.listIn(body, 'data'),
  parse: parseCallSummary,
  key: callSummaryKey,
  write: writeCallSummaries,
  // the route filters by call time (from/to)
  highWater: (row) => row.callDate.toISOString(),
};
