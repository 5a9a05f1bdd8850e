import { DIVIDEND_FIELDS, DIVIDEND_TYPES, FREQUENCIES, type DividendType } from '../domain/records/dividend.js';
import {
  DIVIDEND_PAGE,
  DIVIDEND_SORTS,
  dividendPage,
  type Dividend,
  type DividendFilter,
} from '../services/dividend.js';
import type { JsonSchema } from './json-schema.js';
import { badParam, type ParamSpecs, type ParamValues } from './params.js';
import { recordSchema, recordShaper } from './record-table.js';
import { boundsOf, DATE_SPEC, orderParams, rangedParams, referenceListRoute, TICKER_SPEC } from './reference-list.js';
import type { Route } from './route.js';

/** An amount: digits, with a decimal part if any. */
const AMOUNT_SPEC = { type: 'string', pattern: /^\d{1,12}(\.\d{1,12})?$/ } as const;

/** Massive's parameters of GET /v3/reference/dividends: docs/rest.md#parameters-per-route. */
export const DIVIDEND_PARAMS = {
  ...rangedParams('ticker', TICKER_SPEC, 'dividends of tickers'),
  ...rangedParams('ex_dividend_date', DATE_SPEC, 'dividends whose ex-dividend date (yyyy-mm-dd) is'),
  ...rangedParams('record_date', DATE_SPEC, 'dividends whose record date (yyyy-mm-dd) is'),
  ...rangedParams('declaration_date', DATE_SPEC, 'dividends whose declaration date (yyyy-mm-dd) is'),
  ...rangedParams('pay_date', DATE_SPEC, 'dividends whose pay date (yyyy-mm-dd) is'),
  ...rangedParams('cash_amount', AMOUNT_SPEC, 'dividends whose cash amount per share is'),
  frequency: {
    type: 'integer',
    minimum: 0,
    maximum: 52,
    description: `Only dividends paid this many times a year: one of ${FREQUENCIES.join(', ')} (0: one-time).`,
  },
  dividend_type: {
    type: 'string',
    enum: DIVIDEND_TYPES,
    description: 'Only dividends of this type: CD regular cash, SC special cash, LT and ST capital gains.',
  },
  ...orderParams(DIVIDEND_SORTS, 'ex_dividend_date', DIVIDEND_PAGE),
} as const satisfies ParamSpecs;

/** Massive's dividend record; the optional keys are absent (never null) where the dividend has none. */
export const DIVIDEND_SCHEMA: JsonSchema = recordSchema(DIVIDEND_FIELDS);

/** Massive's dividend record, its keys as Massive spells and orders them. */
export const dividendRecord: (d: Dividend) => Record<string, unknown> = recordShaper(DIVIDEND_FIELDS);

export function dividendFilter(p: ParamValues<typeof DIVIDEND_PARAMS>): DividendFilter {
  if (p.frequency !== undefined && !(FREQUENCIES as readonly number[]).includes(p.frequency))
    throw badParam('frequency', `one of ${FREQUENCIES.join(', ')}`, String(p.frequency));
  return {
    ticker: boundsOf<string>(p, 'ticker'),
    exDividendDate: boundsOf<string>(p, 'ex_dividend_date'),
    recordDate: boundsOf<string>(p, 'record_date'),
    declarationDate: boundsOf<string>(p, 'declaration_date'),
    payDate: boundsOf<string>(p, 'pay_date'),
    cashAmount: boundsOf(p, 'cash_amount', Number),
    frequency: p.frequency,
    dividendType: p.dividend_type as DividendType | undefined,
  };
}

export const routes: Route[] = [
  referenceListRoute({
    path: '/stocks/v3/reference/dividends',
    access: 'dividends',
    route: 'dividends',
    table: 'Dividend',
    params: DIVIDEND_PARAMS,
    filter: dividendFilter,
    page: dividendPage,
    record: dividendRecord,
    schema: DIVIDEND_SCHEMA,
    summary: 'Cash dividends',
    description:
      "Cash dividends, as Massive's GET /v3/reference/dividends answers them: newest first by ex-dividend date unless `sort` and `order` say otherwise, ties broken by id; sorted by a date a dividend lacks (pay, record or declaration date), it comes first in ascending order and last in descending. Every filter given applies. Follow next_url (absolute; its cursor carries every filter) for the next page; it is absent on the last page.",
  }),
];
