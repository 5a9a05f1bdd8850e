import { exposeRecordFields } from './record-fields.js';
import {
  PRESS_RELEASE_FIELDS,
  PRESS_RELEASE_SECURITY_FIELDS,
  PRESS_RELEASE_CONTACT_FIELDS,
} from '../domain/records/press-release.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { parseSymbols } from '../domain/symbols.js';
import type { Context } from '../context.js';
import { PRESS_RELEASE_TOPIC } from '../runtime/events.js';
import { childrenOf, fromMap, pageByKey } from '../graphql/loaders.js';
import type { KeysetArgs } from '../services/paging.js';
import {
  PRESS_RELEASE_INCLUDE,
  pressReleasePage,
  pressReleasePages,
  pressReleaseSecurities,
  pressReleaseTickers,
  type PressRelease as PressReleaseRow,
  type PressReleaseSecurity as PressReleaseSecurityRow,
  type PublishTimeRange,
} from '../services/press-release.js';
import {
  readRange,
  connection,
  connectionType,
  intNodeId,
  keysetArgs,
  liveEvents,
  pagingArgs,
  type PageSize,
  type PagingInput,
} from './common.js';
import { Security, securityByFigi } from './security.js';

export const PRESS_RELEASE_PAGE: PageSize = PAGE_SIZES.records;

function tickersOf(ctx: Context, r: PressReleaseRow): PressReleaseRow['tickers'] | Promise<PressReleaseRow['tickers']> {
  return childrenOf(r, 'tickers', () =>
    ctx.loaders
      .get(
        'pressReleaseTickers',
        fromMap((ids: readonly number[]) => pressReleaseTickers(ctx.db, ids), [] as PressReleaseRow['tickers']),
      )
      .load(r.id),
  );
}

function securitiesOf(
  ctx: Context,
  r: PressReleaseRow,
): PressReleaseSecurityRow[] | Promise<PressReleaseSecurityRow[]> {
  return childrenOf(r, 'securities', () =>
    ctx.loaders
      .get(
        'pressReleaseSecurities',
        fromMap((ids: readonly number[]) => pressReleaseSecurities(ctx.db, ids), [] as PressReleaseSecurityRow[]),
      )
      .load(r.id),
  );
}

