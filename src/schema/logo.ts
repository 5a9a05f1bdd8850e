import { exposeRecordFields } from './record-fields.js';
import { LOGO_FIELDS, LOGO_SECURITY_INFO_FIELDS } from '../domain/records/logo.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import type { Context } from '../context.js';
import { MAX_SYMBOLS, parseSymbols } from '../domain/symbols.js';
import { childrenOf, fromMap } from '../graphql/loaders.js';
import { computed, firstOf } from '../graphql/plan/declare.js';
import {
  LOGOS_BY_SYMBOL,
  logoPage,
  logoSecurityInfos,
  type LogoSecurityInfo as SecurityInfoRow,
  type LogoWithInfo,
} from '../services/logo.js';
import type { Security as SecurityRow } from '../services/security.js';
import { connection, connectionType, intNodeId, keysetArgs, pagingArgs, type PageSize } from './common.js';
import { Security, securityByFigi } from './security.js';

export const LOGO_PAGE: PageSize = PAGE_SIZES.records;
function securityInfoOf(ctx: Context, logo: LogoWithInfo): SecurityInfoRow[] | Promise<SecurityInfoRow[]> {
  return childrenOf(logo, 'securityInfo', () =>
    ctx.loaders
      .get(
        'logoSecurityInfo',
        fromMap((ids: readonly number[]) => logoSecurityInfos(ctx.db, ids), [] as SecurityInfoRow[]),
      )
      .load(logo.id),
  );
}

/** The securities behind the info rows: one per distinct FIGI, in row order; FIGIs the master does not know are left out. */
async function securitiesOf(ctx: Context, logo: LogoWithInfo): Promise<SecurityRow[]> {
  const figis = [...new Set((await securityInfoOf(ctx, logo)).map((i) => i.figi))];
  const found = await Promise.all(figis.map((figi) => securityByFigi(ctx, figi)));
  const byId = new Map<string, SecurityRow>();
  for (const s of found) if (s && !byId.has(s.id)) byId.set(s.id, s);
  return [...byId.values()];
}

interface Image {
  url: string;
  sizeKb: number;
}

const LogoImage = builder.objectRef<Image>('LogoImage').implement({
  description: 'One rendition of a logo (REST fields `logos.svg`, `logos.thumbnail`).',
  fields: (t) => ({
    url: t.expose('url', { type: 'URL', description: 'Where the image is served.' }),
    sizeKb: t.exposeFloat('sizeKb', { description: 'File size in kilobytes.' }),
  }),
});

const LogoPng = builder.objectRef<Image & { height: number; width: number }>('LogoPng').implement({
  description: 'The PNG rendition of a logo (REST field `logos.png`).',
  fields: (t) => ({
    url: t.expose('url', { type: 'URL', description: 'Where the image is served.' }),
    height: t.exposeInt('height', { description: 'Height in pixels.' }),
    width: t.exposeInt('width', { description: 'Width in pixels.' }),
    sizeKb: t.exposeFloat('sizeKb', { description: 'File size in kilobytes.' }),
  }),
});

const LogoSecurityInfo = builder.objectRef<SecurityInfoRow>('LogoSecurityInfo').implement({
  description: 'Identifiers of one security behind a logo (REST field `security_info[]`).',
  fields: (t) => ({
    ...exposeRecordFields(t, LOGO_SECURITY_INFO_FIELDS),
  }),
});

export const Logo = builder.prismaNode('Logo', {
  description: 'A company logo in PNG, SVG and thumbnail form, with the identifiers of the securities behind it.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'Logo') }),
  include: { securityInfo: { orderBy: { position: 'asc' } } },
  fields: (t) => ({
    ...exposeRecordFields(t, LOGO_FIELDS),
    png: t.field({
      type: LogoPng,
      description: 'The PNG rendition.',
      ...computed(['pngUrl', 'pngHeight', 'pngWidth', 'pngSizeKb'], (l: LogoWithInfo) => ({
        url: l.pngUrl,
        height: l.pngHeight,
        width: l.pngWidth,
        sizeKb: l.pngSizeKb,
      })),
    }),
    svg: t.field({
      type: LogoImage,
      description: 'The SVG rendition.',
      ...computed(['svgUrl', 'svgSizeKb'], (l: LogoWithInfo) => ({ url: l.svgUrl, sizeKb: l.svgSizeKb })),
    }),
    thumbnail: t.field({
      type: LogoImage,
      description: 'A small PNG rendition.',
      ...computed(['thumbnailUrl', 'thumbnailSizeKb'], (l: LogoWithInfo) => ({
        url: l.thumbnailUrl,
        sizeKb: l.thumbnailSizeKb,
      })),
    }),
    securityInfo: t.field({
      type: [LogoSecurityInfo],
      description:
        'Identifiers of the securities behind the logo, in their recorded order (REST field `security_info`).',
      resolve: (l, _args, ctx) => securityInfoOf(ctx, l),
    }),
    securities: t.field({
      type: [Security],
      description:
        'The securities of the security master behind `securityInfo`: one per distinct FIGI, in row order; FIGIs the master does not know are left out.',
      resolve: (l, _args, ctx) => securitiesOf(ctx, l),
    }),
  }),
});

export const LogoConnection = connectionType(Logo, 'LogoConnection');

builder.queryField('logos', (t) =>
  t.field({
    authScopes: { entitled: 'logos' },
    nullable: true,
    type: LogoConnection,
    description: 'Company logos, by symbol.',
    args: {
      symbols: t.arg.stringList({
        description: `Only the logos of these ticker symbols (1 to ${MAX_SYMBOLS}; case-insensitive). Leave out for every logo.`,
      }),
      ...pagingArgs(LOGO_PAGE),
    },
    resolve: async (_root, args, ctx) =>
      connection(
        await logoPage(
          ctx.db,
          { symbols: args.symbols ? parseSymbols(args.symbols, 'symbols') : undefined },
          keysetArgs(args, LOGO_PAGE),
        ),
      ),
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  logo: t.field({
    authScopes: { entitled: 'logos' },
    type: Logo,
    nullable: true,
    description: "The company's logo, if there is one.",
    // the logo comes without its security info rows (see `childrenOf`): `securityInfoOf` loads them
    ...firstOf<SecurityRow, unknown, LogoWithInfo>('symbol', () => LOGOS_BY_SYMBOL),
  }),
}));
