import type { Db } from '../db.js';
import { Prisma, type PressReleaseSecurity } from '../../generated/prisma/client.js';
import { afterWhere, decodeCursor, orderByOf, toPage, type KeysetArgs, type Ordering, type Page } from './paging.js';
import { MAX_KEYS_PER_STATEMENT } from './sql.js';

/** Every read of a press release loads its tickers and securities with it, in feed order. */
export const PRESS_RELEASE_INCLUDE = {
  tickers: { orderBy: { position: 'asc' } },
  securities: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.PressReleaseInclude;

export type PressRelease = Prisma.PressReleaseGetPayload<{ include: typeof PRESS_RELEASE_INCLUDE }>;
export type { PressReleaseSecurity };

export interface PressReleaseFilter {
  /** Releases naming any of these tickers (upper case, as stored). */
  tickers?: readonly string[] | undefined;
  /** Inclusive bounds on the publish time. */
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Newest first: (publishTime, id) descending. */
const ORDERING: Ordering<PressRelease> = {
  tag: 'pressRelease',
  columns: [
    { column: 'publishTime', type: 'date', of: (r) => r.publishTime },
    { column: 'id', type: 'int', of: (r) => r.id },
  ],
};

function whereOf(filter: PressReleaseFilter): Prisma.PressReleaseWhereInput {
  const where: Prisma.PressReleaseWhereInput = {};
  if (filter.tickers) where.tickers = { some: { ticker: { in: [...filter.tickers] } } };
  if (filter.from || filter.to) where.publishTime = { gte: filter.from, lte: filter.to };
  return where;
}

/** One keyset page of the releases matching `filter`, newest first, with a lazy total count. */
export async function listPressReleases(db: Db, filter: PressReleaseFilter, args: KeysetArgs): Promise<Page<PressRelease>> {
  const where = whereOf(filter);
  const after = args.after ? afterWhere(ORDERING.columns, decodeCursor(ORDERING, 'desc', args.after), 'desc') : undefined;
  const rows = await db.prisma.pressRelease.findMany({
    where: after ? { AND: [where, after] } : where,
    orderBy: orderByOf(ORDERING.columns, 'desc'),
    take: args.first + 1,
    include: PRESS_RELEASE_INCLUDE,
  });
  return toPage(rows, args.first, ORDERING, 'desc', () => db.prisma.pressRelease.count({ where }));
}

/** Page `page` (1-based) of `pageSize` releases in the same order as the keyset pages, and the total. */
export async function pressReleasesAtOffset(db: Db, filter: PressReleaseFilter, page: number, pageSize: number): Promise<{ rows: PressRelease[]; total: number }> {
  const where = whereOf(filter);
  const [rows, total] = await Promise.all([
    db.prisma.pressRelease.findMany({ where, orderBy: orderByOf(ORDERING.columns, 'desc'), skip: (page - 1) * pageSize, take: pageSize, include: PRESS_RELEASE_INCLUDE }),
    db.prisma.pressRelease.count({ where }),
  ]);
  return { rows, total };
}

export interface TickerPageArgs extends KeysetArgs {
  from?: Date | undefined;
  to?: Date | undefined;
}

/**
 * One page per ticker, the same arguments for each, in a constant number of statements: one
 * UNION ALL of a small `ORDER BY ... LIMIT` join per ticker finds the ids, one findMany loads them.
 */
export async function pressReleasePages(db: Db, tickers: readonly string[], args: TickerPageArgs): Promise<Map<string, Page<PressRelease>>> {
  const idsByTicker = await newestIdsPerTicker(db, tickers, args);
  const ids = [...new Set([...idsByTicker.values()].flat())];
  const byId = await pressReleasesByIds(db, ids);
  return new Map(
    tickers.map((ticker) => {
      const rows = (idsByTicker.get(ticker) ?? []).flatMap((id) => byId.get(id) ?? []);
      // UNION ALL does not promise to keep the order of its parts
      rows.sort((a, b) => b.publishTime.getTime() - a.publishTime.getTime() || b.id - a.id);
      return [ticker, toPage(rows, args.first, ORDERING, 'desc')];
    }),
  );
}

async function newestIdsPerTicker(db: Db, tickers: readonly string[], args: TickerPageArgs): Promise<Map<string, number[]>> {
  const result = new Map<string, number[]>(tickers.map((t) => [t, []]));
  const conditions: Prisma.Sql[] = [];
  if (args.from) conditions.push(Prisma.sql`p."publishTime" >= ${args.from}`);
  if (args.to) conditions.push(Prisma.sql`p."publishTime" <= ${args.to}`);
  if (args.after) {
    const [publishTime, id] = decodeCursor(ORDERING, 'desc', args.after);
    conditions.push(Prisma.sql`(p."publishTime", p."id") < (${publishTime}, ${id})`);
  }
  const extra = conditions.length ? Prisma.sql` AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  for (let start = 0; start < tickers.length; start += MAX_KEYS_PER_STATEMENT) {
    const parts = tickers.slice(start, start + MAX_KEYS_PER_STATEMENT).map(
      // DISTINCT: nothing stops a release from listing the same ticker twice
      (ticker, i) => Prisma.sql`SELECT * FROM (
        SELECT DISTINCT t."ticker" AS "ticker", p."id" AS "id", p."publishTime" AS "publishTime"
        FROM "PressReleaseTicker" t JOIN "PressRelease" p ON p."id" = t."pressReleaseId"
        WHERE t."ticker" = ${ticker}${extra}
        ORDER BY p."publishTime" DESC, p."id" DESC LIMIT ${args.first + 1}) ${Prisma.raw(`k${i}`)}`,
    );
    const rows = await db.prisma.$queryRaw<{ ticker: string; id: number }[]>(Prisma.join(parts, ' UNION ALL '));
    for (const row of rows) result.get(row.ticker)?.push(Number(row.id));
  }
  return result;
}

/** For loaders: releases by id; ids that do not exist are missing from the map. */
export async function pressReleasesByIds(db: Db, ids: readonly number[]): Promise<Map<number, PressRelease>> {
  if (ids.length === 0) return new Map();
  const rows = await db.prisma.pressRelease.findMany({ where: { id: { in: [...ids] } }, include: PRESS_RELEASE_INCLUDE });
  return new Map(rows.map((r) => [r.id, r]));
}
