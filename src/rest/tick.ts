import { holdRows, type Context } from '../context.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { AppError } from '../errors.js';
import type { Db } from '../db/client.js';
import type { Page } from '../db/keyset.js';
import { findSecurity } from '../services/security.js';
import { clampNanos, symbolHasTicks, type TickPageArgs, type TickTable, type TimeRange } from '../services/tick.js';
import { parseSymbol } from '../domain/symbols.js';
import { SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { cursorEnvelope, cursorPageResponse, readCursorRequest, withCursorParam } from './next-url.js';
import type { JsonSchema } from './json-schema.js';
import type { Route } from './route.js';

/** A timestamp bound: a time in every form of domain/time.ts, or nanoseconds since the epoch. */
const timestampParam = <B extends 'start' | 'end' | undefined>(bound: B, description: string) =>
  ({
    type: 'string',
    format: 'time-or-nanos',
    bound,
    description: `${description} Nanoseconds since the epoch, a date YYYY-MM-DD (UTC), YYYY-MM-DD HH:MM:SS or ISO 8601 such as 2026-01-31T14:30:00.123456789Z (UTC when no zone is given).`,
  }) as const;

/** order, limit, sort, and timestamp bounds: docs/rest.md#parameters-per-route. */
export const TICK_PARAMS = {
  order: {
    type: 'string',
    enum: ['asc', 'desc'],
    default: 'desc',
    description: 'Order by SIP timestamp (then sequence number).',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE_SIZES.ticks.max,
    default: PAGE_SIZES.ticks.default,
    pageSize: true,
    description: `Results per page, 1 to ${PAGE_SIZES.ticks.max}.`,
  },
  sort: { type: 'string', enum: ['timestamp'], default: 'timestamp', description: 'Sort field; only timestamp.' },
  timestamp: timestampParam(undefined, 'Only this day (a date), or this exact instant.'),
  'timestamp.gte': timestampParam('start', 'At or after (a date: its start).'),
  'timestamp.gt': timestampParam('end', 'After (a date: after its end).'),
  'timestamp.lte': timestampParam('end', 'At or before (a date: through its end).'),
  'timestamp.lt': timestampParam('start', 'Before (a date: before its start).'),
} as const satisfies ParamSpecs;

type Bounds = Partial<
  Record<'timestamp.gte' | 'timestamp.gt' | 'timestamp.lte' | 'timestamp.lt', bigint | undefined>
> & {
  timestamp?: readonly [bigint, bigint] | undefined;
};

/** The bounds as one range, the tightest of each kind winning, clamped to what a 64-bit column holds. */
export function timeRange(p: Bounds): TimeRange {
  const range: TimeRange = {};
  const raise = (k: keyof TimeRange, v: bigint) => {
    const ns = clampNanos(v);
    if (k === 'gte' || k === 'gt') range[k] = range[k] === undefined || ns > range[k]! ? ns : range[k];
    else range[k] = range[k] === undefined || ns < range[k]! ? ns : range[k];
  };
  if (p.timestamp) {
    raise('gte', p.timestamp[0]);
    raise('lte', p.timestamp[1]);
  }
  if (p['timestamp.gte'] !== undefined) raise('gte', p['timestamp.gte']);
  if (p['timestamp.gt'] !== undefined) raise('gt', p['timestamp.gt']);
  if (p['timestamp.lte'] !== undefined) raise('lte', p['timestamp.lte']);
  if (p['timestamp.lt'] !== undefined) raise('lt', p['timestamp.lt']);
  return range;
}

/** A symbol in a path is "unknown" (404) when neither the security master nor the ticks know it. */
async function checkSymbolKnown(ctx: Context, table: TickTable, symbol: string): Promise<void> {
  if (await symbolHasTicks(ctx.db, table, symbol)) return;
  if (await findSecurity(ctx.db, { symbol })) return;
  throw new AppError('NOT_FOUND', `unknown symbol ${JSON.stringify(symbol)}`);
}

/** GET /stocks/v3/{trades|quotes}/{symbol}: one page in the legacy shape. */
async function tickPageResponse<Row>(
  ctx: Context,
  url: URL,
  pathSymbol: string,
  table: TickTable,
  load: (symbol: string, range: TimeRange, args: TickPageArgs) => Promise<Page<Row>>,
  shape: (row: Row) => Record<string, unknown>,
): Promise<Response> {
  const symbol = parseSymbol(pathSymbol, 'symbol');
  const route = `${table}:${symbol}`;
  const { params, raw, after } = readCursorRequest(ctx, url, route, TICK_PARAMS);
  await holdRows(ctx, table, params.limit);
  const page = await load(symbol, timeRange(params), {
    direction: params.order as 'asc' | 'desc',
    first: params.limit,
    after,
  });
  if (page.nodes.length === 0 && !after) await checkSymbolKnown(ctx, table, symbol);
  return cursorPageResponse(ctx, url, route, raw, page, shape);
}

const SYMBOL_PATH: ParamSpecs = {
  symbol: {
    type: 'string',
    required: true,
    pattern: SYMBOL_PARAM_PATTERN,
    description: 'Ticker symbol (case-insensitive).',
  },
};

/** The route of one tick table: trades and quotes differ only in their names, service and record. */
export function tickRoute<Row>(o: {
  table: TickTable;
  path: string;
  access: Route['access'];
  summary: string;
  load: (db: Db, symbol: string, range: TimeRange, args: TickPageArgs) => Promise<Page<Row>>;
  shape: (row: Row) => Record<string, unknown>;
  schema: JsonSchema;
}): Route {
  return {
    method: 'GET',
    path: o.path,
    access: o.access,
    handle: (ctx, url, params) =>
      tickPageResponse(
        ctx,
        url,
        params.symbol!,
        o.table,
        (symbol, range, args) => o.load(ctx.db, symbol, range, args),
        o.shape,
      ),
    doc: {
      summary: o.summary,
      description:
        'Newest first unless order=asc; ties on sip_timestamp broken by sequence_number. Follow next_url for the next page.',
      path: SYMBOL_PATH,
      query: withCursorParam(TICK_PARAMS),
      response: cursorEnvelope(o.schema),
    },
  };
}
