import { logoAtPage, type LogoWithInfo } from '../services/logo.js';
import { holdRows } from '../context.js';
import { MAX_SYMBOLS, parseSymbols } from '../domain/symbols.js';
import { LOGO_FIELDS } from '../domain/records/logo.js';
import { arr, object, str } from './json-schema.js';
import { recordSchema, recordShaper } from './record-table.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { PAGE_PARAMS } from './page-number.js';
import { json, shapeRows, type Route } from './route.js';

/** `symbols`, `page`, `page_size` (default 10, at most 100): docs/rest.md#parameters-per-route. */
export const LOGO_PARAMS = {
  symbols: {
    type: 'string',
    pattern: /^[A-Za-z0-9., -]+$/,
    maxLength: 2_100,
    // the legacy API names no parameter here: the singular and Massive's name are read as this one
    aliases: ['symbol', 'tickers', 'ticker'],
    description: `Only the logos of these ticker symbols: a comma-separated list of 1 to ${MAX_SYMBOLS} symbols (case-insensitive). Leave out for every logo.`,
  },
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

/** The legacy logo record. `logos.png` etc. are read as a path: a `logos` object holding png, svg and thumbnail objects. */
export const LOGO_SCHEMA = recordSchema(LOGO_FIELDS);

/** The legacy logo record, keys as the legacy API spells them. */
export const logoRecord: (l: LogoWithInfo) => Record<string, unknown> = recordShaper(LOGO_FIELDS);

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/logos',
    access: 'logos',
    async handle(ctx, url) {
      const p = parseQuery(LOGO_PARAMS, url.searchParams);
      await holdRows(ctx, 'Logo', p.page_size);
      const symbols = p.symbols === undefined ? undefined : parseSymbols(p.symbols, 'symbols');
      const { nodes, totalCount } = await logoAtPage(ctx.db, { symbols }, { page: p.page, pageSize: p.page_size });
      const pageCount = Math.max(1, Math.ceil(totalCount / p.page_size));
      return json(
        {
          Logos: shapeRows(ctx, nodes, logoRecord),
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
