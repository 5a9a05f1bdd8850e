import { holdRows, type Context } from '../context.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { AppError } from '../errors.js';
import type { Db } from '../db/client.js';
import type { Page } from '../db/keyset.js';
import { findSecurity } from '../services/security.js';
import { clampNanos, symbolHasTicks, type TickPageArgs, type TickTable, type TimeRange } from '../services/tick.js';
import { parseSymbol } from '../domain/symbols.js';
import { badParam, SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { cursorEnvelope, cursorPageResponse, readCursorRequest, withCursorParam } from './next-url.js';
import type { JsonSchema } from './json-schema.js';
import type { Route } from './route.js';

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}|\d{1,19})$/;
const timestampParam = (description: string) =>
  ({
    type: 'string',
    pattern: TIMESTAMP,
    description: `${description} A date YYYY-MM-DD (UTC) or nanoseconds since the epoch.`,
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
    description: `Results per page, 1 to ${PAGE_SIZES.ticks.max}.`,
  },
  sort: { type: 'string', enum: ['timestamp'], default: 'timestamp', description: 'Sort field; only timestamp.' },
  timestamp: timestampParam('Only this day, or this exact nanosecond.'),
  'timestamp.gte': timestampParam('At or after.'),
  'timestamp.gt': timestampParam('After.'),
  'timestamp.lte': timestampParam('At or before.'),
  'timestamp.lt': timestampParam('Before.'),
} as const satisfies ParamSpecs;

const DAY_NS = 86_400_000_000_000n;

/** A timestamp value as [first, last] nanoseconds it covers: a whole day for a date. */
function span(name: string, value: string): [bigint, bigint] {
  if (value.includes('-')) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
      throw badParam(name, 'a date YYYY-MM-DD or nanoseconds', value);
    const start = BigInt(ms) * 1_000_000n;
    return [clampNanos(start), clampNanos(start + DAY_NS - 1n)];
  }
  const ns = BigInt(value);
  if (ns > 9_223_372_036_854_775_807n) throw badParam(name, 'nanoseconds that fit in 64 bits', value);
  return [ns, ns];
}

export function timeRange(
  p: Partial<
    Record<'timestamp' | 'timestamp.gte' | 'timestamp.gt' | 'timestamp.lte' | 'timestamp.lt', string | undefined>
  >,
): TimeRange {
  const range: TimeRange = {};
  const raise = (k: keyof TimeRange, v: bigint) => {
    if (k === 'gte' || k === 'gt') range[k] = range[k] === undefined || v > range[k]! ? v : range[k];
    else range[k] = range[k] === undefined || v < range[k]! ? v : range[k];
  };
  if (p.timestamp) {
    const [a, b] = span('timestamp', p.timestamp);
    raise('gte', a);
    raise('lte', b);
  }
  if (p['timestamp.gte']) raise('gte', span('timestamp.gte', p['timestamp.gte'])[0]);
  if (p['timestamp.gt']) raise('gt', span('timestamp.gt', p['timestamp.gt'])[1]);
  if (p['timestamp.lte']) raise('lte', span('timestamp.lte', p['timestamp.lte'])[1]);
  if (p['timestamp.lt']) raise('lt', span('timestamp.lt', p['timestamp.lt'])[0]);
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
