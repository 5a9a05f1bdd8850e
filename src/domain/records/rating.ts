// The legacy rating record (GET /rating/api/v1/ratings), keys as the legacy API spells them.
import type { RecordTable } from './table.js';

export const RATING_FIELDS = [
  { key: 'id', column: 'id', kind: 'integer', min: 1, description: 'The rating id.', graphql: false },
  { key: 'firm', column: 'firm', kind: 'text', description: 'The research firm.' },
  { key: 'ticker', column: 'ticker', kind: 'symbol', description: 'Ticker symbol of the rated stock.' },
  { key: 'exchange', column: 'exchange', kind: 'text', description: 'Exchange the stock is listed on.' },
  { key: 'company', column: 'company', kind: 'text', description: 'Name of the rated company.' },
  {
    key: 'action',
    column: 'action',
    kind: 'text',
    description: 'What the analyst did, e.g. Upgrades, Downgrades, Maintains.',
  },
  { key: 'rating', column: 'rating', kind: 'text', description: 'The rating given, e.g. Buy, Hold.' },
  {
    key: 'price_target',
    column: 'priceTarget',
    kind: 'text',
    description: 'Price target as given, possibly with a currency prefix (e.g. "$120.00", "C$95.00").',
  },
  { key: 'story', column: 'story', kind: 'text', text: 'long', description: 'The rating story in one paragraph.' },
  {
    key: 'is_rating',
    column: 'isRating',
    kind: 'boolean',
    description: 'Whether the action changes or states a rating (false for price-target-only actions).',
  },
  // when the rating was published: the list's order and its from/to filter
  {
    key: 'created_at',
    column: 'createdAt',
    kind: 'timestamp',
    description: 'When the rating was published (ISO 8601 UTC).',
    graphql: { description: 'When the rating was published.' },
  },
  {
    key: 'updated_at',
    column: 'updatedAt',
    kind: 'timestamp',
    description: 'When the record last changed (ISO 8601 UTC).',
    graphql: { description: 'When the record last changed.' },
  },
] as const satisfies RecordTable;
