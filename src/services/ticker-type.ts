// The ticker types as Massive's GET /v3/reference/tickers/types selects them, read from
// domain/ticker-types.ts (no table): one selection for the REST route and the GraphQL field.
import {
  TICKER_TYPES,
  type TickerType,
  type TickerTypeAssetClass,
  type TickerTypeLocale,
} from '../domain/ticker-types.js';

export type { TickerType, TickerTypeAssetClass, TickerTypeLocale };

/** Every ticker type there is: the longest list either entry point answers, and the size the cost analysis counts. */
export const MAX_TICKER_TYPES = TICKER_TYPES.length;

export interface TickerTypeFilter {
  assetClass?: TickerTypeAssetClass | undefined;
  locale?: TickerTypeLocale | undefined;
}

/** The ticker types `filter` selects, in Massive's order. */
export function tickerTypeList(filter: TickerTypeFilter): TickerType[] {
  return TICKER_TYPES.filter(
    (t) =>
      (filter.assetClass === undefined || t.asset_class === filter.assetClass) &&
      (filter.locale === undefined || t.locale === filter.locale),
  );
}
