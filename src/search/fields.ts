import type { SearchField } from './syntax.js';

/** A field and its column: of "Security", or with `metrics` of "SecurityMetrics" (the symbol's latest enhanced fundamentals). */
export type SecurityField = SearchField & { column: string; metrics?: true };

const FIELDS: readonly SecurityField[] = [
  { name: 'symbol', column: 'symbol', kind: 'string', sort: true },
  { name: 'name', column: 'name', kind: 'string', sort: true },
  { name: 'exchange_info.mic_code', column: 'micCode', kind: 'string', facet: true },
  { name: 'exchange_info.exchange_country', column: 'exchangeCountry', kind: 'string', facet: true },
  { name: 'classification.gics', column: 'gics', kind: 'string', facet: true },
  { name: 'classification.gics_code', column: 'gicsCode', kind: 'string' },
  { name: 'classification.security_type', column: 'securityType', kind: 'string', facet: true },
  { name: 'classification.market_sector', column: 'marketSector', kind: 'string', facet: true },
  { name: 'ticker_meta.active', column: 'active', kind: 'boolean', facet: true },
  { name: 'ticker_meta.type', column: 'type', kind: 'string' },
  { name: 'financials.market_cap', column: 'marketCap', kind: 'number', facet: true, sort: true },
  { name: 'company_info.total_employees', column: 'totalEmployees', kind: 'number', sort: true },
  { name: 'company_info.state', column: 'state', kind: 'string' },
  // the latest enhanced fundamentals of the symbol, kept beside the master (services/security-index.ts)
  ...(
    [
      ['metrics.pe_ratio', 'peRatio'],
      ['metrics.price_to_book', 'priceToBook'],
      ['metrics.debt_to_equity', 'debtToEquity'],
      ['metrics.return_on_equity', 'returnOnEquity'],
      ['metrics.return_on_assets', 'returnOnAssets'],
      ['metrics.roic', 'roic'],
      ['metrics.fcf_yield', 'fcfYield'],
    ] as const
  ).map(([name, column]) => ({ name, column, kind: 'number' as const, sort: true, metrics: true as const })),
];

/**
 * The security master's fields that filter_by, sort_by and facet_by may name (search/syntax.ts),
 * by their REST names (rest/security.ts), each with its Security column.
 */
export const SECURITY_SEARCH_FIELDS: ReadonlyMap<string, SecurityField> = new Map(FIELDS.map((f) => [f.name, f]));
