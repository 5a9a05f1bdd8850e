// Securities: one record is a search hit's `document`, flat dotted keys, as
// GET /search/api/v1/securities returns them (src/rest/security.ts); keys it leaves out are null.
import { SECURITY_FIELDS } from '../../domain/records/security.js';
import type { Importer } from '../importer.js';
import { writeSecurities, type SecurityInput } from '../../services/security-write.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

export function parseSecurity(record: unknown): SecurityInput {
  // a whole hit ({ document, highlight, highlights }) is taken as its document
  const hit = f.record(record);
  const doc = 'document' in hit && !('id' in hit) ? f.object(hit.document, 'document') : hit;
  const figi = f.nonEmpty(doc['identifiers.figi'], 'identifiers.figi');
  const mic = f.string(doc['exchange_info.mic_code'], 'exchange_info.mic_code');
  const id = f.string(doc.id, 'id');
  if (id !== `${figi}_${mic}`)
    throw f.reject('id', `<identifiers.figi>_<exchange_info.mic_code> (${JSON.stringify(`${figi}_${mic}`)})`, id);
  return parseRecord(SECURITY_FIELDS, doc, {
    // opaque JSON as stored: held to the JSON limit too
    isin_history: (d) => ({
      isinHistory:
        d.isin_history === undefined || d.isin_history === null
          ? null
          : f.anyJson(f.strings(d.isin_history, 'isin_history'), 'isin_history'),
    }),
  }) as SecurityInput;
}

/** The documents of a search response (`{ data: { hits } }`, or Typesense's own `{ hits }`), or a bare array. */
function recordsOf(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return null;
  const data = (body as { data?: unknown }).data;
  const hits =
    typeof data === 'object' && data !== null ? (data as { hits?: unknown }).hits : (body as { hits?: unknown }).hits;
  if (!Array.isArray(hits)) return null;
  return hits.map((h: unknown) =>
    typeof h === 'object' && h !== null && 'document' in h ? (h as { document: unknown }).document : h,
  );
}

export const importer: Importer<SecurityInput> = {
  resource: 'securities',
  recordsOf,
  parse: parseSecurity,
  key: (row) => row.id,
  write: writeSecurities,
  highWater: (row) => f.isoOf(row.updatedAt),
};
