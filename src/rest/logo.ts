import { logoAtPage, type LogoWithInfo } from '../services/logo.js';
import { holdRows } from '../context.js';
import { MAX_SYMBOLS, parseSymbols } from '../domain/symbols.js';
import { arr, int, num, object, str, timestamp } from './json-schema.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { PAGE_PARAMS } from './page-number.js';
import { json, type Route } from './route.js';

/** `symbols`, `page`, `page_size` (default 10, at most 100): docs/rest.md#parameters-per-route. */
export const LOGO_PARAMS = {
  symbols: {
    type: 'string',
    pattern: /^[A-Za-z0-9., -]+$/,
    maxLength: 2_100,
    description: `Only the logos of these ticker symbols: a comma-separated list of 1 to ${MAX_SYMBOLS} symbols (case-insensitive). Leave out for every logo.`,
  },
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

const image = (extra: Record<string, ReturnType<typeof int>> = {}) =>
  object({ url: str('Where the image is served.'), ...extra, size_kb: num('File size in kilobytes.') });

/** The legacy logo record. `logos.png` etc. are read as a path: a `logos` object holding png, svg and thumbnail objects. */
export const LOGO_SCHEMA = object({
  symbol: str('Ticker symbol.'),
  company_name: str('Company name.'),
  created_at: timestamp('When the record was created.'),
  updated_at: timestamp('When the record last changed.'),
  logos: object({
    png: image({ height: int('Height in pixels.'), width: int('Width in pixels.') }),
    svg: image(),
    thumbnail: image(),
  }),
  security_info: arr(
    object({
      symbol: str('Ticker symbol; may carry a trailing `*` marker (a legacy listing).'),
      name: str('Security name.'),
      MIC: str('ISO 10383 market identifier code; the empty string for a composite (exchange-less) row.'),
      figi: str('FIGI; the same FIGI may appear in more than one row.'),
      exch_code: str('Exchange code.'),
      composite_figi: str('Composite FIGI.'),
      share_class_figi: str('Share-class FIGI.'),
      market_sector: str('Market sector, e.g. Equity.'),
    }),
    'The securities behind the logo, in their recorded order.',
  ),
});

/** The legacy logo record, keys as the legacy API spells them. */
export function logoRecord(l: LogoWithInfo): Record<string, unknown> {
  return {
    symbol: l.symbol,
    company_name: l.companyName,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
    logos: {
      png: { url: l.pngUrl, height: l.pngHeight, width: l.pngWidth, size_kb: l.pngSizeKb },
      svg: { url: l.svgUrl, size_kb: l.svgSizeKb },
      thumbnail: { url: l.thumbnailUrl, size_kb: l.thumbnailSizeKb },
    },
    security_info: l.securityInfo.map((i) => ({
      symbol: i.symbol,
      name: i.name,
      MIC: i.mic,
      figi: i.figi,
      exch_code: i.exchCode,
      composite_figi: i.compositeFigi,
      share_class_figi: i.shareClassFigi,
      market_sector: i.marketSector,
    })),
  };
}

export const logoRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/logos',
    access: 'logos',
    async handle(ctx, url) {
      const query = new URLSearchParams(url.searchParams);
      query.delete('apikey');
      const p = parseQuery(LOGO_PARAMS, query);
      await holdRows(ctx, 'Logo', p.page_size);
      const symbols = p.symbols === undefined ? undefined : parseSymbols(p.symbols, 'symbols');
      const { nodes, totalCount } = await logoAtPage(ctx.db, { symbols }, { page: p.page, pageSize: p.page_size });
      const pageCount = Math.max(1, Math.ceil(totalCount / p.page_size));
      return json(
        {
          Logos: nodes.map(logoRecord),
          message: `page ${p.page} of ${pageCount}: ${nodes.length} of ${totalCount} logos`,
        },
        200,
        { 'x-total-count': String(totalCount) },
      );
    },
    doc: {
      summary: 'Company logos',
      description:
        'Logos by symbol, ascending, in numbered pages. The envelope is the legacy `{ Logos, message }`; the number of matching logos is in the X-Total-Count header (and in the message).',
      query: LOGO_PARAMS,
      response: object({
        Logos: arr(LOGO_SCHEMA),
        message: str('What was returned: the page, the page count and the number of matching logos.'),
      }),
    },
  },
];
