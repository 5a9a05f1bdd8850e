// Exchanges: one item of `results`, as GET /stocks/v3/reference/exchanges returns it
// (src/rest/exchange.ts), which is Massive's GET /v3/reference/exchanges.
import { EXCHANGE_FIELDS } from '../../domain/records/exchange.js';
import type { Importer } from '../importer.js';
import { writeExchanges, type ExchangeInput } from '../../services/exchange.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

/** Massive leaves out the keys an exchange has no value for; they are stored as null. */
export function parseExchange(record: unknown): ExchangeInput {
  return parseRecord(EXCHANGE_FIELDS, f.record(record)) as ExchangeInput;
}

export const importer: Importer<ExchangeInput> = {
  resource: 'exchanges',
  recordsOf: (body) => f.listIn(body, 'results'),
  parse: parseExchange,
  key: (row) => String(row.id),
  write: writeExchanges,
};
