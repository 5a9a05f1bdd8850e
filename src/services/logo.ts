import type { Db } from '../db/client.js';
import { Prisma, type Logo, type LogoSecurityInfo } from '../../generated/prisma/client.js';
import type { WriteCounts } from '../db/upsert.js';
import {
  keysetPage,
  type KeyedList,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';
import { anyOf, childRows } from '../db/sql.js';
import { changedFields, insertRows, sameChildren, sameFields, writeBatch } from '../db/upsert.js';

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

function logoList(db: Db, filter: LogoFilter): SortedList<LogoWithInfo> {
  return {
    table: 'Logo',
    ordering: ORDERING,
    direction: 'asc',
    filters: filter.symbols ? [anyOf('"symbol"', filter.symbols)] : [],
    complete: async (rows) => {
      const infos = await logoSecurityInfos(
        db,
        rows.map((r) => r.id as number),
      );
      return rows.map((r) => ({ ...(r as Logo), securityInfo: infos.get(r.id as number) ?? [] }));
    },
  };
}

/** Logos by symbol, in keyset pages; the count runs only when asked for. */
export function logoPage(db: Db, filter: LogoFilter, args: KeysetArgs): Promise<Page<LogoWithInfo>> {
  return keysetPage(db, logoList(db, filter), args);
}

/** Page `page` of the logos matching `filter`, in the order of `logoPage`, and their number. */
export function logoAtPage(db: Db, filter: LogoFilter, args: PageNumberArgs): Promise<NumberedPage<LogoWithInfo>> {
  return numberedPage(db, logoList(db, filter), args);
}

/**
 * The logo of each symbol (symbols are unique among logos), without its `security_info` rows: the
 * company page never reads them, and `logoSecurityInfos` loads them for the queries that do.
 */
export const LOGOS_BY_SYMBOL: KeyedList<Logo> = {
  table: 'Logo',
  keyColumn: 'symbol',
  ordering: { tag: 'logo.symbol', columns: [{ column: 'id', type: 'int', of: (l) => l.id }] },
  direction: 'asc',
};

/** For loaders: the `security_info` rows of each logo, in their recorded order (one statement). */
export function logoSecurityInfos(db: Db, logoIds: readonly number[]): Promise<Map<number, LogoSecurityInfo[]>> {
  return childRows<LogoSecurityInfo>(db, 'LogoSecurityInfo', 'logoId', logoIds);
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type LogoSecurityInfoInput = Omit<Prisma.LogoSecurityInfoCreateManyInput, 'logoId' | 'position'>;

/** One logo as an import writes it; its `security_info` rows replace the stored ones when anything changed. */
export type LogoInput = Omit<Prisma.LogoCreateManyInput, 'id' | 'createdAt' | 'updatedAt'> & {
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
  securityInfo: LogoSecurityInfoInput[];
};

const LOGO_FIELDS = Object.values(Prisma.LogoScalarFieldEnum).filter((c) => c !== 'id');
const INFO_FIELDS = [
  'symbol',
  'name',
  'mic',
  'figi',
  'exchCode',
  'compositeFigi',
  'shareClassFigi',
  'marketSector',
] as const;

const infoRows = (logoId: number, row: LogoInput) =>
  row.securityInfo.map((info, position) => ({ ...info, logoId, position }));

/** Upserts logos by symbol in one transaction; a changed logo gets its security_info rows anew. */
export function writeLogos(db: Db, rows: readonly LogoInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => r.symbol,
    load: (tx, batch) =>
      tx.logo.findMany({ where: { symbol: { in: batch.map((r) => r.symbol) } }, include: WITH_INFO }),
    storedKey: (s) => s.symbol,
    same: (r, s) => sameFields(r, s, LOGO_FIELDS) && sameChildren(r.securityInfo, s.securityInfo, INFO_FIELDS),
    async insert(tx, batch) {
      const created = await insertRows(
        tx,
        'Logo',
        batch.map(({ securityInfo: _, ...logo }) => logo),
        ['id', 'symbol'],
      );
      const ids = new Map(created.map((c) => [c.symbol as string, c.id as number]));
      await insertRows(
        tx,
        'LogoSecurityInfo',
        batch.flatMap((r) => infoRows(ids.get(r.symbol)!, r)),
      );
    },
    async update(tx, changes) {
      for (const {
        row: { securityInfo: _, ...logo },
        stored,
      } of changes) {
        await tx.logo.updateMany({ where: { id: stored.id }, data: changedFields(logo, stored, LOGO_FIELDS) });
      }
      await tx.logoSecurityInfo.deleteMany({ where: { logoId: { in: changes.map((c) => c.stored.id) } } });
      await insertRows(
        tx,
        'LogoSecurityInfo',
        changes.flatMap((c) => infoRows(c.stored.id, c.row)),
      );
    },
  });
}
