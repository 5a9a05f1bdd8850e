// Curated news: one item of `data`, as GET /news/api/v1/news returns it
// (src/rest/news.ts).
import type { Prisma } from '../../../generated/prisma/client.js';
import { newsTopic } from '../../runtime/events.js';
import type { PublishingImporter } from '../importer.js';
import { newsByNewsIds, writeNews, type NewsInput } from '../../services/news.js';
import * as f from '../record-fields.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYPES = ['gainers', 'losers'] as const;

export function parseNews(record: unknown): NewsInput {
  const rec = f.record(record);
  if (typeof rec.news_id !== 'string' || !UUID.test(rec.news_id)) throw f.reject('news_id', 'a UUID', rec.news_id);
  return {
    id: f.integer(rec.id, 'id', 1),
    newsId: rec.news_id,
    headline: f.string(rec.headline, 'headline'),
    catalyst: f.string(rec.catalyst, 'catalyst'),
    catalystCreated: f.boolean(rec.catalyst_created, 'catalyst_created'),
    // ids of press releases: kept as given, whether or not this database holds those releases
    associatedPressReleases: f
      .array(rec.associated_press_releases, 'associated_press_releases')
      .map((v, i) => f.integer(v, `associated_press_releases[${i}]`, 1)),
    // kept as given (REST serves them whole): lists, and opaque JSON
    associatedRatings: f.anyJson(
      f.array(rec.associated_ratings, 'associated_ratings'),
      'associated_ratings',
    ) as Prisma.InputJsonValue[],
    associatedTranscripts: f.anyJson(
      f.array(rec.associated_transcripts, 'associated_transcripts'),
      'associated_transcripts',
    ) as Prisma.InputJsonValue[],
    logoExists: f.boolean(rec.logo_exists, 'logo_exists'),
    logoThumbnailUrl: f.string(rec.logo_thumbnail_url, 'logo_thumbnail_url', 'url'),
    onAllTickers: f.boolean(rec.on_all_tickers, 'on_all_tickers'),
    onEntities: f.boolean(rec.on_entities, 'on_entities'),
    shareClassFigi: f.string(rec.share_class_figi, 'share_class_figi'),
    ticker: f.symbol(rec.ticker, 'ticker'),
    type: f.oneOf(rec.type, 'type', TYPES),
    createdAt: f.timestamp(rec.created_at, 'created_at'),
    updatedAt: f.timestamp(rec.updated_at, 'updated_at'),
    // left out by `securities=false`: then the stored securities stay
    securities:
      rec.securities === undefined
        ? undefined
        : f.objects(rec.securities, 'securities', (s, at) => ({
            figi: f.string(s.figi, `${at}.figi`),
            name: f.string(s.name, `${at}.name`),
            mic: f.string(s.MIC, `${at}.MIC`),
            exchcode: f.string(s.exchcode, `${at}.exchcode`),
            ticker: f.string(s.ticker, `${at}.ticker`),
            compositefigi: f.string(s.compositefigi, `${at}.compositefigi`),
            securitytype: f.string(s.securitytype, `${at}.securitytype`),
            marketsector: f.string(s.marketsector, `${at}.marketsector`),
            shareclassfigi: f.string(s.shareclassfigi, `${at}.shareclassfigi`),
          })),
  };
}

export const importer: PublishingImporter<NewsInput> = {
  resource: 'news',
  recordsOf: (body) => f.listIn(body, 'data'),
  parse: parseNews,
  key: (row) => row.newsId,
  write: writeNews,
  // created_at is when the item was published: the route's newest-first order
  highWater: (row) => row.createdAt.toISOString(),
  // on its ticker, the one `news(symbol:)` lists it under
  eventsOf: async (db, rows) =>
    (
      await newsByNewsIds(
        db,
        rows.map((r) => r.newsId),
      )
    ).map((n) => [newsTopic(n.ticker), n] as const),
};
