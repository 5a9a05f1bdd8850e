import { exposeRecordFields } from './record-fields.js';
import { SPLIT_FIELDS } from '../domain/records/split.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { parseSymbol } from '../domain/symbols.js';
import { AppError } from '../errors.js';
import { children } from '../graphql/plan/declare.js';
import type { Security as SecurityRow } from '../services/security.js';
import { splitPage, splitsByTicker } from '../services/split.js';
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

export const SPLIT_PAGE_GRAPHQL: PageSize = PAGE_SIZES.records;

export const Split = builder.prismaNode('Split', {
  description:
    "A stock split, as Massive's GET /v3/reference/splits lists it: `splitFrom` shares became `splitTo` on `executionDate`. Prices are quoted as traded (raw): divide those before the execution date by splitTo / splitFrom to compare them with later ones.",
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  fields: (t) => ({
    splitId: t.exposeString('id', { description: "Massive's id of the split (REST field `id`)." }),
    ...exposeRecordFields(t, SPLIT_FIELDS),
    security: t.field({
      type: Security,
      nullable: true,
      description:
        'The security-master record that has the ticker now (its first listing); null when the master does not hold it.',
      resolve: (s, _args, ctx) => securityBySymbol(ctx, s.ticker),
    }),
  }),
});

export const SplitConnection = connectionType(Split, 'SplitConnection');

/** A ticker argument, upper-cased by the symbol rule; a BAD_REQUEST naming `argument` otherwise. */
export function tickerArg(ticker: string | null | undefined, argument = 'ticker'): string | undefined {
  return ticker === null || ticker === undefined ? undefined : parseSymbol(ticker, argument);
}

/** `from` and `to` as inclusive bounds on a date column; `from` after `to` selects nothing by construction, so it is refused. */
export function dateBounds(from: string | null | undefined, to: string | null | undefined) {
  if (from && to && from > to) throw new AppError('BAD_REQUEST', `argument "from" (${from}) is after "to" (${to})`);
  return { gte: from ?? undefined, lte: to ?? undefined };
}

const pageArgs = pagingArgs(SPLIT_PAGE_GRAPHQL);

builder.queryField('splits', (t) =>
  t.field({
    authScopes: { entitled: 'splits' },
    nullable: true,
    type: SplitConnection,
    description: 'Stock splits, newest first by execution date (REST GET /stocks/v3/reference/splits).',
    args: {
      ticker: t.arg.string({ description: `Only the splits of this ticker. ${SYMBOL_DESCRIPTION}` }),
      from: t.arg({ type: 'Date', description: 'Only splits executed on this day or later.' }),
      to: t.arg({ type: 'Date', description: 'Only splits executed on this day or earlier.' }),
      reverseSplit: t.arg.boolean({
        description: 'true: only reverse splits (splitFrom greater than splitTo); false: only the others.',
      }),
      ...pageArgs,
    },
    resolve: async (_root, { ticker, from, to, reverseSplit, ...args }, ctx) => {
      const symbol = tickerArg(ticker);
      const filter = {
        ticker: symbol === undefined ? undefined : { eq: symbol },
        executionDate: dateBounds(from, to),
        reverseSplit: reverseSplit ?? undefined,
      };
      return connection(await splitPage(ctx.db, filter, keysetArgs(args, SPLIT_PAGE_GRAPHQL)));
    },
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  splits: t.field({
    authScopes: { entitled: 'splits' },
    nullable: true,
    type: SplitConnection,
    description:
      "Splits of this security's symbol, newest first by execution date (those recorded under a symbol it had before are listed under that symbol).",
    args: pageArgs,
    ...children<SecurityRow, PagingInput>('symbol', (args) => ({
      list: splitsByTicker(),
      args: keysetArgs(args, SPLIT_PAGE_GRAPHQL),
    })),
  }),
}));
