import { holdRows, type Context } from '../context.js';
import { FISCAL_PERIODS, FISCAL_YEARS } from '../domain/fiscal.js';
import { columnOf, NULLABLE_LINES, STATEMENT_LINES } from '../domain/fundamentals.js';
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
import type { LitigationInsight, MdnaInsight, RiskFactorsInsight } from '../domain/insights.js';
import { arr, date, int, nullable, num, object, str, timestamp, type JsonSchema } from './json-schema.js';
import { parseQuery, SYMBOL_PARAM_PATTERN, type ParamSpecs } from './params.js';
import { OK_MESSAGE, PAGE_PARAMS, pageEnvelope, pagination } from './page-number.js';
import { json, type Route } from './route.js';

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

// ------------------------------------------------------------------ records

const statementSchemas: Record<string, JsonSchema> = Object.fromEntries(
  STATEMENT_LINES.map((line) => [
    line,
    NULLABLE_LINES.has(line) ? { ...nullable(num()), description: 'Null when not reported.' } : num(),
  ]),
);

const LITE_SCHEMA = object({
  ticker: str('Ticker symbol.'),
  EndPeriod: date('Last day of the period.'),
  Quarter: {
    type: 'string',
    enum: [...FISCAL_PERIODS],
    description: 'Fiscal quarter, or FY for the full fiscal year.',
  },
  Year: int('Fiscal year.'),
  ...statementSchemas,
});

/** A derived metric: a number, or null when it cannot be computed (docs/data.md#enhanced-fundamentals-computed). */
const metric = (description: string): JsonSchema => ({
  ...nullable(num()),
  description: `${description} Null when it cannot be computed (a zero denominator, no trade price, no share or employee count).`,
});
/** An insight group: null as a whole when no filing text or imported value exists. */
const insight = (schema: JsonSchema): JsonSchema => ({
  ...nullable(schema),
  description: 'Null when no filing text or imported value exists.',
});

const ENHANCED_SCHEMA = object({
  symbol: str('Ticker symbol.'),
  cik: str('SEC Central Index Key, zero-padded to 10 digits.'),
  EndPeriod: date('Last day of the period.'),
  Quarter: {
    type: 'string',
    enum: [...FISCAL_PERIODS],
    description: 'Fiscal quarter, or FY for the full fiscal year.',
  },
  Year: int('Fiscal year.'),
  ...statementSchemas,
  pe_ratio: metric('Latest trade price to annualized diluted earnings per share.'),
  price_to_book: metric('Market capitalization to equity attributable to the parent.'),
  debt_to_equity: metric('Current and long-term debt to total equity.'),
  return_on_assets: metric('Annualized net income to total assets.'),
  return_on_equity: metric('Annualized net income to total equity.'),
  revenue_per_employee: metric('Annualized revenue per employee.'),
  roic: metric('Annualized after-tax operating income to debt plus equity.'),
  fcf_yield: metric('Annualized free cash flow to market capitalization.'),
  working_capital_days: object({
    dso: metric('Days sales outstanding.'),
    dio: metric('Days inventory outstanding.'),
    dpo: metric('Days payables outstanding.'),
  }),
  risk_factors: insight(
    object({
      count: int('Number of risk factors.'),
      top_themes: arr(str(), 'The risk themes most risk factors mention.'),
      average_sentiment_score: {
        ...nullable(num()),
        description: 'Average sentiment of the risk factors, -1 to 1; null when there are none.',
      },
      most_negative_risk: {
        ...nullable(object({ heading: str('Heading of the risk factor.'), sentiment: num('Its sentiment, -1 to 1.') })),
        description: 'The most negative risk factor; null when there are none.',
      },
    }),
  ),
  mdna: insight(
    object({
      forward_looking_term_count: int('Number of forward-looking terms.'),
      forward_to_historical_ratio: {
        ...nullable(num()),
        description: 'Forward-looking to historical statements; null when there are no historical ones.',
      },
      tone_score: num('Tone of the section, -1 to 1.'),
      key_topics: arr(str(), 'Key topics discussed.'),
    }),
  ),
  litigation_mentions: insight(
    object({
      count: int('Number of legal matters mentioned.'),
      recent_headings: arr(str(), 'Headings of the most recent ones.'),
    }),
  ),
  created_at: timestamp('When the record was created.'),
  updated_at: timestamp('When the record last changed.'),
});

