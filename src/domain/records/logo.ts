// The legacy logo record (GET /api/v1/logos). `logos.png` etc. are read as a path: a `logos` object
// holding png, svg and thumbnail objects, whose fields are columns of the logo's own row.
import { type RecordTable, STORE_STAMPS } from './table.js';

const url = (column: string) =>
  ({ key: 'url', column, kind: 'text', text: 'url', description: 'Where the image is served.' }) as const;
const sizeKb = (column: string) =>
  ({ key: 'size_kb', column, kind: 'number', description: 'File size in kilobytes.' }) as const;

export const LOGOS_FIELD = {
  key: 'logos',
  kind: 'object',
  fields: [
    {
      key: 'png',
      kind: 'object',
      fields: [
        url('pngUrl'),
        { key: 'height', column: 'pngHeight', kind: 'integer', min: 0, description: 'Height in pixels.' },
        { key: 'width', column: 'pngWidth', kind: 'integer', min: 0, description: 'Width in pixels.' },
        sizeKb('pngSizeKb'),
      ],
    },
    { key: 'svg', kind: 'object', fields: [url('svgUrl'), sizeKb('svgSizeKb')] },
    { key: 'thumbnail', kind: 'object', fields: [url('thumbnailUrl'), sizeKb('thumbnailSizeKb')] },
  ],
} as const;

// One security behind a logo (`security_info[]`).
export const LOGO_SECURITY_INFO_FIELDS = [
  {
    key: 'symbol',
    column: 'symbol',
    kind: 'text',
    description: 'Ticker symbol; may carry a trailing `*` marker (a legacy listing).',
  },
  { key: 'name', column: 'name', kind: 'text', description: 'Security name.' },
  {
    key: 'MIC',
    column: 'mic',
    kind: 'text',
    description: 'ISO 10383 market identifier code; the empty string for a composite (exchange-less) row.',
    graphql: { description: 'ISO 10383 market identifier code; empty for a composite (exchange-less) row.' },
  },
  {
    key: 'figi',
    column: 'figi',
    kind: 'text',
    description: 'FIGI; the same FIGI may appear in more than one row.',
  },
  { key: 'exch_code', column: 'exchCode', kind: 'text', description: 'Exchange code.' },
  { key: 'composite_figi', column: 'compositeFigi', kind: 'text', description: 'Composite FIGI.' },
  { key: 'share_class_figi', column: 'shareClassFigi', kind: 'text', description: 'Share-class FIGI.' },
  { key: 'market_sector', column: 'marketSector', kind: 'text', description: 'Market sector, e.g. Equity.' },
] as const satisfies RecordTable;

export const LOGO_FIELDS = [
  { key: 'symbol', column: 'symbol', kind: 'symbol', description: 'Ticker symbol.' },
  { key: 'company_name', column: 'companyName', kind: 'text', description: 'Company name.' },
  ...STORE_STAMPS,
  LOGOS_FIELD,
  {
    key: 'security_info',
    column: 'securityInfo',
    kind: 'objects',
    fields: LOGO_SECURITY_INFO_FIELDS,
    description: 'The securities behind the logo, in their recorded order.',
  },
] as const satisfies RecordTable;
