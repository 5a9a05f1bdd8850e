// Analyst ratings: one item of `data`, as GET /rating/api/v1/ratings returns it
// (src/rest/rating.ts).
import type { Importer } from '../importer.js';
import { writeRatings, type RatingInput } from '../../services/rating.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';
import { RATING_FIELDS } from '../../domain/records/rating.js';

export function parseRating(record: unknown): RatingInput {
  return parseRecord(RATING_FIELDS, f.record(record)) as RatingInput;
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
