// The legacy balance-sheet record (GET /stocks/v1/fundamentals/balance-sheet): the amounts are
// BALANCE_SHEET_REQUIRED and BALANCE_SHEET_OPTIONAL (domain/fundamentals.ts), each in its column
// of the same name in camelCase; an optional amount is left out when the filing does not report it.
import type { Timeframe } from '../../../generated/prisma/enums.js';
import { FISCAL_YEARS } from '../fiscal.js';
import { BALANCE_SHEET_OPTIONAL, BALANCE_SHEET_REQUIRED, camelOf } from '../fundamentals.js';
import type { RecordTable } from './table.js';

export const TIMEFRAMES = ['quarterly', 'annual', 'trailing_twelve_months'] as const satisfies readonly Timeframe[];

const humanize = (snake: string) => snake[0]!.toUpperCase() + snake.slice(1).replaceAll('_', ' ');

export const BALANCE_SHEET_FIELDS = [
  {
    key: 'cik',
    column: 'cik',
    kind: 'cik',
    description: 'SEC Central Index Key, zero-padded to 10 digits.',
    graphql: { description: 'SEC Central Index Key of the company, zero-padded to 10 digits.' },
  },
  {
    key: 'symbols',
    column: 'symbols',
    kind: 'symbols',
    list: 'shareClasses',
    description: 'Ticker symbols of the company, main listing first.',
  },
  {
    key: 'fiscal_year',
    column: 'fiscalYear',
    kind: 'integer',
    min: FISCAL_YEARS.min,
    max: FISCAL_YEARS.max,
    description: 'Fiscal year.',
    graphql: { description: 'Fiscal year the period belongs to.' },
  },
  {
    key: 'fiscal_quarter',
    column: 'fiscalQuarter',
    kind: 'integer',
    min: 1,
    max: 4,
    shown: true,
    description: 'Fiscal quarter, 1 to 4.',
    graphql: { description: 'Fiscal quarter, 1 to 4 (for annual and trailing periods: the quarter they end with).' },
  },
  {
    key: 'reporting_period_end',
    column: 'reportingPeriodEnd',
    kind: 'date',
    description: 'Last day of the reporting period.',
  },
  {
    key: 'timeframe',
    column: 'timeframe',
    kind: 'enum',
    values: TIMEFRAMES,
    description: 'The period the balance sheet covers.',
  },
  ...BALANCE_SHEET_REQUIRED.map(
    (key) =>
      ({
        key,
        column: camelOf(key),
        kind: 'number',
        description: `${humanize(key)}; may be negative.`,
        graphql: { description: `${humanize(key)} (REST field \`${key}\`); may be negative.` },
      }) as const,
  ),
  ...BALANCE_SHEET_OPTIONAL.map(
    (key) =>
      ({
        key,
        column: camelOf(key),
        kind: 'number',
        missing: 'omit',
        description: `${humanize(key)}; may be negative; left out when the filing does not report it.`,
        graphql: {
          description: `${humanize(key)} (REST field \`${key}\`); may be negative; null when the filing does not report it.`,
        },
      }) as const,
  ),
] as const satisfies RecordTable;
