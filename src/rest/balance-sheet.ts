import { BALANCE_SHEET_FIELDS, TIMEFRAMES } from '../domain/records/balance-sheet.js';
import { holdRows } from '../context.js';
import { CIK_PATTERN } from '../domain/cik.js';
import { FISCAL_YEARS } from '../domain/fiscal.js';
import { PAGE_SIZES } from '../domain/limits.js';
import {
  balanceSheetPage,
  MAX_SYMBOLS_LENGTH,
  parseBalanceSheetFilter,
  SORT_FIELDS,
  type BalanceSheetFilter,
  type BalanceSheetSort,
  type BalanceSheetWithSymbols,
  type Timeframe,
} from '../services/balance-sheet.js';
import type { JsonSchema } from './json-schema.js';
import { recordSchema, recordShaper } from './record-table.js';
import { cursorEnvelope, cursorPageResponse, readCursorRequest, withCursorParam } from './next-url.js';
import { badParam, type ParamSpecs } from './params.js';
import type { Route } from './route.js';

// the legacy API's pattern; the `i` flag (not shown in the document) takes any case, lower-cased before use
const SORT_PATTERN = /^[a-z_]+(\.(asc|desc))?$/i;

/** The parameters of the legacy balance-sheet route, with the names docs/rest.md#parameters-per-route gives them. */
export const BALANCE_SHEET_PARAMS = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE_SIZES.balanceSheets.max,
    default: PAGE_SIZES.balanceSheets.default,
    pageSize: true,
    description: `Results per page, 1 to ${PAGE_SIZES.balanceSheets.max}.`,
  },
  sort: {
    type: 'string',
    pattern: SORT_PATTERN,
    case: 'lower',
    default: 'period_end.asc',
    description: `Sort as field[.asc|.desc] (ascending when the direction is left out); fields: ${SORT_FIELDS.join(', ')}. fiscal_year sorts by fiscal year then quarter; ties are broken by record id.`,
  },
  cik: {
    type: 'string',
    pattern: CIK_PATTERN,
    description: 'SEC Central Index Key, 1 to 10 digits; matches with or without leading zeros.',
  },
  symbols: {
    type: 'string',
    // the legacy API's pattern; the `i` flag (not shown in the document) also takes lower case, upper-cased before matching
    pattern: new RegExp(`^[A-Z0-9.,-]{1,${MAX_SYMBOLS_LENGTH}}$`, 'i'),
    case: 'upper',
    // the legacy API does not name it: Massive's balance sheets call it `tickers`
    aliases: ['tickers', 'ticker'],
    description: 'Balance sheets listing any of these ticker symbols: a comma-separated list (case-insensitive).',
  },
  period_end: {
    type: 'string',
    format: 'date',
    description:
      'Only this reporting period end, yyyy-mm-dd (a time with it only at midnight UTC: 2024-03-31T00:00:00Z).',
  },
  fiscal_year: {
    type: 'integer',
    minimum: FISCAL_YEARS.min,
    maximum: FISCAL_YEARS.max,
    description: `Only this fiscal year, ${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}.`,
  },
  fiscal_quarter: { type: 'integer', minimum: 1, maximum: 4, description: 'Only this fiscal quarter, 1 to 4.' },
  timeframe: { type: 'string', enum: TIMEFRAMES, description: 'Only this kind of reporting period.' },
} as const satisfies ParamSpecs;

/** The query as OpenAPI shows it: the filters, or the cursor of a next_url. */
export const BALANCE_SHEET_QUERY_DOC = withCursorParam(BALANCE_SHEET_PARAMS);

/** The legacy balance-sheet record: the optional amounts are left out of `required`, so a record without them validates. */
export const BALANCE_SHEET_SCHEMA: JsonSchema = recordSchema(BALANCE_SHEET_FIELDS);

/** The legacy balance-sheet record, keys as the legacy API spells them; optional amounts only when reported. */
export const balanceSheetRecord: (b: BalanceSheetWithSymbols) => Record<string, unknown> =
  recordShaper<BalanceSheetWithSymbols>(BALANCE_SHEET_FIELDS, { symbols: (b) => b.symbols.map((s) => s.symbol) });

function parseSort(value: string): BalanceSheetSort {
  const [field, direction = 'asc'] = value.split('.') as [string, ('asc' | 'desc')?];
  if (!(SORT_FIELDS as readonly string[]).includes(field))
    throw badParam('sort', `a sort field[.asc|.desc] with field one of ${SORT_FIELDS.join(', ')}`, value);
  return { field: field as BalanceSheetSort['field'], direction };
}

const ROUTE = 'balance-sheet';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v1/fundamentals/balance-sheet',
    access: 'balanceSheets',
    async handle(ctx, url) {
      const { params: p, raw, after } = readCursorRequest(ctx, url, ROUTE, BALANCE_SHEET_PARAMS);
      await holdRows(ctx, 'BalanceSheet', p.limit);
      const sort = parseSort(p.sort);
      const given: BalanceSheetFilter = {
        cik: p.cik,
        symbols: p.symbols?.split(','),
        periodEnd: p.period_end,
        fiscalYear: p.fiscal_year,
        fiscalQuarter: p.fiscal_quarter,
        timeframe: p.timeframe as Timeframe | undefined,
      };
      const REST_NAMES: Record<keyof BalanceSheetFilter, string> = {
        cik: 'cik',
        symbols: 'symbols',
        periodEnd: 'period_end',
        fiscalYear: 'fiscal_year',
        fiscalQuarter: 'fiscal_quarter',
        timeframe: 'timeframe',
      };
      const filter = parseBalanceSheetFilter(given, (k) => REST_NAMES[k]);
      const page = await balanceSheetPage(ctx.db, filter, { sort, first: p.limit, after });
      return cursorPageResponse(ctx, url, ROUTE, raw, page, balanceSheetRecord);
    },
    doc: {
      summary: 'Standardized balance sheets',
      description:
        'Filtered and sorted balance sheets. Follow next_url (absolute; its cursor carries every filter, so it works alone with the key in a header or the apikey parameter) for the next page; it is absent on the last page.',
      query: BALANCE_SHEET_QUERY_DOC,
      response: cursorEnvelope(BALANCE_SHEET_SCHEMA),
    },
  },
];
