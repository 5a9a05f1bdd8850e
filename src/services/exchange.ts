import type { Db } from '../db/client.js';
import { Prisma, type AssetClass, type Exchange, type Locale } from '../../generated/prisma/client.js';
import { readSql } from '../db/sql.js';
import { changedFields, insertRows, sameFields, writeBatch, type WriteCounts } from '../db/upsert.js';

export type { AssetClass, Exchange, Locale };

/**
 * The most exchanges one list answers (REST `results`, GraphQL `exchanges`): the list is answered
 * whole, without pages, and Massive's has a few dozen venues per asset class. The cost analysis
 * and the REST work budget count a list at this size.
 */
export const MAX_EXCHANGES = 250;

export interface ExchangeFilter {
  assetClass?: AssetClass | undefined;
  locale?: Locale | undefined;
}

/** The exchanges matching `filter`, by Massive's id, at most MAX_EXCHANGES of them (one statement). */
export function exchangeList(db: Db, filter: ExchangeFilter): Promise<Exchange[]> {
  const conditions = [
    ...(filter.assetClass === undefined ? [] : [Prisma.sql`"assetClass" = ${filter.assetClass}`]),
    ...(filter.locale === undefined ? [] : [Prisma.sql`"locale" = ${filter.locale}`]),
  ];
  const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  return readSql<Exchange>(
    db,
    Prisma.sql`SELECT * FROM "Exchange" ${where} ORDER BY "id" LIMIT ${Prisma.raw(String(MAX_EXCHANGES))}`,
  );
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type ExchangeInput = Exchange;

const EXCHANGE_FIELDS = Object.values(Prisma.ExchangeScalarFieldEnum);

/** Upserts exchanges by Massive's id in one transaction. */
export function writeExchanges(db: Db, rows: readonly ExchangeInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => String(r.id),
    load: (tx, batch) => tx.exchange.findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => String(s.id),
    same: (r, s) => sameFields(r, s, EXCHANGE_FIELDS),
    async insert(tx, batch) {
      await insertRows(tx, 'Exchange', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes)
        await tx.exchange.updateMany({ where: { id: row.id }, data: changedFields(row, stored, EXCHANGE_FIELDS) });
    },
  });
}
