import { holdRows } from '../context.js';
import { ASSET_CLASSES, EXCHANGE_FIELDS, LOCALES } from '../domain/records/exchange.js';
import { exchangeList, MAX_EXCHANGES, type AssetClass, type Exchange, type Locale } from '../services/exchange.js';
import { arr, int, object, str, type JsonSchema } from './json-schema.js';
import { recordSchema, recordShaper } from './record-table.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { json, shapeRows, type Route } from './route.js';

/** `asset_class`, `locale`, as Massive's GET /v3/reference/exchanges takes them: docs/rest.md#parameters-per-route. */
export const EXCHANGE_PARAMS = {
  asset_class: { type: 'string', enum: ASSET_CLASSES, description: 'Only the exchanges of this asset class.' },
  locale: { type: 'string', enum: LOCALES, description: 'Only the exchanges of this locale.' },
} as const satisfies ParamSpecs;

/** Massive's exchange record; the optional keys are absent (never null) where the exchange has none. */
export const EXCHANGE_SCHEMA: JsonSchema = recordSchema(EXCHANGE_FIELDS);

/** Massive's exchange record, its keys as Massive spells and orders them. */
export const exchangeRecord: (e: Exchange) => Record<string, unknown> = recordShaper(EXCHANGE_FIELDS);

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v3/reference/exchanges',
    access: 'exchanges',
    async handle(ctx, url) {
      const p = parseQuery(EXCHANGE_PARAMS, url.searchParams);
      await holdRows(ctx, 'Exchange', MAX_EXCHANGES);
      const rows = await exchangeList(ctx.db, {
        assetClass: p.asset_class as AssetClass | undefined,
        locale: p.locale as Locale | undefined,
      });
      return json({
        count: rows.length,
        request_id: ctx.requestId,
        results: shapeRows(ctx, rows, exchangeRecord),
        status: 'OK',
      });
    },
    doc: {
      summary: 'Exchanges',
      description: `The exchanges, trade reporting facilities and SIPs, by Massive's id, as Massive's GET /v3/reference/exchanges answers them: the whole list at once, without pages (at most ${MAX_EXCHANGES}).`,
      query: EXCHANGE_PARAMS,
      response: object({
        count: int('How many exchanges `results` holds.'),
        request_id: str('This request; also the X-Request-Id header.'),
        results: arr(EXCHANGE_SCHEMA),
        status: { const: 'OK' },
      }),
    },
  },
];
