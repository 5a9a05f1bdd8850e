/**
 * The ticker types as Massive serves them at /v3/reference/tickers/types: the codes a security's
 * `type` holds (the sample's securities are all CS), each with Massive's description, asset class
 * and locale. The codes are those of the `type` filter of Massive's GET /v3/reference/tickers (the
 * official client's ListTickersTypeEnum) and the two newer ones Massive also answers (ETV, ETS);
 * field names are Massive's.
 */

/** Massive's documented values of a ticker type's `asset_class`. */
export const TICKER_TYPE_ASSET_CLASSES = ['stocks', 'options', 'crypto', 'fx', 'indices'] as const;
export type TickerTypeAssetClass = (typeof TICKER_TYPE_ASSET_CLASSES)[number];

/** Massive's documented values of a ticker type's `locale`. */
export const TICKER_TYPE_LOCALES = ['us', 'global'] as const;
export type TickerTypeLocale = (typeof TICKER_TYPE_LOCALES)[number];

export interface TickerType {
  readonly asset_class: TickerTypeAssetClass;
  readonly code: string;
  readonly description: string;
  readonly locale: TickerTypeLocale;
}

const stock = (code: string, description: string): TickerType => ({
  asset_class: 'stocks',
  code,
  description,
  locale: 'us',
});

/** In Massive's order: the US stock types, then the index type. */
export const TICKER_TYPES: readonly TickerType[] = [
  stock('CS', 'Common Stock'),
  stock('PFD', 'Preferred Stock'),
  stock('WARRANT', 'Warrant'),
  stock('RIGHT', 'Rights'),
  stock('BOND', 'Corporate Bond'),
  stock('ETF', 'Exchange Traded Fund'),
  stock('ETN', 'Exchange Traded Note'),
  stock('ETV', 'Exchange Traded Vehicle'),
  stock('SP', 'Structured Product'),
  stock('ADRC', 'American Depository Receipt Common'),
  stock('ADRP', 'American Depository Receipt Preferred'),
  stock('ADRW', 'American Depository Receipt Warrants'),
  stock('ADRR', 'American Depository Receipt Rights'),
  stock('FUND', 'Fund'),
  stock('BASKET', 'Basket'),
  stock('UNIT', 'Unit'),
  stock('LT', 'Liquidating Trust'),
  stock('OS', 'Ordinary Shares'),
  stock('GDR', 'Global Depository Receipts'),
  stock('OTHER', 'Other Security Type'),
  stock('NYRS', 'New York Registry Shares'),
  stock('AGEN', 'Agency Bond'),
  stock('EQLK', 'Equity Linked Bond'),
  stock('ETS', 'Single-security ETF'),
  { asset_class: 'indices', code: 'INDEX', description: 'Index', locale: 'us' },
];
