import { holdRows, type Context } from '../context.js';
import { CALL_SUMMARY_FIELDS } from '../domain/records/call-summary.js';
import { callSummaryAtPage, type CallParticipant, type CallSummary } from '../services/call-summary.js';
import { OK_MESSAGE, PAGE_PARAMS, pageEnvelope, pagination } from './page-number.js';
import { recordSchema, recordShaper } from './record-table.js';
import { checkOrder, parseQuery, SYMBOL_PARAM_PATTERN, timeBound, type ParamSpecs } from './params.js';
import { json, shapeRows, type Route } from './route.js';

/** symbol, from, to, page, page_size: the names of docs/rest.md#parameters-per-route. */
const SUMMARY_PARAMS = {
  symbol: {
    type: 'string',
    pattern: SYMBOL_PARAM_PATTERN,
    case: 'upper',
    // the legacy API does not name it: `ticker` too, as Massive's clients send it
    aliases: ['ticker'],
    description: 'Only the calls of this ticker symbol (case-insensitive); every company when absent.',
  },
  from: timeBound('start', 'Only calls at or after this time.'),
  to: timeBound('end', 'Only calls at or before this time.'),
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

const SUMMARY_SCHEMA = recordSchema(CALL_SUMMARY_FIELDS);

function participants(value: unknown): CallParticipant[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null)
    .map((p) => ({
      name: String(p.name ?? ''),
      role: String(p.role ?? ''),
      organization: String(p.organization ?? ''),
    }));
}

/** The summary record of docs/rest.md#the-conference-call-summary-record; `guidance` is left out when the call gave none. */
export const summaryRecord: (c: CallSummary) => Record<string, unknown> = recordShaper<CallSummary>(
  CALL_SUMMARY_FIELDS,
  { participants: (c) => participants(c.participants) },
);

async function summaries(ctx: Context, url: URL): Promise<Response> {
  const p = parseQuery(SUMMARY_PARAMS, url.searchParams);
  await holdRows(ctx, 'CallSummary', p.page_size);
  checkOrder(p.from, p.to, url.searchParams);
  const filter = { symbol: p.symbol, from: p.from, to: p.to };
  const { nodes, totalCount } = await callSummaryAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
  return json({
    data: shapeRows(ctx, nodes, summaryRecord),
    message: OK_MESSAGE,
    pagination: pagination(totalCount, p.page, p.page_size),
  });
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/delivery/api/v1/summaries',
    access: 'callSummaries',
    handle: (ctx, url) => summaries(ctx, url),
    doc: {
      summary: 'Conference-call summaries',
      description: 'Newest call first (ties by id), page by page; from and to are inclusive bounds on the call time.',
      query: SUMMARY_PARAMS,
      response: pageEnvelope(SUMMARY_SCHEMA),
    },
  },
];
