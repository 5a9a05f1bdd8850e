import { exposeRecordFields } from './record-fields.js';
import { DIVIDEND_FIELDS, DIVIDEND_TYPES } from '../domain/records/dividend.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { children, computed } from '../graphql/plan/declare.js';
import { dividendPage, dividendsByTicker, type DividendType } from '../services/dividend.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  connection,
  connectionType,
  keysetArgs,
  pagingArgs,
  SYMBOL_DESCRIPTION,
  type PageSize,
  type PagingInput,
} from './common.js';
import { Security, securityBySymbol } from './security.js';
import { dateBounds, tickerArg } from './split.js';

export const DIVIDEND_PAGE_GRAPHQL: PageSize = PAGE_SIZES.records;

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
    security: t.field({
      type: Security,
      nullable: true,
      description:
        'The security-master record that has the ticker now (its first listing); null when the master does not hold it.',
      resolve: (d, _args, ctx) => securityBySymbol(ctx, d.ticker),
    }),
  }),
});

export const DividendConnection = connectionType(Dividend, 'DividendConnection');

const pageArgs = pagingArgs(DIVIDEND_PAGE_GRAPHQL);

builder.queryField('dividends', (t) =>
  t.field({
    authScopes: { entitled: 'dividends' },
    nullable: true,
    type: DividendConnection,
    description: 'Cash dividends, newest first by ex-dividend date (REST GET /stocks/v3/reference/dividends).',
    args: {
      ticker: t.arg.string({ description: `Only the dividends of this ticker. ${SYMBOL_DESCRIPTION}` }),
      from: t.arg({ type: 'Date', description: 'Only dividends whose ex-dividend date is this day or later.' }),
      to: t.arg({ type: 'Date', description: 'Only dividends whose ex-dividend date is this day or earlier.' }),
      dividendType: t.arg({ type: DividendTypeEnum, description: 'Only dividends of this type.' }),
      ...pageArgs,
    },
    resolve: async (_root, { ticker, from, to, dividendType, ...args }, ctx) => {
      const symbol = tickerArg(ticker);
      const filter = {
        ticker: symbol === undefined ? undefined : { eq: symbol },
        exDividendDate: dateBounds(from, to),
        dividendType: dividendType ?? undefined,
      };
      return connection(await dividendPage(ctx.db, filter, keysetArgs(args, DIVIDEND_PAGE_GRAPHQL)));
    },
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  dividends: t.field({
    authScopes: { entitled: 'dividends' },
    nullable: true,
    type: DividendConnection,
    description:
      "Cash dividends of this security's symbol, newest first by ex-dividend date (those recorded under a symbol it had before are listed under that symbol).",
    args: pageArgs,
    ...children<SecurityRow, PagingInput>('symbol', (args) => ({
      list: dividendsByTicker(),
      args: keysetArgs(args, DIVIDEND_PAGE_GRAPHQL),
    })),
  }),
}));
