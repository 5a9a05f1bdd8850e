import { exposeRecordFields } from './record-fields.js';
import { DIVIDEND_FIELDS, DIVIDEND_TYPES } from '../domain/records/dividend.js';
import { builder } from '../builder.js';
import { computed } from '../graphql/plan/declare.js';
import { dividendPage, dividendsByTicker, type DividendType } from '../services/dividend.js';
import { connectionType } from './common.js';
import { referenceListFields, securityOfTicker } from './reference-list.js';

const TYPE_DESCRIPTIONS: Record<DividendType, string> = {
  CD: 'Regular cash, paid on a schedule.',
  SC: 'Special cash: one-off, not expected to recur.',
  LT: 'A long-term capital gain distribution.',
  ST: 'A short-term capital gain distribution.',
};

export const DividendTypeEnum = builder.enumType('DividendType', {
  description: "Massive's kind of dividend (REST `dividend_type`, the same codes).",
  values: Object.fromEntries(DIVIDEND_TYPES.map((v) => [v, { value: v, description: TYPE_DESCRIPTIONS[v] }])) as Record<
    DividendType,
    { value: DividendType; description: string }
  >,
});

export const Dividend = builder.prismaNode('Dividend', {
  description:
    "A cash dividend, as Massive's GET /v3/reference/dividends lists it, in `currency` per share as declared. Optional fields are null where Massive's record leaves the key out.",
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  fields: (t) => ({
    dividendId: t.exposeString('id', { description: "Massive's id of the dividend (REST field `id`)." }),
    ...exposeRecordFields(t, DIVIDEND_FIELDS),
    dividendType: t.field({
      type: DividendTypeEnum,
      description: 'Regular (CD), special (SC) or a capital gain distribution (LT, ST).',
      // stored as imported, one of DIVIDEND_TYPES (ingest/resources/dividend.ts)
      ...computed(['dividendType'], (d: { dividendType: string }) => d.dividendType as DividendType),
    }),
    security: t.field(securityOfTicker()),
  }),
});

export const DividendConnection = connectionType(Dividend, 'DividendConnection');

referenceListFields({
  name: 'dividends',
  connection: DividendConnection,
  description: 'Cash dividends, newest first by ex-dividend date (REST GET /stocks/v3/reference/dividends).',
  securityDescription:
    "Cash dividends of this security's symbol, newest first by ex-dividend date (those recorded under a symbol it had before are listed under that symbol).",
  args: {
    ticker: 'Only the dividends of this ticker.',
    from: 'Only dividends whose ex-dividend date is this day or later.',
    to: 'Only dividends whose ex-dividend date is this day or earlier.',
  },
  ownArgs: (arg) => ({ dividendType: arg({ type: DividendTypeEnum, description: 'Only dividends of this type.' }) }),
  dateKey: 'exDividendDate',
  page: dividendPage,
  byTicker: dividendsByTicker,
});
