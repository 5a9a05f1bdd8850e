// The legacy security document (GET /search/api/v1/securities's hits, rest/security-search.ts):
// flat dotted keys, each with its column of the security master and its JSON schema.
import type { Security } from '../services/security.js';
import { arr, bool, date, int, nullable, object, str, timestamp, type JsonSchema } from './json-schema.js';

type Kind = 'string' | 'date' | 'timestamp' | 'integer' | 'bigint' | 'boolean';

/** Every key of the legacy security document with its column; `required` ones are never null in the store. */
const DOCUMENT_FIELDS: readonly {
  key: string;
  column: keyof Security;
  kind: Kind;
  description: string;
  required?: true;
}[] = [
  { key: 'classification.gics', column: 'gics', kind: 'string', description: 'GICS sector name.' },
  { key: 'classification.gics_code', column: 'gicsCode', kind: 'string', description: 'GICS code.' },
  {
    key: 'classification.market_sector',
    column: 'marketSector',
    kind: 'string',
    description: 'Market sector, e.g. Equity.',
  },
  {
    key: 'classification.security_description',
    column: 'securityDescription',
    kind: 'string',
    description: 'Short description of the instrument.',
  },
  {
    key: 'classification.security_type',
    column: 'securityType',
    kind: 'string',
    description: 'Security type, e.g. Common Stock.',
  },
  {
    key: 'classification.security_type2',
    column: 'securityType2',
    kind: 'string',
    description: 'Secondary security type.',
  },
  {
    key: 'classification.sic_code',
    column: 'sicCode',
    kind: 'string',
    description: 'Standard Industrial Classification code.',
  },
  {
    key: 'classification.sic_description',
    column: 'sicDescription',
    kind: 'string',
    description: 'Description of the SIC code.',
  },
  { key: 'company_info.address.address1', column: 'address1', kind: 'string', description: 'Street address.' },
  { key: 'company_info.address.city', column: 'city', kind: 'string', description: 'City.' },
  { key: 'company_info.address.postal_code', column: 'postalCode', kind: 'string', description: 'Postal code.' },
  { key: 'company_info.address.state', column: 'state', kind: 'string', description: 'State or region.' },
  { key: 'company_info.description', column: 'description', kind: 'string', description: 'What the company does.' },
  { key: 'company_info.homepage_url', column: 'homepageUrl', kind: 'string', description: 'Company web site.' },
  { key: 'company_info.list_date', column: 'listDate', kind: 'date', description: 'Date of first listing.' },
  { key: 'company_info.phone_number', column: 'phoneNumber', kind: 'string', description: 'Main telephone number.' },
  {
    key: 'company_info.total_employees',
    column: 'totalEmployees',
    kind: 'integer',
    description: 'Number of employees.',
  },
  {
    key: 'exchange_info.exchange_country',
    column: 'exchangeCountry',
    kind: 'string',
    description: 'Country of the exchange.',
  },
  { key: 'exchange_info.exchange_name', column: 'exchangeName', kind: 'string', description: 'Exchange name.' },
  {
    key: 'exchange_info.mic_code',
    column: 'micCode',
    kind: 'string',
    required: true,
    description: 'ISO 10383 market identifier code (may be empty).',
  },
  {
    key: 'exchange_info.vendory_exchange_code',
    column: 'vendoryExchangeCode',
    kind: 'string',
    description: "The exchange's code at data vendor Y.",
  },
  {
    key: 'exchange_info.vendory_ticker',
    column: 'vendoryTicker',
    kind: 'string',
    description: 'The ticker at data vendor Y.',
  },
  {
    key: 'exchange_info.vendorx_exchange_code',
    column: 'vendorxExchangeCode',
    kind: 'string',
    description: "The exchange's code at data vendor X.",
  },
  {
    key: 'exchange_info.vendorx_exchange_name',
    column: 'vendorxExchangeName',
    kind: 'string',
    description: "The exchange's name at data vendor X.",
  },
  { key: 'financials.market_cap', column: 'marketCap', kind: 'bigint', description: 'Market capitalization.' },
  { key: 'financials.round_lot', column: 'roundLot', kind: 'integer', description: 'Round-lot size in shares.' },
  {
    key: 'financials.share_class_shares_outstanding',
    column: 'shareClassSharesOutstanding',
    kind: 'bigint',
    description: 'Shares outstanding of this share class.',
  },
  {
    key: 'financials.weighted_shares_outstanding',
    column: 'weightedSharesOutstanding',
    kind: 'bigint',
    description: 'Weighted shares outstanding.',
  },
  {
    key: 'identifiers.cik',
    column: 'cik',
    kind: 'string',
    description: 'SEC Central Index Key, zero-padded to 10 digits.',
  },
  { key: 'identifiers.cusip', column: 'cusip', kind: 'string', description: 'CUSIP.' },
  { key: 'identifiers.figi', column: 'figi', kind: 'string', required: true, description: 'FIGI of this listing.' },
  { key: 'identifiers.figi_composite', column: 'figiComposite', kind: 'string', description: 'Composite FIGI.' },
  { key: 'identifiers.figi_share_class', column: 'figiShareClass', kind: 'string', description: 'Share-class FIGI.' },
  { key: 'identifiers.isin', column: 'isin', kind: 'string', description: 'ISIN.' },
  { key: 'identifiers.opol', column: 'opol', kind: 'string', description: 'Operating MIC (OPOL).' },
  { key: 'identifiers.permid', column: 'permid', kind: 'string', description: 'PermID.' },
  { key: 'identifiers.ric', column: 'ric', kind: 'string', description: 'Reuters Instrument Code.' },
  {
    key: 'ticker_meta.active',
    column: 'active',
    kind: 'boolean',
    required: true,
    description: 'Whether the ticker is actively traded.',
  },
  { key: 'ticker_meta.currency_name', column: 'currencyName', kind: 'string', description: 'Trading currency.' },
  {
    key: 'ticker_meta.last_updated_utc',
    column: 'lastUpdatedUtc',
    kind: 'timestamp',
    description: 'When the ticker data last changed.',
  },
  { key: 'ticker_meta.locale', column: 'locale', kind: 'string', description: 'Locale, e.g. us.' },
  { key: 'ticker_meta.market', column: 'market', kind: 'string', description: 'Market, e.g. stocks.' },
  {
    key: 'ticker_meta.primary_exchange',
    column: 'primaryExchange',
    kind: 'string',
    description: 'Primary exchange MIC.',
  },
  { key: 'ticker_meta.ticker', column: 'ticker', kind: 'string', description: 'Ticker.' },
  { key: 'ticker_meta.ticker_root', column: 'tickerRoot', kind: 'string', description: 'Ticker root.' },
  { key: 'ticker_meta.type', column: 'type', kind: 'string', description: 'Ticker type code, e.g. CS.' },
  { key: 'id', column: 'id', kind: 'string', required: true, description: 'The record id, `<figi>_<mic>`.' },
  { key: 'name', column: 'name', kind: 'string', required: true, description: 'Security name.' },
  { key: 'status', column: 'status', kind: 'string', required: true, description: 'Record status, e.g. ACTIVE.' },
  { key: 'symbol', column: 'symbol', kind: 'string', required: true, description: 'Ticker symbol.' },
  {
    key: 'created_at',
    column: 'createdAt',
    kind: 'timestamp',
    required: true,
    description: 'When the record was created.',
  },
  {
    key: 'updated_at',
    column: 'updatedAt',
    kind: 'timestamp',
    required: true,
    description: 'When the record last changed.',
  },
];

function fieldSchema(kind: Kind, description: string): JsonSchema {
  switch (kind) {
    case 'string':
      return str(description);
    case 'date':
      return date(description);
    case 'timestamp':
      return timestamp(description);
    case 'integer':
    case 'bigint':
      return int(description);
    case 'boolean':
      return bool(description);
  }
}

/** The legacy security document: flat dotted keys; a value the store lacks is left out, except isin_history (nullable: null). */
export const SECURITY_DOCUMENT_SCHEMA = object(
  {
    ...Object.fromEntries(DOCUMENT_FIELDS.map((f) => [f.key, fieldSchema(f.kind, f.description)])),
    isin_history: {
      ...nullable(arr(str())),
      description: 'Earlier ISINs of the security; null when there are none on record.',
    },
  },
  [...DOCUMENT_FIELDS.filter((f) => f.required).map((f) => f.key), 'isin_history'],
);

export function securityDocument(s: Security): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const f of DOCUMENT_FIELDS) {
    const v = s[f.column];
    if (v === null || v === undefined) continue;
    doc[f.key] = v instanceof Date ? v.toISOString() : v;
  }
  doc.isin_history = s.isinHistory ?? null;
  return doc;
}
