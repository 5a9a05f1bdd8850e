import { SPLIT_FIELDS } from '../domain/records/split.js';
import { SPLIT_PAGE, SPLIT_SORTS, splitPage, type Split } from '../services/split.js';
import type { JsonSchema } from './json-schema.js';
import type { ParamSpecs, ParamValues } from './params.js';
import { recordSchema, recordShaper } from './record-table.js';
import { boundsOf, DATE_SPEC, orderParams, rangedParams, referenceListRoute, TICKER_SPEC } from './reference-list.js';
import type { Route } from './route.js';

/** Massive's parameters of GET /v3/reference/splits: docs/rest.md#parameters-per-route. */
export const SPLIT_PARAMS = {
  ...rangedParams('ticker', TICKER_SPEC, 'splits of tickers'),
  ...rangedParams('execution_date', DATE_SPEC, 'splits executed on dates (yyyy-mm-dd)'),
  reverse_split: {
    type: 'boolean',
    description:
      'true: only reverse splits (split_from greater than split_to); false: only the others. Every split when left out.',
  },
  ...orderParams(SPLIT_SORTS, 'execution_date', SPLIT_PAGE),
} as const satisfies ParamSpecs;

/** Massive's split record, every key always present. */
export const SPLIT_SCHEMA: JsonSchema = recordSchema(SPLIT_FIELDS);

/** Massive's split record, its keys as Massive spells and orders them. */
export const splitRecord: (s: Split) => Record<string, unknown> = recordShaper(SPLIT_FIELDS);

export function splitFilter(p: ParamValues<typeof SPLIT_PARAMS>) {
  return {
    ticker: boundsOf<string>(p, 'ticker'),
    executionDate: boundsOf<string>(p, 'execution_date'),
    reverseSplit: p.reverse_split,
  };
}

export const routes: Route[] = [
  referenceListRoute({
    path: '/stocks/v3/reference/splits',
    access: 'splits',
    route: 'splits',
    table: 'Split',
    params: SPLIT_PARAMS,
    filter: splitFilter,
    page: splitPage,
    record: splitRecord,
    schema: SPLIT_SCHEMA,
    summary: 'Stock splits',
    description:
      "Stock splits, as Massive's GET /v3/reference/splits answers them: newest first by execution date unless `sort` and `order` say otherwise, ties broken by id. Every filter given applies. Follow next_url (absolute; its cursor carries every filter) for the next page; it is absent on the last page.",
  }),
];
