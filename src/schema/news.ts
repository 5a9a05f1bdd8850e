import { exposeRecordFields } from './record-fields.js';
import { NEWS_FIELDS, NEWS_SECURITY_FIELDS } from '../domain/records/news.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import type { Context } from '../context.js';
import { newsTopic } from '../runtime/events.js';
import { childrenOf, fromMap } from '../graphql/loaders.js';
import { children, computed, many } from '../graphql/plan/declare.js';
import { pressReleasesOfIdsLevel, type PressRelease as PressReleaseRow } from '../services/press-release.js';
import {
  associatedIds,
  NEWS_INCLUDE,
  newsByTicker,
  newsPage,
  newsSecurities,
  type NewsItem as NewsItemRow,
  type NewsSecurity as NewsSecurityRow,
  type TickerNewsFilter,
} from '../services/news.js';
import type { Security as SecurityRow } from '../services/security.js';
import { parseSymbol } from '../domain/symbols.js';
import {
  connection,
  connectionType,
  intNodeId,
  keysetArgs,
  liveEvents,
  pagingArgs,
  SYMBOL_DESCRIPTION,
  type PageSize,
  type PagingInput,
} from './common.js';
import { addStreamFields, REPLAY_WORK, streamArgs, streamOf } from './stream.js';
import { PressRelease } from './press-release.js';
import { Rating, ratingById } from './rating.js';
import { Security, securityByFigi } from './security.js';

export const NEWS_PAGE: PageSize = PAGE_SIZES.records;

function securitiesOf(ctx: Context, n: NewsItemRow): NewsSecurityRow[] | Promise<NewsSecurityRow[]> {
  return childrenOf(n, 'securities', () =>
    ctx.loaders
      .get(
        'newsSecurities',
        fromMap((ids: readonly number[]) => newsSecurities(ctx.db, ids), [] as NewsSecurityRow[]),
      )
      .load(n.id),
  );
}

/** The records behind `ids` in the order of `ids`; ids without a record are skipped. */
async function existing<T extends object>(ids: number[], load: (id: number) => Promise<T | null>): Promise<T[]> {
  const rows: (T | null)[] = await Promise.all(ids.map(load));
  return rows.filter((r): r is T => r !== null);
}

export const NewsTypeEnum = builder.enumType('NewsType', {
  description: 'Which way the stock a news item is about moved (REST field `type`).',
  values: {
    GAINERS: { value: 'gainers', description: 'The stock rose.' },
    LOSERS: { value: 'losers', description: 'The stock fell.' },
  } as const,
});

const NewsSecurity = builder.objectRef<NewsSecurityRow>('NewsSecurity').implement({
  description: 'A security a news item is about (REST field `securities[]`).',
  fields: (t) => ({
    ...exposeRecordFields(t, NEWS_SECURITY_FIELDS),
    security: t.field({
      type: Security,
      nullable: true,
      description:
        'The security-master record with this FIGI (its first listing); null when the master does not hold it.',
      resolve: (s, _args, ctx) => securityByFigi(ctx, s.figi),
    }),
  }),
});

