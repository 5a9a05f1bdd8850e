import { NEWS_FIELDS } from '../domain/records/news.js';
import { newsAtPage, type NewsItem } from '../services/news.js';
import { holdRows } from '../context.js';
import { recordSchema, recordShaper } from './record-table.js';
import { parseQuery, symbolParam, type ParamSpecs } from './params.js';
import { dataEnvelope, dataResponse, PAGE_PARAMS } from './page-number.js';
import { shapeRows, type Route } from './route.js';

/** The parameters of the legacy news route. */
export const NEWS_PARAMS = {
  symbol: {
    type: 'string',
    required: true,
    maxLength: 20,
    description: 'Ticker symbol: 1 to 20 characters of A-Z 0-9 . - (case-insensitive).',
  },
  ...PAGE_PARAMS,
  share_class_figi: {
    type: 'string',
    pattern: /^[A-Za-z0-9]{12}$/,
    description: 'Only items with this share-class FIGI (12 characters of A-Z 0-9, case-insensitive).',
  },
  type: { type: 'string', enum: ['gainers', 'losers'], description: 'Only gainers or only losers.' },
  id: { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'Only the item with this id.' },
  securities: {
    type: 'boolean',
    default: true,
    description: 'Whether each item carries its `securities` array (true, the default); false leaves the key out.',
  },
} as const satisfies ParamSpecs;

/** The legacy news record; `securities` is the one key a request may leave out. */
export const NEWS_SCHEMA = recordSchema(NEWS_FIELDS);

const shapeNews = recordShaper<NewsItem>(NEWS_FIELDS);

export function newsRecord(n: NewsItem, withSecurities: boolean): Record<string, unknown> {
  const record = shapeNews(n);
  if (!withSecurities) delete record.securities;
  return record;
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/news/api/v1/news',
    access: 'news',
    async handle(ctx, url) {
      const p = parseQuery(NEWS_PARAMS, url.searchParams);
      await holdRows(ctx, 'NewsItem', p.page_size);
      const filter = {
        symbol: symbolParam('symbol', p.symbol),
        type: p.type as 'gainers' | 'losers' | undefined,
        shareClassFigi: p.share_class_figi,
        id: p.id,
      };
      const { nodes, totalCount } = await newsAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
      return dataResponse(
        shapeRows(ctx, nodes, (n) => newsRecord(n, p.securities)),
        totalCount,
      );
    },
    doc: {
      summary: 'Curated news about a symbol',
      description:
        'News items about one symbol, newest first (by created_at, then id). Every filter given applies. The answer carries no total: ' +
        'a page with fewer than page_size items (or none) is the last one; the X-Total-Count header counts every matching item. An unknown symbol has no news: an empty list, not a 404.',
      query: NEWS_PARAMS,
      response: dataEnvelope(NEWS_SCHEMA),
    },
  },
];
