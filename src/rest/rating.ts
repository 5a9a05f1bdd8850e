import { ratingAtPage, type Rating } from '../services/rating.js';
import { holdRows } from '../context.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { RATING_FIELDS } from '../domain/records/rating.js';
import { recordSchema, recordShaper } from './record-table.js';
import { checkOrder, parseQuery, symbolList, timeBound, type ParamSpecs } from './params.js';
import { dataEnvelope, dataResponse, MAX_PAGE } from './page-number.js';
import { shapeRows, type Route } from './route.js';

const FREE_TEXT_MAX = 200;

/** Every parameter optional; names as the legacy API gives them, formats from docs/rest.md#parameters-per-route. */
export const RATING_PARAMS = {
  id: { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'Only the rating with this id.' },
  exchange: {
    type: 'string',
    maxLength: FREE_TEXT_MAX,
    description: 'Only ratings of stocks on this exchange (exact match in any case, e.g. NYSE).',
  },
  company: {
    type: 'string',
    maxLength: FREE_TEXT_MAX,
    description: 'Only ratings of this company (exact match on its name, in any case).',
  },
  firm: {
    type: 'string',
    maxLength: FREE_TEXT_MAX,
    description: 'Only ratings by this research firm (exact match, in any case).',
  },
  symbol: {
    type: 'string',
    pattern: /^[A-Za-z0-9.,-]+$/,
    maxLength: 2100,
    description:
      'Only ratings of these tickers: one symbol or a comma list of up to 100, each 1 to 20 characters of A-Z 0-9 . - (case-insensitive).',
  },
  from: timeBound('start', 'Only ratings published at or after this time.'),
  to: timeBound('end', 'Only ratings published at or before this time.'),
  page: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: 'Page number, 1-based (at most 1000000). A page past the end has an empty data list.',
  },
  page_size: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE_SIZES.records.max,
    default: PAGE_SIZES.records.default,
    description: `Ratings per page, 1 to ${PAGE_SIZES.records.max}.`,
  },
} as const satisfies ParamSpecs;

/** The legacy rating record, keys as the legacy API spells them. */
export const RATING_SCHEMA = recordSchema(RATING_FIELDS);

export const ratingRecord: (r: Rating) => Record<string, unknown> = recordShaper(RATING_FIELDS);

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/rating/api/v1/ratings',
    access: 'ratings',
    async handle(ctx, url) {
      const p = parseQuery(RATING_PARAMS, url.searchParams);
      await holdRows(ctx, 'Rating', p.page_size);
      checkOrder(p.from, p.to, url.searchParams);
      const filter = {
        id: p.id,
        exchange: p.exchange,
        company: p.company,
        firm: p.firm,
        symbols: p.symbol === undefined ? undefined : symbolList('symbol', p.symbol),
        from: p.from,
        to: p.to,
      };
      const { nodes, totalCount } = await ratingAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
      return dataResponse(shapeRows(ctx, nodes, ratingRecord), totalCount);
    },
    doc: {
      summary: 'Analyst ratings',
      description:
        'Ratings newest first (by created_at, then id). Every filter given applies. The answer carries no total: ' +
        'a page with fewer than page_size ratings (or none) is the last one; the X-Total-Count header counts every matching rating.',
      query: RATING_PARAMS,
      response: dataEnvelope(RATING_SCHEMA),
    },
  },
];