export const NewsItem = builder.prismaNode('NewsItem', {
  description: 'A curated news item about a stock that moved.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'NewsItem') }),
  include: NEWS_INCLUDE,
  fields: (t) => ({
    newsItemId: t.exposeInt('id', { description: 'The news item id (REST field `id`).' }),
    ...exposeRecordFields(t, NEWS_FIELDS),
    associatedPressReleaseIds: t.field({
      type: ['Int'],
      description: 'Ids of the press releases behind the item, as given (REST field `associated_press_releases`).',
      ...computed(['associatedPressReleases'], (n: NewsItemRow) => associatedIds(n.associatedPressReleases)),
    }),
    associatedPressReleases: t.field({
      authScopes: { entitled: 'pressReleases' },
      nullable: true,
      type: [PressRelease],
      description: 'The press releases of `associatedPressReleaseIds` in that order; ids without a record are skipped.',
      // without their tickers and securities (see `childrenOf`): the PressRelease fields load them
      ...many<NewsItemRow, unknown, PressReleaseRow>({ associatedPressReleases: 'jsonb' }, (_args, columns, children) =>
        pressReleasesOfIdsLevel('associatedPressReleases', columns, children),
      ),
    }),
    associatedRatingIds: t.field({
      type: ['Int'],
      description: 'Ids of the analyst ratings behind the item, as given (REST field `associated_ratings`).',
      ...computed(['associatedRatings'], (n: NewsItemRow) => associatedIds(n.associatedRatings)),
    }),
    associatedRatings: t.field({
      authScopes: { entitled: 'ratings' },
      nullable: true,
      type: [Rating],
      description: 'The ratings of `associatedRatingIds` in that order; ids without a record are skipped.',
      resolve: (n, _args, ctx) => existing(associatedIds(n.associatedRatings), (id) => ratingById(ctx, id)),
    }),
    associatedTranscripts: t.field({
      type: 'JSON',
      description:
        'References to conference-call transcripts behind the item, as given (REST field `associated_transcripts`).',
      resolve: (n) => n.associatedTranscripts,
    }),
    type: t.field({
      type: NewsTypeEnum,
      description: 'Whether the stock rose or fell.',
      ...computed(['type'], (n: NewsItemRow) => n.type),
    }),
    securities: t.field({
      type: [NewsSecurity],
      description: 'The securities the item is about, in feed order.',
      resolve: (n, _args, ctx) => securitiesOf(ctx, n),
    }),
  }),
});

export const NewsItemConnection = connectionType(NewsItem, 'NewsItemConnection');

const pageArgs = pagingArgs(NEWS_PAGE);

builder.queryField('news', (t) =>
  t.field({
    authScopes: { entitled: 'news' },
    nullable: true,
    type: NewsItemConnection,
    description: 'Curated news about one symbol, newest first.',
    args: {
      symbol: t.arg.string({ required: true, description: SYMBOL_DESCRIPTION }),
      type: t.arg({ type: NewsTypeEnum, description: 'Only gainers or only losers.' }),
      shareClassFigi: t.arg.string({ description: 'Only items with this share-class FIGI (case-insensitive).' }),
      id: t.arg.int({ description: 'Only the item with this id (REST parameter `id`).' }),
      ...pageArgs,
    },
    resolve: async (_root, args, ctx) => {
      const filter = {
        symbol: parseSymbol(args.symbol, 'symbol'),
        type: args.type ?? undefined,
        shareClassFigi: args.shareClassFigi ?? undefined,
        id: args.id ?? undefined,
      };
      return connection(await newsPage(ctx.db, filter, keysetArgs(args, NEWS_PAGE)));
    },
  }),
);

interface SecurityNewsArgs extends PagingInput {
  type?: NewsItemRow['type'] | null;
}
const securityNewsFilter = (args: SecurityNewsArgs): TickerNewsFilter => ({ type: args.type ?? undefined });

addStreamFields(NewsItem);

builder.prismaObjectFields(Security, (t) => ({
  news: t.field({
    authScopes: { entitled: 'news' },
    nullable: true,
    type: NewsItemConnection,
    description: "Curated news about this security's symbol, newest first.",
    args: { type: t.arg({ type: NewsTypeEnum, description: 'Only gainers or only losers.' }), ...pageArgs },
    // the items come without their securities (see `childrenOf`): `securitiesOf` loads them
    ...children<SecurityRow, SecurityNewsArgs>('symbol', (args) => ({
      list: newsByTicker(securityNewsFilter(args)),
      args: keysetArgs(args, NEWS_PAGE),
    })),
  }),
}));

builder.subscriptionField('newsAdded', (t) =>
  t.field({
    authScopes: { entitled: 'news' },
    type: NewsItem,
    description:
      'Each new news item about one symbol (the items `news(symbol:)` lists) as it is stored by an import on any instance, from the moment of subscribing.',
    args: { symbol: t.arg.string({ required: true, description: SYMBOL_DESCRIPTION }), ...streamArgs },
    extensions: { work: REPLAY_WORK },
    subscribe: (_root, args, ctx) =>
      liveEvents<NewsItemRow>(ctx, 'news', {
        topics: newsTopic(parseSymbol(args.symbol, 'symbol')),
        symbols: 1,
        ...streamOf(args, ctx.request),
      }),
    resolve: (item) => item,
  }),
);
