import { exposeRecordFields } from './record-fields.js';
import { RATING_FIELDS } from '../domain/records/rating.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import type { Context } from '../context.js';
import { fromMap } from '../graphql/loaders.js';
import { children } from '../graphql/plan/declare.js';
import { parseSymbols } from '../domain/symbols.js';
import {
  ratingPage,
  ratingsByIds,
  ratingsByTicker,
  type Rating as RatingRow,
  type RatingConditions,
} from '../services/rating.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  readRange,
  connection,
  connectionType,
  intNodeId,
  keysetArgs,
  pagingArgs,
  type PageSize,
  type PagingInput,
} from './common.js';
import { Security, securityBySymbol } from './security.js';

export const RATING_PAGE: PageSize = PAGE_SIZES.records;

/** For links from other resources (news): one rating by id, null when it does not exist. */
export function ratingById(ctx: Context, id: number): Promise<RatingRow | null> {
  return ctx.loaders
    .get(
      'ratingById',
      fromMap((ids: readonly number[]) => ratingsByIds(ctx.db, ids), null as RatingRow | null),
    )
    .load(id);
}

export const Rating = builder.prismaNode('Rating', {
  description: "An analyst's rating action on a stock.",
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'Rating') }),
  fields: (t) => ({
    ratingId: t.exposeInt('id', { description: 'The rating id (REST field `id`).' }),
    ...exposeRecordFields(t, RATING_FIELDS),
    security: t.field({
      type: Security,
      nullable: true,
      description:
        'The security-master record of the ticker (its first listing); null when the master does not hold it.',
      resolve: (r, _args, ctx) => securityBySymbol(ctx, r.ticker),
    }),
  }),
});

export const RatingConnection = connectionType(Rating, 'RatingConnection');

const CONDITION_DESCRIPTIONS = {
  exchange: 'Only ratings of stocks on this exchange (exact match in any case, e.g. NYSE).',
  company: 'Only ratings of this company (exact match on its name, in any case).',
  firm: 'Only ratings by this research firm (exact match, in any case).',
  from: 'Only ratings published at or after this time.',
  to: 'Only ratings published at or before this time.',
};

const RatingFilter = builder.inputType('RatingFilter', {
  description: 'Conditions on ratings; every condition given applies.',
  fields: (t) => ({
    id: t.int({ description: 'Only the rating with this id (REST parameter `id`).' }),
    symbol: t.stringList({
      description:
        'Only ratings of these tickers: one symbol or a list of 1 to 100 (A-Z 0-9 . -, case-insensitive); an item may be a comma list.',
    }),
    exchange: t.string({ description: CONDITION_DESCRIPTIONS.exchange }),
    company: t.string({ description: CONDITION_DESCRIPTIONS.company }),
    firm: t.string({ description: CONDITION_DESCRIPTIONS.firm }),
    from: t.field({ type: 'DateTime', description: CONDITION_DESCRIPTIONS.from }),
    to: t.field({ type: 'DateTime', description: CONDITION_DESCRIPTIONS.to }),
  }),
});

const SecurityRatingFilter = builder.inputType('SecurityRatingFilter', {
  description: "Conditions on one security's ratings; every condition given applies.",
  fields: (t) => ({
    exchange: t.string({ description: CONDITION_DESCRIPTIONS.exchange }),
    company: t.string({ description: CONDITION_DESCRIPTIONS.company }),
    firm: t.string({ description: CONDITION_DESCRIPTIONS.firm }),
    from: t.field({ type: 'DateTime', description: CONDITION_DESCRIPTIONS.from }),
    to: t.field({ type: 'DateTime', description: CONDITION_DESCRIPTIONS.to }),
  }),
});

interface ConditionInput {
  exchange?: string | null;
  company?: string | null;
  firm?: string | null;
  from?: Date | null;
  to?: Date | null;
}

function ratingConditions(filter: ConditionInput | null | undefined): RatingConditions {
  if (!filter) return {};
  const { from, to } = readRange(filter.from, filter.to, ['filter.from', 'filter.to']);
  return {
    exchange: filter.exchange ?? undefined,
    company: filter.company ?? undefined,
    firm: filter.firm ?? undefined,
    from,
    to,
  };
}

const pageArgs = pagingArgs(RATING_PAGE);

builder.queryField('ratings', (t) =>
  t.field({
    authScopes: { entitled: 'ratings' },
    nullable: true,
    type: RatingConnection,
    description: 'Analyst ratings, newest first.',
    args: {
      filter: t.arg({ type: RatingFilter, description: 'Conditions on the ratings; none by default.' }),
      ...pageArgs,
    },
    resolve: async (_root, { filter, ...args }, ctx) => {
      const conditions = ratingConditions(filter);
      const symbols = filter?.symbol ? parseSymbols(filter.symbol, 'filter.symbol') : undefined;
      const page = await ratingPage(
        ctx.db,
        { ...conditions, id: filter?.id ?? undefined, symbols },
        keysetArgs(args, RATING_PAGE),
      );
      return connection(page);
    },
  }),
);

interface SecurityRatingArgs extends PagingInput {
  filter?: ConditionInput | null;
}

builder.prismaObjectFields(Security, (t) => ({
  ratings: t.field({
    authScopes: { entitled: 'ratings' },
    nullable: true,
    type: RatingConnection,
    description: "Analyst ratings of this security's symbol, newest first.",
    args: {
      filter: t.arg({ type: SecurityRatingFilter, description: 'Conditions on the ratings; none by default.' }),
      ...pageArgs,
    },
    ...children<SecurityRow, SecurityRatingArgs>('symbol', (args) => ({
      list: ratingsByTicker(ratingConditions(args.filter)),
      args: keysetArgs(args, RATING_PAGE),
    })),
  }),
}));
