// Query.tickerTypes: what the codes of a security's `type` mean (services/ticker-type.ts), the
// GraphQL twin of GET /stocks/v3/reference/tickers/types (rest/ticker-type.ts). A list answered whole.
import { builder } from '../builder.js';
import { TICKER_TYPE_ASSET_CLASSES } from '../domain/ticker-types.js';
import {
  MAX_TICKER_TYPES,
  tickerTypeList,
  type TickerType,
  type TickerTypeAssetClass,
} from '../services/ticker-type.js';
import { listOf } from './common.js';
import { LocaleEnum } from './exchange.js';

const TickerTypeAssetClassEnum = builder.enumType('TickerTypeAssetClass', {
  description: 'The group of instruments a ticker type belongs to (REST `asset_class`, in lower case).',
  values: Object.fromEntries(TICKER_TYPE_ASSET_CLASSES.map((value) => [value.toUpperCase(), { value }])) as Record<
    Uppercase<TickerTypeAssetClass>,
    { value: TickerTypeAssetClass }
  >,
});

export const TickerTypeRef = builder.objectRef<TickerType>('TickerType').implement({
  description:
    "A ticker type as Massive's GET /v3/reference/tickers/types lists it: what a code in `Security.tickerMeta.type` (CS, ETF, ADRC ...) means.",
  fields: (t) => ({
    code: t.exposeString('code', {
      description: "Massive's code of the type, as `Security.tickerMeta.type` holds it.",
    }),
    description: t.exposeString('description', { description: 'A short description of the type.' }),
    assetClass: t.field({
      type: TickerTypeAssetClassEnum,
      description: 'The group of instruments of this type.',
      resolve: (r) => r.asset_class,
    }),
    locale: t.field({
      type: LocaleEnum,
      description: 'Where the instruments of this type list.',
      resolve: (r) => r.locale,
    }),
  }),
});

builder.queryField('tickerTypes', (t) =>
  t.field({
    authScopes: { entitled: 'tickerTypes' },
    nullable: true,
    type: [TickerTypeRef],
    description: `The ticker types, in Massive's order: the whole list at once, without pages, at most ${MAX_TICKER_TYPES} (REST GET /stocks/v3/reference/tickers/types).`,
    extensions: listOf(MAX_TICKER_TYPES),
    args: {
      assetClass: t.arg({ type: TickerTypeAssetClassEnum, description: 'Only the ticker types of this asset class.' }),
      locale: t.arg({ type: LocaleEnum, description: 'Only the ticker types of this locale.' }),
    },
    resolve: (_root, args) =>
      tickerTypeList({ assetClass: args.assetClass ?? undefined, locale: args.locale ?? undefined }),
  }),
);
