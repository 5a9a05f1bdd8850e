// Curated news: one item of `data`, as GET /news/api/v1/news returns it
// (src/rest/news.ts).
import { NEWS_FIELDS } from '../../domain/records/news.js';
import { newsTopic } from '../../runtime/events.js';
import type { PublishingImporter } from '../importer.js';
import { newsByNewsIds, writeNews, type NewsInput } from '../../services/news.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

export function parseNews(record: unknown): NewsInput {
  return parseRecord(NEWS_FIELDS, f.record(record)) as NewsInput;
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
