// Massive's reference lists (GET /v3/reference/splits, /dividends) the REST way: range parameters
// (`x`, `x.gte`, `x.gt`, `x.lte`, `x.lt`), `order`, `limit` and `sort`, and one route reading a
// keyset page of a sorted table (db/sorted-table.ts) into the next_url envelope. A resource's
// module declares only its parameters, its filter and its record.
import { holdRows } from '../context.js';
import type { Db } from '../db/client.js';
import type { ForwardArgs, Page } from '../db/keyset.js';
import type { Bounds, Sort } from '../db/sorted-table.js';
import type { Resource } from '../domain/entitlements.js';
import type { JsonSchema } from './json-schema.js';
import { cursorEnvelope, cursorPageResponse, readCursorRequest, withCursorParam } from './next-url.js';
import { SYMBOL_PARAM_PATTERN, type ParamSpec, type ParamSpecs, type ParamValues } from './params.js';
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

/** What one reference list declares of its own; `params` end in `orderParams`. */
export interface ReferenceList<P extends ParamSpecs, Filter, Row, F extends string> {
  path: string;
  access: Resource;
  /** The route's name inside its next_url cursors. */
  route: string;
  /** The table whose rows a page holds, as the work budget counts them. */
  table: string;
  params: P;
  /** The filter of a request's parameters; a BAD_REQUEST naming a parameter the rule refuses. */
  filter(p: ParamValues<P>): Filter;
  page(db: Db, filter: Filter, args: ForwardArgs & { sort: Sort<F> }): Promise<Page<Row>>;
  record(row: Row): Record<string, unknown>;
  schema: JsonSchema;
  summary: string;
  description: string;
}

/** The GET route of a reference list: its filters checked, then one keyset page in the next_url envelope. */
export function referenceListRoute<P extends ParamSpecs, Filter, Row, F extends string>(
  list: ReferenceList<P, Filter, Row, F>,
): Route {
  return {
    method: 'GET',
    path: list.path,
    access: list.access,
    async handle(ctx, url) {
      const { params: p, raw, after } = readCursorRequest(ctx, url, list.route, list.params);
      const filter = list.filter(p);
      const { sort: field, order, limit } = p as { sort: F; order: 'asc' | 'desc'; limit: number };
      await holdRows(ctx, list.table, limit);
      const page = await list.page(ctx.db, filter, { sort: { field, direction: order }, first: limit, after });
      return cursorPageResponse(ctx, url, list.route, raw, page, list.record);
    },
    doc: {
      summary: list.summary,
      description: list.description,
      query: withCursorParam(list.params),
      response: cursorEnvelope(list.schema),
    },
  };
}
