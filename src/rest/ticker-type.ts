import { holdRows } from '../context.js';
import { TICKER_TYPE_ASSET_CLASSES, TICKER_TYPE_LOCALES } from '../domain/ticker-types.js';
import {
  MAX_TICKER_TYPES,
  tickerTypeList,
  type TickerType,
  type TickerTypeAssetClass,
  type TickerTypeLocale,
} from '../services/ticker-type.js';
import { arr, int, object, str, type JsonSchema } from './json-schema.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { json, shapeRows, type Route } from './route.js';

/** `asset_class`, `locale`, as Massive's GET /v3/reference/tickers/types takes them: docs/rest.md#parameters-per-route. */
export const TICKER_TYPE_PARAMS = {
  asset_class: {
    type: 'string',
    enum: TICKER_TYPE_ASSET_CLASSES,
    description: 'Only the ticker types of this asset class; only stocks and indices have types here.',
  },
  locale: { type: 'string', enum: TICKER_TYPE_LOCALES, description: 'Only the ticker types of this locale.' },
} as const satisfies ParamSpecs;

/** Massive's ticker type record: every key always present. */
export const TICKER_TYPE_SCHEMA: JsonSchema = object({
  asset_class: {
    type: 'string',
    enum: [...TICKER_TYPE_ASSET_CLASSES],
    description: 'The group of instruments of this type.',
  },
  code: str("Massive's code of the type: what a security's `type` holds (CS, ETF, ADRC ...)."),
  description: str('A short description of the type.'),
  locale: { type: 'string', enum: [...TICKER_TYPE_LOCALES], description: 'Where the instruments of this type list.' },
});

/** Massive's record, its keys in Massive's (alphabetical) order. */
const tickerTypeRecord = (t: TickerType): Record<string, unknown> => ({
  asset_class: t.asset_class,
  code: t.code,
  description: t.description,
  locale: t.locale,
});

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v3/reference/tickers/types',
    access: 'tickerTypes',
    async handle(ctx, url) {
      const p = parseQuery(TICKER_TYPE_PARAMS, url.searchParams);
      await holdRows(ctx, 'TickerType', MAX_TICKER_TYPES);
      const rows = tickerTypeList({
        assetClass: p.asset_class as TickerTypeAssetClass | undefined,
        locale: p.locale as TickerTypeLocale | undefined,
      });
      return json({
        count: rows.length,
        request_id: ctx.requestId,
        results: shapeRows(ctx, rows, tickerTypeRecord),
        status: 'OK',
      });
    },
    doc: {
      summary: 'Ticker types',
      description: `The codes of a security's \`type\` (CS, ETF, ADRC ...) with what each means, as Massive's GET /v3/reference/tickers/types answers them: the whole list at once, without pages (at most ${MAX_TICKER_TYPES}).`,
      query: TICKER_TYPE_PARAMS,
      response: object(
        {
          count: int('How many ticker types `results` holds.'),
          request_id: str('This request; also the X-Request-Id header.'),
          results: arr(TICKER_TYPE_SCHEMA),
          status: { const: 'OK' },
        },
        ['count', 'request_id', 'results', 'status'],
      ),
    },
  },
];
