// Securities: one record is a search hit's `document`, flat dotted keys, as
// GET /search/api/v1/securities returns them (src/rest/security.ts); keys it leaves out are null.
import type { TextKind } from '../../domain/limits.js';
import type { Importer } from '../importer.js';
import { writeSecurities, type SecurityInput } from '../../services/security-write.js';
import * as f from '../record-fields.js';

type Kind = 'string' | 'date' | 'timestamp' | 'integer' | 'bigint' | 'cik';

/** The optional document keys by kind; each column is the camelCase of the key's last segment. */
const OPTIONAL: Record<Kind, readonly string[]> = {
  string: [
    'classification.gics',
    'classification.gics_code',
    'classification.market_sector',
    'classification.security_description',
    'classification.security_type',
    'classification.security_type2',
    'classification.sic_code',
    'classification.sic_description',
    'company_info.address.address1',
    'company_info.address.city',
    'company_info.address.postal_code',
    'company_info.address.state',
    'company_info.description',
    'company_info.homepage_url',
    'company_info.phone_number',
    'exchange_info.exchange_country',
    'exchange_info.exchange_name',
    'exchange_info.vendory_exchange_code',
    'exchange_info.vendory_ticker',
    'exchange_info.vendorx_exchange_code',
    'exchange_info.vendorx_exchange_name',
    'identifiers.cusip',
    'identifiers.figi_composite',
    'identifiers.figi_share_class',
    'identifiers.isin',
    'identifiers.opol',
    'identifiers.permid',
    'identifiers.ric',
    'ticker_meta.currency_name',
    'ticker_meta.locale',
    'ticker_meta.market',
    'ticker_meta.primary_exchange',
    'ticker_meta.ticker',
    'ticker_meta.ticker_root',
    'ticker_meta.type',
  ],
  date: ['company_info.list_date'],
  timestamp: ['ticker_meta.last_updated_utc'],
  integer: ['company_info.total_employees', 'financials.round_lot'],
  bigint: [
    'financials.market_cap',
    'financials.share_class_shares_outstanding',
    'financials.weighted_shares_outstanding',
  ],
  cik: ['identifiers.cik'],
};

/** The optional text keys that are not short. */
const TEXT_KINDS: Readonly<Record<string, TextKind>> = {
  'company_info.description': 'long',
  'company_info.homepage_url': 'url',
};

const columnOf = (key: string) =>
  key
    .split('.')
    .at(-1)!
    .replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function optional(kind: Kind, value: unknown, key: string): unknown {
  switch (kind) {
    case 'string':
      return f.optString(value, key, TEXT_KINDS[key]);
    case 'date':
      return f.optDate(value, key);
    case 'timestamp':
      return value === undefined || value === null ? null : f.timestamp(value, key);
    case 'integer':
      return f.optInteger(value, key, 0);
    case 'bigint':
      return f.optBigInteger(value, key);
    case 'cik':
      return f.optCik(value, key);
  }
}

export function parseSecurity(record: unknown): SecurityInput {
  // a whole hit ({ document, highlight, highlights }) is taken as its document
  const hit = f.record(record);
  const doc = 'document' in hit && !('id' in hit) ? f.object(hit.document, 'document') : hit;
  const figi = f.nonEmpty(doc['identifiers.figi'], 'identifiers.figi');
  const mic = f.string(doc['exchange_info.mic_code'], 'exchange_info.mic_code');
  const id = f.string(doc.id, 'id');
  if (id !== `${figi}_${mic}`)
    throw f.reject('id', `<identifiers.figi>_<exchange_info.mic_code> (${JSON.stringify(`${figi}_${mic}`)})`, id);
  const isinHistory =
    doc.isin_history === undefined || doc.isin_history === null
      ? null
      : f.anyJson(f.strings(doc.isin_history, 'isin_history'), 'isin_history');
  const row: Record<string, unknown> = {
    id,
    figi,
    micCode: mic,
    symbol: f.symbol(doc.symbol, 'symbol'),
    name: f.string(doc.name, 'name'),
    status: f.nonEmpty(doc.status, 'status'),
    active: f.boolean(doc['ticker_meta.active'], 'ticker_meta.active'),
    isinHistory,
    createdAt: f.optTimestamp(doc.created_at, 'created_at'),
    updatedAt: f.optTimestamp(doc.updated_at, 'updated_at'),
  };
  for (const [kind, keys] of Object.entries(OPTIONAL) as [Kind, readonly string[]][]) {
    for (const key of keys) row[columnOf(key)] = optional(kind, doc[key], key);
  }
  return row as SecurityInput;
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
