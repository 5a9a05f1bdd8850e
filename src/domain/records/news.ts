// The legacy news record (GET /news/api/v1/news); `securities` is the one key a request may leave out.
import type { RecordTable } from './table.js';

export const NEWS_TYPES = ['gainers', 'losers'] as const;

// One security a news item is about (`securities[]`).
export const NEWS_SECURITY_FIELDS = [
  { key: 'figi', column: 'figi', kind: 'text', description: 'FIGI of the listing.' },
  { key: 'name', column: 'name', kind: 'text', description: 'Security name.' },
  {
    key: 'MIC',
    column: 'mic',
    kind: 'text',
    description: 'ISO 10383 market identifier code of the exchange.',
    graphql: { description: 'ISO 10383 market identifier code of the exchange (REST field `MIC`).' },
  },
  {
    key: 'exchcode',
    column: 'exchcode',
    kind: 'text',
    description: 'Exchange code.',
    graphql: { name: 'exchCode', description: 'Exchange code (REST field `exchcode`).' },
  },
  { key: 'ticker', column: 'ticker', kind: 'text', description: 'Ticker symbol.' },
  {
    key: 'compositefigi',
    column: 'compositefigi',
    kind: 'text',
    description: 'Composite FIGI.',
    graphql: { name: 'compositeFigi', description: 'Composite FIGI (REST field `compositefigi`).' },
  },
  {
    key: 'securitytype',
    column: 'securitytype',
    kind: 'text',
    description: 'Security type, e.g. Common Stock.',
    graphql: { name: 'securityType', description: 'Security type, e.g. Common Stock (REST field `securitytype`).' },
  },
  {
    key: 'marketsector',
    column: 'marketsector',
    kind: 'text',
    description: 'Market sector, e.g. Equity.',
    graphql: { name: 'marketSector', description: 'Market sector, e.g. Equity (REST field `marketsector`).' },
  },
  {
    key: 'shareclassfigi',
    column: 'shareclassfigi',
    kind: 'text',
    description: 'Share-class FIGI.',
    graphql: { name: 'shareClassFigi', description: 'Share-class FIGI (REST field `shareclassfigi`).' },
  },
] as const satisfies RecordTable;

export const NEWS_FIELDS = [
  { key: 'id', column: 'id', kind: 'integer', min: 1, description: 'The news item id.', graphql: false },
  {
    key: 'news_id',
    column: 'newsId',
    kind: 'uuid',
    description: 'The news story id (a UUID).',
    graphql: { description: 'The news story id (REST field `news_id`).' },
  },
  { key: 'headline', column: 'headline', kind: 'text', description: 'Headline.' },
  { key: 'catalyst', column: 'catalyst', kind: 'text', description: 'What moved the stock, e.g. Earnings.' },
  {
    key: 'catalyst_created',
    column: 'catalystCreated',
    kind: 'boolean',
    description: 'Whether the catalyst was created for this item.',
    graphql: { description: 'Whether the catalyst was created for this item (REST field `catalyst_created`).' },
  },
  // ids of press releases: kept as given, whether or not this database holds those releases
  {
    key: 'associated_press_releases',
    column: 'associatedPressReleases',
    kind: 'integers',
    min: 1,
    description: 'Ids of the press releases behind the item.',
  },
  {
    key: 'associated_ratings',
    column: 'associatedRatings',
    kind: 'values',
    description: 'The analyst ratings behind the item, as given (rating ids in practice).',
  },
  {
    key: 'associated_transcripts',
    column: 'associatedTranscripts',
    kind: 'values',
    description: 'The conference-call transcripts behind the item, as given (summary ids in practice).',
  },
  { key: 'logo_exists', column: 'logoExists', kind: 'boolean', description: 'Whether a logo exists for the stock.' },
  {
    key: 'logo_thumbnail_url',
    column: 'logoThumbnailUrl',
    kind: 'text',
    text: 'url',
    description: 'Address of the logo thumbnail.',
  },
  {
    key: 'on_all_tickers',
    column: 'onAllTickers',
    kind: 'boolean',
    description: 'Whether the item applies to every ticker of the issuer.',
    graphql: { description: 'Whether the item applies to every ticker of the issuer (REST field `on_all_tickers`).' },
  },
  {
    key: 'on_entities',
    column: 'onEntities',
    kind: 'boolean',
    description: 'Whether the item is linked to entities.',
    graphql: { description: 'Whether the item is linked to entities (REST field `on_entities`).' },
  },
  { key: 'share_class_figi', column: 'shareClassFigi', kind: 'text', description: 'Share-class FIGI of the stock.' },
  { key: 'ticker', column: 'ticker', kind: 'symbol', description: 'Ticker symbol of the stock.' },
  { key: 'type', column: 'type', kind: 'enum', values: NEWS_TYPES, description: 'Whether the stock rose or fell.' },
  // when the item was published: the route's newest-first order
  {
    key: 'created_at',
    column: 'createdAt',
    kind: 'timestamp',
    description: 'When the item was published (ISO 8601 UTC).',
    graphql: { description: 'When the item was published.' },
  },
  {
    key: 'updated_at',
    column: 'updatedAt',
    kind: 'timestamp',
    description: 'When the item last changed (ISO 8601 UTC).',
    graphql: { description: 'When the item last changed.' },
  },
  {
    key: 'securities',
    column: 'securities',
    kind: 'objects',
    missing: 'keep',
    fields: NEWS_SECURITY_FIELDS,
    description: 'The securities the item is about, in feed order; left out when securities=false.',
  },
] as const satisfies RecordTable;
