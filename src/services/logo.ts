import type { Db } from '../db.js';
import type { Logo, LogoSecurityInfo, Prisma } from '../../generated/prisma/client.js';
import { afterWhere, decodeCursor, orderByOf, toPage, type Ordering, type Page } from './paging.js';

export type { LogoSecurityInfo };

/** A logo with its `security_info` rows in their recorded order (the same FIGI may repeat). */
export type LogoWithInfo = Logo & { securityInfo: LogoSecurityInfo[] };

export interface LogoFilter {
  /** Any of these symbols (upper-case); absent means every logo. */
  symbols?: readonly string[] | undefined;
}

const ORDERING: Ordering<Logo> = {
  tag: 'logo',
  columns: [
    { column: 'symbol', type: 'string', of: (l) => l.symbol },
    { column: 'id', type: 'int', of: (l) => l.id },
  ],
};

const WITH_INFO = { securityInfo: { orderBy: { position: 'asc' } } } as const satisfies Prisma.LogoInclude;

function whereOf(filter: LogoFilter): Prisma.LogoWhereInput {
  return filter.symbols ? { symbol: { in: [...filter.symbols] } } : {};
}

/** Logos by symbol, in keyset pages; the count runs only when asked for. */
export async function logoPage(db: Db, filter: LogoFilter, args: { first: number; after?: string | undefined }): Promise<Page<LogoWithInfo>> {
  const match = whereOf(filter);
  const where = args.after ? { AND: [match, afterWhere(ORDERING.columns, decodeCursor(ORDERING, 'asc', args.after), 'asc')] } : match;
  const rows = await db.prisma.logo.findMany({ where, include: WITH_INFO, orderBy: orderByOf(ORDERING.columns, 'asc'), take: args.first + 1 });
  return toPage(rows, args.first, ORDERING, 'asc', () => db.prisma.logo.count({ where: match }));
}

/** Page `page` (1-based) of `pageSize` logos in the same order as `logoPage`, with the total: for offset-paged REST clients. */
export async function logoPageNumber(db: Db, filter: LogoFilter, args: { page: number; pageSize: number }): Promise<{ nodes: LogoWithInfo[]; totalCount: number }> {
  const where = whereOf(filter);
  const [nodes, totalCount] = await Promise.all([
    db.prisma.logo.findMany({ where, include: WITH_INFO, orderBy: orderByOf(ORDERING.columns, 'asc'), skip: (args.page - 1) * args.pageSize, take: args.pageSize }),
    db.prisma.logo.count({ where }),
  ]);
  return { nodes, totalCount };
}

/** For loaders: the logo of each symbol that has one. */
export async function logosBySymbol(db: Db, symbols: readonly string[]): Promise<Map<string, LogoWithInfo>> {
  const rows = await db.prisma.logo.findMany({ where: { symbol: { in: [...symbols] } }, include: WITH_INFO });
  return new Map(rows.map((l) => [l.symbol, l]));
}
