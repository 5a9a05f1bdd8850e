import { holdRows, type Context } from '../context.js';
import { FISCAL_PERIODS } from '../domain/fiscal.js';
import { callSummaryAtPage, type CallParticipant, type CallSummary } from '../services/call-summary.js';
import { OK_MESSAGE, PAGE_PARAMS, pageEnvelope, pagination } from './page-number.js';
import { arr, int, num, object, str, timestamp } from './json-schema.js';
import { checkOrder, parseQuery, SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { json, type Route } from './route.js';

/** symbol, from, to, page, page_size: the names of docs/rest.md#parameters-per-route. */
const SUMMARY_PARAMS = {
  symbol: {
    type: 'string',
    pattern: SYMBOL_PARAM_PATTERN,
    description: 'Only the calls of this ticker symbol (case-insensitive); every company when absent.',
  },
  from: {
    type: 'string',
    format: 'date-time',
    description: 'Only calls at or after this time: ISO 8601 YYYY-MM-DDTHH:MM:SS (UTC unless a zone is given).',
  },
  to: {
    type: 'string',
    format: 'date-time',
    description: 'Only calls at or before this time: ISO 8601 YYYY-MM-DDTHH:MM:SS (UTC unless a zone is given).',
  },
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

const SUMMARY_SCHEMA = object(
  {
    id: int('Record id.'),
    symbol: str('Ticker symbol of the company.'),
    company_name: str('Company name.'),
    call_date: timestamp('When the call took place.'),
    fiscal_year: int('Fiscal year the call reports on.'),
    fiscal_period: { type: 'string', enum: [...FISCAL_PERIODS], description: 'Fiscal period the call reports on.' },
    title: str('Title of the call.'),
    summary: str('Summary of what was said.'),
    key_points: arr(str(), 'The main points, in order.'),
    guidance: str('Forward guidance given on the call; absent when none was given.'),
    sentiment_score: num('Tone of the call, -1 (negative) to 1 (positive).'),
    participants: arr(
      object({
        name: str('Full name.'),
        role: str('Role on the call.'),
        organization: str('The company or firm they represent.'),
      }),
      'Who spoke on the call.',
    ),
    created_at: timestamp('When the record was created.'),
    updated_at: timestamp('When the record last changed.'),
  },
  [
    'id',
    'symbol',
    'company_name',
    'call_date',
    'fiscal_year',
    'fiscal_period',
    'title',
    'summary',
    'key_points',
    'sentiment_score',
    'participants',
    'created_at',
    'updated_at',
  ],
);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

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
export function summaryRecord(c: CallSummary): Record<string, unknown> {
  return {
    id: c.id,
    symbol: c.symbol,
    company_name: c.companyName,
    call_date: c.callDate.toISOString(),
    fiscal_year: c.fiscalYear,
    fiscal_period: c.fiscalPeriod,
    title: c.title,
    summary: c.summary,
    key_points: strings(c.keyPoints),
    ...(c.guidance !== null ? { guidance: c.guidance } : {}),
    sentiment_score: c.sentimentScore,
    participants: participants(c.participants),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

async function summaries(ctx: Context, url: URL): Promise<Response> {
  const p = parseQuery(SUMMARY_PARAMS, url.searchParams);
  await holdRows(ctx, 'CallSummary', p.page_size);
  checkOrder(p.from, p.to);
  const filter = { symbol: p.symbol?.toUpperCase(), from: p.from, to: p.to };
  const { nodes, totalCount } = await callSummaryAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
  return json({
    data: nodes.map(summaryRecord),
    message: OK_MESSAGE,
    pagination: pagination(totalCount, p.page, p.page_size),
  });
}

export const callSummaryRoutes: Route[] = [
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
