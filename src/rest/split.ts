import { holdRows } from '../context.js';
import { SPLIT_FIELDS } from '../domain/records/split.js';
import { SPLIT_PAGE, SPLIT_SORTS, splitPage, type Bounds, type Split, type SplitSortField } from '../services/split.js';
import type { JsonSchema } from './json-schema.js';
import { cursorEnvelope, cursorPageResponse, readCursorRequest, withCursorParam } from './next-url.js';
import { SYMBOL_PARAM_PATTERN, type ParamSpec, type ParamSpecs, type ParamValues } from './params.js';
import { recordSchema, recordShaper } from './record-table.js';
import type { Route } from './route.js';

const BOUNDS = { gte: 'at or after', gt: 'after', lte: 'at or before', lt: 'before' } as const;

type Ranged<N extends string, S> = { [K in N | `${N}.${keyof typeof BOUNDS}`]: S };

/**
 * Massive's range parameters of one field: `name` for an exact value, and `name.gte`, `.gt`,
 * `.lte`, `.lt` (for text, after or before in alphabetical order), each read by `spec`.
 */
export function rangedParams<N extends string, S extends Omit<ParamSpec, 'description'>>(
  name: N,
  spec: S,
  what: string,
): Ranged<N, S & { description: string }> {
  return Object.fromEntries([
    [name, { ...spec, description: `Only ${what} equal to this.` }],
    ...Object.entries(BOUNDS).map(([k, words]) => [
      `${name}.${k}`,
      { ...spec, description: `Only ${what} ${words} this.` },
    ]),
  ]) as Ranged<N, S & { description: string }>;
}

/** The bounds a query gave on `name` (see rangedParams), converted by `as`. */
export function boundsOf<T>(p: Record<string, unknown>, name: string, as: (v: string) => T = (v) => v as T): Bounds<T> {
  const at = (k: string) => (p[k] === undefined ? undefined : as(p[k] as string));
  return { eq: at(name), gte: at(`${name}.gte`), gt: at(`${name}.gt`), lte: at(`${name}.lte`), lt: at(`${name}.lt`) };
}

/** A ticker, upper-cased, as the symbol rule reads it. */
export const TICKER_SPEC = { type: 'string', pattern: SYMBOL_PARAM_PATTERN, case: 'upper' } as const;
/** A calendar date yyyy-mm-dd. */
export const DATE_SPEC = { type: 'string', format: 'date' } as const;

/** `order`, `limit` and `sort` as Massive's reference lists take them, newest first by default. */
export function orderParams<F extends string>(
  sorts: readonly F[],
  defaultSort: F,
  size: { default: number; max: number },
) {
  return {
    order: {
      type: 'string',
      enum: ['asc', 'desc'],
      default: 'desc',
      description: 'The order of `sort` (ties broken by id, in the same order): desc (the default) or asc.',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: size.max,
      default: size.default,
      pageSize: true,
      description: `Results per page, 1 to ${size.max}.`,
    },
    sort: {
      type: 'string',
      enum: sorts,
      default: defaultSort,
      description: `The field the results are ordered by: ${sorts.join(', ')}.`,
    },
  } as const;
}

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

const ROUTE = 'splits';

export function splitFilter(p: ParamValues<typeof SPLIT_PARAMS>) {
  return {
    ticker: boundsOf<string>(p, 'ticker'),
    executionDate: boundsOf<string>(p, 'execution_date'),
    reverseSplit: p.reverse_split,
  };
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v3/reference/splits',
    access: 'splits',
    async handle(ctx, url) {
      const { params: p, raw, after } = readCursorRequest(ctx, url, ROUTE, SPLIT_PARAMS);
      await holdRows(ctx, 'Split', p.limit);
      const sort = { field: p.sort as SplitSortField, direction: p.order as 'asc' | 'desc' };
      const page = await splitPage(ctx.db, splitFilter(p), { sort, first: p.limit, after });
      return cursorPageResponse(ctx, url, ROUTE, raw, page, splitRecord);
    },
    doc: {
      summary: 'Stock splits',
      description:
        "Stock splits, as Massive's GET /v3/reference/splits answers them: newest first by execution date unless `sort` and `order` say otherwise, ties broken by id. Every filter given applies. Follow next_url (absolute; its cursor carries every filter) for the next page; it is absent on the last page.",
      query: withCursorParam(SPLIT_PARAMS),
      response: cursorEnvelope(SPLIT_SCHEMA),
    },
  },
];
