import { holdRows, type Context } from '../context.js';
import { FISCAL_PERIODS, FISCAL_YEARS } from '../domain/fiscal.js';
import { FUNDAMENTAL_ENHANCED_FIELDS, FUNDAMENTAL_LITE_FIELDS } from '../domain/records/fundamental.js';
import {
  enhancedFundamentalAtPage,
  fundamentalAtPage,
  litigationOf,
  mdnaOf,
  riskFactorsOf,
  type FiscalPeriod,
  type Fundamental,
  type FundamentalWithMetrics,
} from '../services/fundamental.js';
import { arr } from './json-schema.js';
import { recordSchema, recordShaper } from './record-table.js';
import { parseQuery, SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { OK_MESSAGE, PAGE_PARAMS, pageEnvelope, pagination } from './page-number.js';
import { json, shapeRows, type Route } from './route.js';

// ------------------------------------------------------------------ parameters

const FUNDAMENTAL_PARAMS = {
  symbol: {
    type: 'string',
    required: true,
    pattern: SYMBOL_PARAM_PATTERN,
    description: 'Ticker symbol (case-insensitive).',
  },
  fiscal_year: {
    type: 'integer',
    minimum: FISCAL_YEARS.min,
    maximum: FISCAL_YEARS.max,
    description: `Only this fiscal year, ${FISCAL_YEARS.min} to ${FISCAL_YEARS.max}.`,
  },
  fiscal_period: {
    type: 'string',
    enum: FISCAL_PERIODS,
    description: 'Only this fiscal period: Q1 to Q4, or FY for the full fiscal year.',
  },
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

/** The lite route's: the legacy API names none of them, so `ticker` (the lite record's own key) is read as `symbol`. */
const LITE_PARAMS = {
  ...FUNDAMENTAL_PARAMS,
  symbol: { ...FUNDAMENTAL_PARAMS.symbol, aliases: ['ticker'] },
} as const satisfies ParamSpecs;

// ------------------------------------------------------------------ records

const LITE_SCHEMA = recordSchema(FUNDAMENTAL_LITE_FIELDS);
const ENHANCED_SCHEMA = recordSchema(FUNDAMENTAL_ENHANCED_FIELDS);

/** The legacy lite fundamentals record. */
export const liteRecord: (f: Fundamental) => Record<string, unknown> = recordShaper(FUNDAMENTAL_LITE_FIELDS);

const enhancedShape = recordShaper(FUNDAMENTAL_ENHANCED_FIELDS);

/** The legacy enhanced record: the lite record with `symbol` and `cik` instead of `ticker`, plus metrics and insights. */
export function enhancedRecord(f: FundamentalWithMetrics): Record<string, unknown> {
  const m = f.metrics;
  if (!m) throw new Error(`enhanced fundamentals record ${f.id} has no metrics`);
  return enhancedShape({ ...f, riskFactors: riskFactorsOf(m), mdna: mdnaOf(m), litigation: litigationOf(m) });
}

// ------------------------------------------------------------------ routes

function readQuery(url: URL, specs: typeof FUNDAMENTAL_PARAMS | typeof LITE_PARAMS) {
  const p = parseQuery(specs, url.searchParams);
  return {
    filter: {
      symbol: p.symbol.toUpperCase(),
      fiscalYear: p.fiscal_year,
      fiscalPeriod: p.fiscal_period as FiscalPeriod | undefined,
    },
    page: p.page,
    pageSize: p.page_size,
  };
}

async function enhanced(ctx: Context, url: URL): Promise<Response> {
  const q = readQuery(url, FUNDAMENTAL_PARAMS);
  await holdRows(ctx, 'EnhancedFundamental', q.pageSize);
  const { nodes, totalCount } = await enhancedFundamentalAtPage(ctx.db, q.filter, {
    page: q.page,
    pageSize: q.pageSize,
  });
  return json({
    data: shapeRows(ctx, nodes, enhancedRecord),
    message: OK_MESSAGE,
    pagination: pagination(totalCount, q.page, q.pageSize),
  });
}

async function lite(ctx: Context, url: URL): Promise<Response> {
  const q = readQuery(url, LITE_PARAMS);
  await holdRows(ctx, 'Fundamental', q.pageSize);
  const { nodes, totalCount } = await fundamentalAtPage(ctx.db, q.filter, { page: q.page, pageSize: q.pageSize });
  // a bare array carries no total: the header counts every match, as the other array and {data, message} routes do
  return json(shapeRows(ctx, nodes, liteRecord), 200, { 'x-total-count': String(totalCount) });
}

const ORDER_NOTE =
  "Newest period first (by period end; a fiscal year's FY record comes before its Q4). An unknown symbol gives an empty list, not a 404: the symbol is a filter, not part of the path.";

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/delivery/api/v1/fundamentals/enhanced',
    access: 'enhancedFundamentals',
    handle: (ctx, url) => enhanced(ctx, url),
    doc: {
      summary: 'Enhanced fundamentals of a symbol',
      description: `Statements plus derived metrics and text-derived insights, page by page. ${ORDER_NOTE}`,
      query: FUNDAMENTAL_PARAMS,
      response: pageEnvelope(ENHANCED_SCHEMA),
    },
  },
  {
    method: 'GET',
    path: '/delivery/api/v1/fundamentals/lite',
    access: 'fundamentals',
    handle: (ctx, url) => lite(ctx, url),
    doc: {
      summary: 'Lite fundamentals of a symbol',
      description: `A JSON array of statement records, page by page (the parameters of the enhanced endpoint, and \`ticker\` for \`symbol\`); the X-Total-Count header counts every matching record. ${ORDER_NOTE}`,
      query: LITE_PARAMS,
      response: arr(LITE_SCHEMA),
    },
  },
];
