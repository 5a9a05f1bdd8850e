import { associatedIds, newsAtPage, type NewsItem } from '../services/news.js';
import { holdRows } from '../context.js';
import { arr, bool, int, object, str, timestamp } from './json-schema.js';
import { parseQuery, symbolParam, type ParamSpecs } from './params.js';
import { dataEnvelope, dataResponse, PAGE_PARAMS } from './page-number.js';
import type { Route } from './route.js';

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

const NEWS_SECURITY_SCHEMA = object({
  figi: str('FIGI of the listing.'),
  name: str('Security name.'),
  MIC: str('ISO 10383 market identifier code of the exchange.'),
  exchcode: str('Exchange code.'),
  ticker: str('Ticker symbol.'),
  compositefigi: str('Composite FIGI.'),
  securitytype: str('Security type, e.g. Common Stock.'),
  marketsector: str('Market sector, e.g. Equity.'),
  shareclassfigi: str('Share-class FIGI.'),
});

const NEWS_PROPERTIES = {
  id: int('The news item id.'),
  news_id: { type: 'string', format: 'uuid', description: 'The news story id (a UUID).' },
  headline: str('Headline.'),
  catalyst: str('What moved the stock, e.g. Earnings.'),
  catalyst_created: bool('Whether the catalyst was created for this item.'),
  associated_press_releases: arr(int(), 'Ids of the press releases behind the item.'),
  associated_ratings: arr({}, 'The analyst ratings behind the item, as given (rating ids in practice).'),
  associated_transcripts: arr(
    {},
    'The conference-call transcripts behind the item, as given (summary ids in practice).',
  ),
  logo_exists: bool('Whether a logo exists for the stock.'),
  logo_thumbnail_url: str('Address of the logo thumbnail.'),
  on_all_tickers: bool('Whether the item applies to every ticker of the issuer.'),
  on_entities: bool('Whether the item is linked to entities.'),
  share_class_figi: str('Share-class FIGI of the stock.'),
  ticker: str('Ticker symbol of the stock.'),
  type: { type: 'string', enum: ['gainers', 'losers'], description: 'Whether the stock rose or fell.' },
  created_at: timestamp('When the item was published (ISO 8601 UTC).'),
  updated_at: timestamp('When the item last changed (ISO 8601 UTC).'),
  securities: arr(
    NEWS_SECURITY_SCHEMA,
    'The securities the item is about, in feed order; left out when securities=false.',
  ),
};

/** The legacy news record; `securities` is the one key a request may leave out. */
export const NEWS_SCHEMA = object(
  NEWS_PROPERTIES,
  Object.keys(NEWS_PROPERTIES).filter((k) => k !== 'securities'),
);

/** A JSON array column as stored; anything but an array reads as an empty one. */
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function newsRecord(n: NewsItem, withSecurities: boolean): Record<string, unknown> {
  return {
    id: n.id,
    news_id: n.newsId,
    headline: n.headline,
    catalyst: n.catalyst,
    catalyst_created: n.catalystCreated,
    associated_press_releases: associatedIds(n.associatedPressReleases),
    associated_ratings: list(n.associatedRatings),
    associated_transcripts: list(n.associatedTranscripts),
    logo_exists: n.logoExists,
    logo_thumbnail_url: n.logoThumbnailUrl,
    on_all_tickers: n.onAllTickers,
    on_entities: n.onEntities,
    share_class_figi: n.shareClassFigi,
    ticker: n.ticker,
    type: n.type,
    created_at: n.createdAt.toISOString(),
    updated_at: n.updatedAt.toISOString(),
    ...(withSecurities
      ? {
          securities: n.securities.map((s) => ({
            figi: s.figi,
            name: s.name,
            MIC: s.mic,
            exchcode: s.exchcode,
            ticker: s.ticker,
            compositefigi: s.compositefigi,
            securitytype: s.securitytype,
            marketsector: s.marketsector,
            shareclassfigi: s.shareclassfigi,
          })),
        }
      : {}),
  };
}

export const newsRoutes: Route[] = [
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
        nodes.map((n) => newsRecord(n, p.securities)),
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