/** The statement lines under their spec names (PascalCase), CommitmentsContingencies null when not reported. */
function statementLines(f: Fundamental): Record<string, number | null> {
  return Object.fromEntries(STATEMENT_LINES.map((line) => [line, f[columnOf(line)] ?? null]));
}

const riskFactorsJson = (r: RiskFactorsInsight | null) =>
  r && {
    count: r.count,
    top_themes: r.topThemes,
    average_sentiment_score: r.averageSentimentScore,
    most_negative_risk: r.mostNegativeRisk && {
      heading: r.mostNegativeRisk.heading,
      sentiment: r.mostNegativeRisk.sentiment,
    },
  };

const mdnaJson = (m: MdnaInsight | null) =>
  m && {
    forward_looking_term_count: m.forwardLookingTermCount,
    forward_to_historical_ratio: m.forwardToHistoricalRatio,
    tone_score: m.toneScore,
    key_topics: m.keyTopics,
  };

const litigationJson = (l: LitigationInsight | null) => l && { count: l.count, recent_headings: l.recentHeadings };

/** The legacy lite fundamentals record. */
export function liteRecord(f: Fundamental): Record<string, unknown> {
  return { ticker: f.symbol, EndPeriod: f.endPeriod, Quarter: f.quarter, Year: f.year, ...statementLines(f) };
}

/** The legacy enhanced record: the lite record with `symbol` and `cik` instead of `ticker`, plus metrics and insights. */
export function enhancedRecord(f: FundamentalWithMetrics): Record<string, unknown> {
  const m = f.metrics;
  if (!m) throw new Error(`enhanced fundamentals record ${f.id} has no metrics`);
  return {
    symbol: f.symbol,
    cik: f.cik,
    EndPeriod: f.endPeriod,
    Quarter: f.quarter,
    Year: f.year,
    ...statementLines(f),
    pe_ratio: m.peRatio,
    price_to_book: m.priceToBook,
    debt_to_equity: m.debtToEquity,
    return_on_assets: m.returnOnAssets,
    return_on_equity: m.returnOnEquity,
    revenue_per_employee: m.revenuePerEmployee,
    roic: m.roic,
    fcf_yield: m.fcfYield,
    working_capital_days: { dso: m.dso, dio: m.dio, dpo: m.dpo },
    risk_factors: riskFactorsJson(riskFactorsOf(m)),
    mdna: mdnaJson(mdnaOf(m)),
    litigation_mentions: litigationJson(litigationOf(m)),
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

// ------------------------------------------------------------------ routes

function readQuery(url: URL) {
  const p = parseQuery(FUNDAMENTAL_PARAMS, url.searchParams);
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
  const q = readQuery(url);
  await holdRows(ctx, 'EnhancedFundamental', q.pageSize);
  const { nodes, totalCount } = await enhancedFundamentalAtPage(ctx.db, q.filter, {
    page: q.page,
    pageSize: q.pageSize,
  });
  return json({
    data: nodes.map(enhancedRecord),
    message: OK_MESSAGE,
    pagination: pagination(totalCount, q.page, q.pageSize),
  });
}

async function lite(ctx: Context, url: URL): Promise<Response> {
  const q = readQuery(url);
  await holdRows(ctx, 'Fundamental', q.pageSize);
  const { nodes } = await fundamentalAtPage(ctx.db, q.filter, { page: q.page, pageSize: q.pageSize });
  return json(nodes.map(liteRecord));
}

const ORDER_NOTE =
  "Newest period first (by period end; a fiscal year's FY record comes before its Q4). An unknown symbol gives an empty list, not a 404: the symbol is a filter, not part of the path.";

export const fundamentalRoutes: Route[] = [
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
      description: `A JSON array of statement records, page by page (the parameters of the enhanced endpoint). ${ORDER_NOTE}`,
      query: FUNDAMENTAL_PARAMS,
      response: arr(LITE_SCHEMA),
    },
  },
];
