// Analyst ratings: one item of `data`, as GET /rating/api/v1/ratings returns it
// (src/rest/rating.ts).
import type { Importer } from '../importer.js';
import { writeRatings, type RatingInput } from '../../services/rating.js';
import * as f from '../record-fields.js';

export function parseRating(record: unknown): RatingInput {
  const rec = f.record(record);
  return {
    id: f.integer(rec.id, 'id', 1),
    firm: f.string(rec.firm, 'firm'),
    ticker: f.symbol(rec.ticker, 'ticker'),
    exchange: f.string(rec.exchange, 'exchange'),
    company: f.string(rec.company, 'company'),
    action: f.string(rec.action, 'action'),
    rating: f.string(rec.rating, 'rating'),
    priceTarget: f.string(rec.price_target, 'price_target'),
    story: f.string(rec.story, 'story', 'long'),
    isRating: f.boolean(rec.is_rating, 'is_rating'),
    // created_at is when the rating was published: the list's order and its from/to filter
    createdAt: f.timestamp(rec.created_at, 'created_at'),
    updatedAt: f.timestamp(rec.updated_at, 'updated_at'),
  };
}

export const importer: Importer<RatingInput> = {
  resource: 'ratings',
  recordsOf: (body) => f.listIn(body, 'data'),
  parse: parseRating,
  key: (row) => String(row.id),
  write: writeRatings,
  // the route filters by created_at (from/to), so that is what an incremental pull can ask for
  highWater: (row) => row.createdAt.toISOString(),
};
