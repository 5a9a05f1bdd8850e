// The legacy fundamentals records: lite (GET /delivery/api/v1/fundamentals/lite) and enhanced
// (/enhanced), which share the period and the statement lines (domain/fundamentals.ts, under their
// spec names in PascalCase). The enhanced record's metrics and insights are computed by the service
// (docs/data.md#enhanced-fundamentals-computed): written, never imported as given.
import { FISCAL_PERIODS, FISCAL_YEARS } from '../fiscal.js';
import { columnOf, NULLABLE_LINES, STATEMENT_LINES } from '../fundamentals.js';
import { type Field, type RecordTable, STORE_STAMPS } from './table.js';

const PERIOD_FIELDS = [
  {
    key: 'EndPeriod',
    column: 'endPeriod',
    kind: 'date',
    description: 'Last day of the period.',
    graphql: { description: 'Last day of the period (REST field `EndPeriod`).' },
  },
  {
    key: 'Quarter',
    column: 'quarter',
    kind: 'enum',
    values: FISCAL_PERIODS,
    description: 'Fiscal quarter, or FY for the full fiscal year.',
  },
  {
    key: 'Year',
    column: 'year',
    kind: 'integer',
    min: FISCAL_YEARS.min,
    max: FISCAL_YEARS.max,
    description: 'Fiscal year.',
    graphql: { description: 'Fiscal year (REST field `Year`).' },
  },
] as const satisfies RecordTable;

/**
 * The statement lines; CommitmentsContingencies and its kind are null when not reported. The graph
 * groups them by statement (`statementType` of schema/fundamental.ts, over the same lines).
 */
const STATEMENT_FIELDS: RecordTable = STATEMENT_LINES.map(
  (key): Field =>
    NULLABLE_LINES.has(key)
      ? {
          key,
          column: columnOf(key),
          kind: 'number',
          missing: 'null',
          description: 'Null when not reported.',
          graphql: false,
        }
      : { key, column: columnOf(key), kind: 'number', graphql: false },
);

/** The ticker of both records, which the graph names `symbol` in both. */
const SYMBOL_GRAPHQL = {
  description: 'Ticker symbol (REST field `ticker` in lite records, `symbol` in enhanced ones).',
} as const;

export const FUNDAMENTAL_LITE_FIELDS: RecordTable = [
  { key: 'ticker', column: 'symbol', kind: 'symbol', description: 'Ticker symbol.', graphql: SYMBOL_GRAPHQL },
  ...PERIOD_FIELDS,
  ...STATEMENT_FIELDS,
];

/**
 * A derived metric: a number, or null when it cannot be computed; a column of the record's
 * FundamentalMetrics row, which the graph shows as a type of its own (`metrics`).
 */
const metric = (key: string, column: string, description: string, graphqlDescription?: string): Field => ({
  key,
  column: `metrics.${column}`,
  kind: 'number',
  missing: 'null',
  derived: true,
  description: `${description} Null when it cannot be computed (a zero denominator, no trade price, no share or employee count).`,
  graphql: {
    description:
      graphqlDescription ?? `${description.slice(0, -1)} (REST field \`${key}\`); null when it cannot be computed.`,
  },
});

/** The ratios (`metrics` in the graph). */
export const METRIC_FIELDS: RecordTable = [
  metric('pe_ratio', 'peRatio', 'Latest trade price to annualized diluted earnings per share.'),
  metric('price_to_book', 'priceToBook', 'Market capitalization to equity attributable to the parent.'),
  metric('debt_to_equity', 'debtToEquity', 'Current and long-term debt to total equity.'),
  metric('return_on_assets', 'returnOnAssets', 'Annualized net income to total assets.'),
  metric('return_on_equity', 'returnOnEquity', 'Annualized net income to total equity.'),
  metric('revenue_per_employee', 'revenuePerEmployee', 'Annualized revenue per employee.'),
  metric('roic', 'roic', 'Annualized after-tax operating income to debt plus equity.'),
  metric('fcf_yield', 'fcfYield', 'Annualized free cash flow to market capitalization.'),
];

