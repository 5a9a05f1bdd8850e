// The legacy press-release record (GET /streamhive/api/v1/data), keys as the legacy API spells
// them (PascalCase); every key always present.
import type { RecordTable } from './table.js';

export const PRESS_RELEASE_SECURITY_FIELDS = [
  { key: 'figi', column: 'figi', kind: 'text', description: 'FIGI of the listing.' },
  { key: 'isin', column: 'isin', kind: 'text', description: 'ISIN.' },
  { key: 'name', column: 'name', kind: 'text', description: 'Security name.' },
  { key: 'symbol', column: 'symbol', kind: 'text', description: 'Ticker symbol.' },
  {
    key: 'mic_code',
    column: 'micCode',
    kind: 'text',
    description: 'ISO 10383 market identifier code of the exchange.',
    graphql: { description: 'ISO 10383 market identifier code of the exchange (REST field `mic_code`).' },
  },
  {
    key: 'figi_composite',
    column: 'figiComposite',
    kind: 'text',
    description: 'Composite FIGI.',
    graphql: { description: 'Composite FIGI (REST field `figi_composite`).' },
  },
  {
    key: 'figi_share_class',
    column: 'figiShareClass',
    kind: 'text',
    description: 'Share-class FIGI; may be the empty string.',
    graphql: { description: 'Share-class FIGI (REST field `figi_share_class`); may be an empty string.' },
  },
  {
    key: 'vendorx_exch_code',
    column: 'vendorxExchCode',
    kind: 'text',
    description: "The exchange's code at data vendor X.",
    graphql: { description: "The exchange's code at data vendor X (REST field `vendorx_exch_code`)." },
  },
] as const satisfies RecordTable;

// One contact of a release (`Contacts[]`).
export const PRESS_RELEASE_CONTACT_FIELDS = [
  { key: 'organization', column: 'organization', kind: 'text', description: 'The organization to contact.' },
] as const satisfies RecordTable;

export const PRESS_RELEASE_FIELDS = [
  {
    key: 'WireDataID',
    column: 'wireDataId',
    kind: 'text',
    nonEmpty: true,
    description: 'Id of the release in the wire feed.',
    graphql: { description: 'Id of the release in the wire feed (REST field `WireDataID`).' },
  },
  { key: 'Vendor', column: 'vendor', kind: 'text', description: 'The wire vendor.' },
  // a URL, or a stringified map holding one
  {
    key: 'ReleaseID',
    column: 'releaseId',
    kind: 'text',
    text: 'url',
    description: 'Release id, kept exactly as given: a URL, or a stringified map.',
    graphql: {
      description: 'Release id, kept exactly as given: a URL, or a stringified map (REST field `ReleaseID`).',
    },
  },
  {
    key: 'ExternalID',
    column: 'externalId',
    kind: 'text',
    description: "The vendor's external id.",
    graphql: { description: "The vendor's external id (REST field `ExternalID`)." },
  },
  {
    key: 'TransmissionID',
    column: 'transmissionId',
    kind: 'text',
    description: 'Transmission id.',
    graphql: { description: 'Transmission id (REST field `TransmissionID`).' },
  },
  { key: 'Headline', column: 'headline', kind: 'text', description: 'Headline.' },
  {
    key: 'SubHeadline',
    column: 'subHeadline',
    kind: 'text',
    text: 'long',
    description: 'Sub-headline; may be the empty string.',
    graphql: { description: 'Sub-headline; may be an empty string.' },
  },
  { key: 'Dateline', column: 'dateline', kind: 'text', description: 'Dateline: place, date and wire.' },
  { key: 'Language', column: 'language', kind: 'text', description: 'Language code, e.g. en.' },
  {
    key: 'PublishTime',
    column: 'publishTime',
    kind: 'timestamp',
    description: 'When the release was published (ISO 8601 UTC).',
    graphql: { description: 'When the release was published.' },
  },
  { key: 'Source', column: 'source', kind: 'text', description: 'Who issued the release.' },
  {
    key: 'SourceURL',
    column: 'sourceUrl',
    kind: 'text',
    text: 'url',
    description: 'Address of the release at its source.',
    graphql: { description: 'Address of the release at its source (REST field `SourceURL`).' },
  },
  { key: 'Summary', column: 'summary', kind: 'text', text: 'long', description: 'Short summary.' },
  {
    key: 'BodyHTML',
    column: 'bodyHtml',
    kind: 'text',
    text: 'long',
    description: 'Full text as HTML.',
    graphql: { description: 'Full text as HTML (REST field `BodyHTML`).' },
  },
  { key: 'BodyText', column: 'bodyText', kind: 'text', text: 'long', description: 'Full text as plain text.' },
  {
    key: 'Categories',
    column: 'categories',
    kind: 'json',
    description: 'Categories as the feed sent them (an array of strings in practice); null when the feed sent none.',
  },
  { key: 'Keywords', column: 'keywords', kind: 'strings', description: 'Keywords.' },
  {
    key: 'ExternalLinks',
    column: 'externalLinks',
    kind: 'strings',
    text: 'url',
    description: 'Links the release points to.',
  },
  {
    key: 'Tickers',
    column: 'tickers',
    kind: 'symbols',
    description: 'Ticker symbols the release names, in feed order.',
  },
  { key: 'Exchanges', column: 'exchanges', kind: 'strings', description: 'Exchange-qualified tickers, e.g. NYSE:ABC.' },
  {
    key: 'Securities',
    column: 'securities',
    kind: 'objects',
    fields: PRESS_RELEASE_SECURITY_FIELDS,
    description: 'The securities the release is about, in feed order.',
  },
  // the route serves `{ organization }` of each contact, so that is what is kept
  {
    key: 'Contacts',
    column: 'contacts',
    kind: 'objects',
    fields: PRESS_RELEASE_CONTACT_FIELDS,
    description: 'Contacts named by the release.',
  },
  {
    key: 'MediaAssets',
    column: 'mediaAssets',
    kind: 'json',
    description: 'Media assets (images, video) as the feed sent them; null when none.',
  },
  {
    key: 'Raw',
    column: 'raw',
    kind: 'json',
    object: true,
    description: 'The vendor record as received (its contents are not specified).',
  },
  {
    key: 'CreatedAt',
    column: 'createdAt',
    kind: 'timestamp',
    missing: 'stamp',
    description: 'When the record was created (ISO 8601 UTC).',
    graphql: { description: 'When the record was created.' },
  },
  {
    key: 'UpdatedAt',
    column: 'updatedAt',
    kind: 'timestamp',
    missing: 'stamp',
    description: 'When the record last changed (ISO 8601 UTC).',
    graphql: { description: 'When the record last changed.' },
  },
] as const satisfies RecordTable;
