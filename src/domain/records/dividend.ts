// Massive's cash dividend record (GET /v3/reference/dividends), its keys as Massive spells and
// orders them; the optional keys are absent (never null) where the dividend has none.
import type { RecordTable } from './table.js';

/**
 * Massive's kinds of dividend: CD regular cash (paid on a schedule), SC special cash (one-off), LT
 * and ST long- and short-term capital gain distributions. The one rule of the REST parameter, the
 * GraphQL enum and an imported record's field.
 */
export const DIVIDEND_TYPES = ['CD', 'SC', 'LT', 'ST'] as const;
export type DividendType = (typeof DIVIDEND_TYPES)[number];

/** Payments a year, as Massive counts them: 0 one-time, then yearly, twice, quarterly, monthly, twice a month, weekly. */
export const FREQUENCIES = [0, 1, 2, 4, 12, 24, 52] as const;

export const DIVIDEND_FIELDS = [
  {
    key: 'cash_amount',
    column: 'cashAmount',
    kind: 'number',
    min: 0,
    description: 'The cash paid per share, in `currency`, as declared (not adjusted for later splits).',
  },
  {
    key: 'currency',
    column: 'currency',
    kind: 'text',
    missing: 'omit',
    description: 'The currency it is paid in (ISO 4217, e.g. USD).',
  },
  {
    key: 'declaration_date',
    column: 'declarationDate',
    kind: 'date',
    missing: 'omit',
    description: 'When the dividend was announced, yyyy-mm-dd.',
  },
  {
    key: 'dividend_type',
    column: 'dividendType',
    kind: 'enum',
    values: DIVIDEND_TYPES,
    description:
      'CD: regular cash, paid on a schedule; SC: special cash, one-off; LT and ST: long- and short-term capital gain distributions.',
  },
  {
    key: 'ex_dividend_date',
    column: 'exDividendDate',
    kind: 'date',
    description: 'The first exchange day the shares trade without the dividend, yyyy-mm-dd.',
  },
  // one of FREQUENCIES: the importer checks the set (ingest/resources/dividend.ts)
  {
    key: 'frequency',
    column: 'frequency',
    kind: 'integer',
    min: 0,
    max: 52,
    description: 'Payments a year: 0 (one-time), 1, 2, 4 (quarterly), 12, 24 or 52.',
  },
  {
    key: 'id',
    column: 'id',
    kind: 'text',
    nonEmpty: true,
    description: "Massive's identifier of the dividend.",
    graphql: false,
  },
  {
    key: 'pay_date',
    column: 'payDate',
    kind: 'date',
    missing: 'omit',
    description: 'When the dividend is paid, yyyy-mm-dd.',
  },
  {
    key: 'record_date',
    column: 'recordDate',
    kind: 'date',
    missing: 'omit',
    description: 'The day a holder must be on the books to receive it, yyyy-mm-dd.',
  },
  {
    key: 'ticker',
    column: 'ticker',
    kind: 'symbol',
    description: 'The symbol the security traded under on the ex-dividend date.',
  },
] as const satisfies RecordTable;