/** The working-capital cycle (`working_capital_days`). */
export const WORKING_CAPITAL_DAYS_FIELDS: RecordTable = [
  metric(
    'dso',
    'dso',
    'Days sales outstanding.',
    'Days sales outstanding: current assets other than cash, short-term investments and inventories, in days of revenue.',
  ),
  metric(
    'dio',
    'dio',
    'Days inventory outstanding.',
    'Days inventory outstanding: inventories in days of cost of revenue.',
  ),
  metric(
    'dpo',
    'dpo',
    'Days payables outstanding.',
    'Days payables outstanding: accounts payable in days of cost of revenue.',
  ),
];

/** An insight group: null as a whole when no filing text or imported value exists. */
const insight = (key: string, column: string, fields: RecordTable): Field => ({
  key,
  column,
  kind: 'object',
  fields,
  missing: 'null',
  description: 'Null when no filing text or imported value exists.',
});

/** The most negative risk factor (`risk_factors.most_negative_risk`). */
export const MOST_NEGATIVE_RISK_FIELDS: RecordTable = [
  { key: 'heading', column: 'heading', kind: 'text', description: 'Heading of the risk factor.' },
  {
    key: 'sentiment',
    column: 'sentiment',
    kind: 'number',
    min: -1,
    max: 1,
    description: 'Its sentiment, -1 to 1.',
    graphql: { description: 'Its sentiment score, -1 to 1.' },
  },
];

/** What the risk-factor section says (`risk_factors`). */
export const RISK_FACTORS_FIELDS: RecordTable = [
  { key: 'count', column: 'count', kind: 'integer', min: 0, description: 'Number of risk factors.' },
  {
    key: 'top_themes',
    column: 'topThemes',
    kind: 'strings',
    description: 'The risk themes most risk factors mention.',
  },
  {
    key: 'average_sentiment_score',
    column: 'averageSentimentScore',
    kind: 'number',
    min: -1,
    max: 1,
    missing: 'null',
    description: 'Average sentiment of the risk factors, -1 to 1; null when there are none.',
  },
  {
    key: 'most_negative_risk',
    column: 'mostNegativeRisk',
    kind: 'object',
    missing: 'null',
    fields: MOST_NEGATIVE_RISK_FIELDS,
    description: 'The most negative risk factor; null when there are none.',
  },
];

/** What management's discussion and analysis says (`mdna`). */
export const MDNA_FIELDS: RecordTable = [
  {
    key: 'forward_looking_term_count',
    column: 'forwardLookingTermCount',
    kind: 'integer',
    min: 0,
    description: 'Number of forward-looking terms.',
  },
  {
    key: 'forward_to_historical_ratio',
    column: 'forwardToHistoricalRatio',
    kind: 'number',
    min: 0,
    missing: 'null',
    description: 'Forward-looking to historical statements; null when there are no historical ones.',
  },
  {
    key: 'tone_score',
    column: 'toneScore',
    kind: 'number',
    min: -1,
    max: 1,
    description: 'Tone of the section, -1 to 1.',
    graphql: { description: 'Tone of the section, -1 (negative) to 1 (positive).' },
  },
  { key: 'key_topics', column: 'keyTopics', kind: 'strings', description: 'Key topics discussed.' },
];

/** Litigation mentioned in the filing (`litigation_mentions`). */
export const LITIGATION_FIELDS: RecordTable = [
  { key: 'count', column: 'count', kind: 'integer', min: 0, description: 'Number of legal matters mentioned.' },
  {
    key: 'recent_headings',
    column: 'recentHeadings',
    kind: 'strings',
    description: 'Headings of the most recent ones.',
  },
];

export const FUNDAMENTAL_ENHANCED_FIELDS: RecordTable = [
  { key: 'symbol', column: 'symbol', kind: 'symbol', description: 'Ticker symbol.', graphql: SYMBOL_GRAPHQL },
  { key: 'cik', column: 'cik', kind: 'cik', description: 'SEC Central Index Key, zero-padded to 10 digits.' },
  ...PERIOD_FIELDS,
  ...STATEMENT_FIELDS,
  ...METRIC_FIELDS,
  {
    key: 'working_capital_days',
    kind: 'object',
    derived: true,
    fields: WORKING_CAPITAL_DAYS_FIELDS,
  },
  insight('risk_factors', 'riskFactors', RISK_FACTORS_FIELDS),
  insight('mdna', 'mdna', MDNA_FIELDS),
  insight('litigation_mentions', 'litigation', LITIGATION_FIELDS),
  ...STORE_STAMPS,
];
