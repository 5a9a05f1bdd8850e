// Exchanges: one item of `results`, as GET /stocks/v3/reference/exchanges returns it
// (src/rest/exchange.ts), which is Massive's GET /v3/reference/exchanges.
import type { Importer } from '../importer.js';
import { ASSET_CLASSES, LOCALES, writeExchanges, type ExchangeInput } from '../../services/exchange.js';
import * as f from '../record-fields.js';

/** An ISO 10383 MIC: four letters or digits (24X's is 24EQ). */
function optMic(value: unknown, field: string): string | null {
  const mic = f.optString(value, field);
  if (mic !== null && !/^[A-Z0-9]{4}$/.test(mic)) throw f.reject(field, 'a MIC of four letters or digits', mic);
  return mic;
}

/** Massive leaves out the keys an exchange has no value for; they are stored as null. */
export function parseExchange(record: unknown): ExchangeInput {
  const rec = f.record(record);
  return {
    id: f.integer(rec.id, 'id', 1),
    // exchange, TRF, SIP as Massive documents it, and ORF, which it answers too: kept as given
    type: f.nonEmpty(rec.type, 'type'),
    assetClass: f.oneOf(rec.asset_class, 'asset_class', ASSET_CLASSES),
    locale: f.oneOf(rec.locale, 'locale', LOCALES),
    name: f.nonEmpty(rec.name, 'name'),
    acronym: f.optString(rec.acronym, 'acronym'),
    mic: optMic(rec.mic, 'mic'),
    operatingMic: optMic(rec.operating_mic, 'operating_mic'),
    participantId: f.optString(rec.participant_id, 'participant_id'),
    url: f.optString(rec.url, 'url', 'url'),
  };
}

export const importer: Importer<ExchangeInput> = {
  resource: 'exchanges',
  recordsOf: (body) => f.listIn(body, 'results'),
  parse: parseExchange,
  key: (row) => String(row.id),
  write: writeExchanges,
};