/** The strings of a JSON array column; anything else in it is skipped. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const Contact = builder.objectRef<{ organization: string }>('PressReleaseContact').implement({
  description: 'A contact named by a press release (REST field `Contacts[]`).',
  fields: (t) => ({
    ...exposeRecordFields(t, PRESS_RELEASE_CONTACT_FIELDS),
  }),
});

function contacts(value: unknown): { organization: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((c: unknown) => {
    const organization = (c as { organization?: unknown } | null)?.organization;
    return typeof organization === 'string' ? [{ organization }] : [];
  });
}

const PressReleaseSecurity = builder.objectRef<PressReleaseSecurityRow>('PressReleaseSecurity').implement({
  description: 'A security a press release is about (REST field `Securities[]`).',
  fields: (t) => ({
    ...exposeRecordFields(t, PRESS_RELEASE_SECURITY_FIELDS),
    security: t.field({
      type: Security,
      nullable: true,
      description:
        'The security-master record with this FIGI (its first listing); null when the master does not hold it.',
      resolve: (s, _args, ctx) => securityByFigi(ctx, s.figi),
    }),
  }),
});

export const PressRelease = builder.prismaNode('PressRelease', {
  // also reached through node(id): the type checks the entitlement itself
  authScopes: { entitled: 'pressReleases' },
  description: 'A corporate press release from a wire feed.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'PressRelease') }),
  include: PRESS_RELEASE_INCLUDE,
  fields: (t) => ({
    pressReleaseId: t.exposeInt('id', {
      description: 'The record id, as news items name it in `associatedPressReleaseIds`.',
    }),
    ...exposeRecordFields(t, PRESS_RELEASE_FIELDS),
    categories: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Categories, as given; null when the feed sent none.',
      resolve: (r) => r.categories,
    }),
    keywords: t.stringList({ description: 'Keywords.', resolve: (r) => strings(r.keywords) }),
    externalLinks: t.stringList({
      description: 'Links the release points to.',
      resolve: (r) => strings(r.externalLinks),
    }),
    tickers: t.stringList({
      description: 'Ticker symbols the release names, in feed order.',
      resolve: async (r, _args, ctx) => (await tickersOf(ctx, r)).map((x) => x.ticker),
    }),
    exchanges: t.stringList({
      description: 'Exchange-qualified tickers, e.g. NYSE:ABC.',
      resolve: (r) => strings(r.exchanges),
    }),
    securities: t.field({
      type: [PressReleaseSecurity],
      description: 'The securities the release is about, in feed order.',
      resolve: (r, _args, ctx) => securitiesOf(ctx, r),
    }),
    contacts: t.field({
      type: [Contact],
      description: 'Contacts named by the release.',
      resolve: (r) => contacts(r.contacts),
    }),
    mediaAssets: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Media assets (images, video), as given; null when none.',
      resolve: (r) => r.mediaAssets,
    }),
    raw: t.field({ type: 'JSON', description: 'The vendor record as received.', resolve: (r) => r.raw }),
  }),
});

export const PressReleaseConnection = connectionType(PressRelease, 'PressReleaseConnection');

const rangeArgs = {
  ...builder.args((t) => ({
    from: t.field({ type: 'DateTime', description: 'Only releases published at or after this time.' }),
    to: t.field({ type: 'DateTime', description: 'Only releases published at or before this time.' }),
  })),
  ...pagingArgs(PRESS_RELEASE_PAGE),
};

interface RangePage {
  range: PublishTimeRange;
  page: KeysetArgs;
}

function rangePage(args: PagingInput & { from?: Date | null; to?: Date | null }): RangePage {
  return {
    range: readRange(args.from, args.to),
    page: keysetArgs(args, PRESS_RELEASE_PAGE),
  };
}

builder.queryField('pressReleases', (t) =>
  t.field({
    authScopes: { entitled: 'pressReleases' },
    nullable: true,
    type: PressReleaseConnection,
    description: 'Press releases, newest first by publish time.',
    args: {
      tickers: t.arg.stringList({
        description:
          'Only releases naming any of these tickers: 1 to 100 symbols of A-Z 0-9 . - (case-insensitive); an item may be a comma list.',
      }),
      ...rangeArgs,
    },
    resolve: async (_root, { tickers, ...args }, ctx) => {
      const { range, page } = rangePage(args);
      const filter = { tickers: tickers ? parseSymbols(tickers, 'tickers') : undefined, ...range };
      return connection(await pressReleasePage(ctx.db, filter, page));
    },
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  pressReleases: t.field({
    authScopes: { entitled: 'pressReleases' },
    nullable: true,
    type: PressReleaseConnection,
    description: "Press releases naming this security's symbol, newest first.",
    args: rangeArgs,
    resolve: async (security, args, ctx) => {
      const { range, page } = rangePage(args);
      return connection(
        await pageByKey(ctx, 'pressReleasesByTicker', { ...range, ...page }, security.symbol, (tickers) =>
          pressReleasePages(ctx.db, tickers, range, page),
        ),
      );
    },
  }),
}));

builder.subscriptionField('pressReleaseAdded', (t) =>
  t.field({
    authScopes: { entitled: 'pressReleases' },
    type: PressRelease,
    description:
      'Each new press release as it is stored (by an import on any instance), from the moment of subscribing: every one, or those naming any of `tickers`.',
    args: {
      tickers: t.arg.stringList({
        description:
          'Only releases naming any of these tickers (as `pressReleases` filters): 1 to 100 symbols of A-Z 0-9 . - (case-insensitive); an item may be a comma list.',
      }),
    },
    subscribe: (_root, { tickers }, ctx) => {
      const wanted = tickers ? new Set(parseSymbols(tickers, 'tickers')) : undefined;
      return liveEvents<PressReleaseRow>(
        ctx,
        'pressReleases',
        // every release is one topic; the tickers it is filtered by are the symbols it names
        { topics: PRESS_RELEASE_TOPIC, symbols: wanted?.size ?? 0 },
        wanted && ((release) => release.tickers.some((t) => wanted.has(t.ticker))),
      );
    },
    resolve: (release) => release,
  }),
);
