// A security's symbols over time (SymbolHistory, by its permanent id): what Massive's ticker events
// answer and `Security.symbolHistory` serves, and the import of those events.
import type { Db } from '../db/client.js';
import { Prisma, type Security, type SymbolHistory } from '../../generated/prisma/client.js';
import { readSql, topPerKey } from '../db/sql.js';
import { insertRows, writeBatch, type WriteCounts } from '../db/upsert.js';

export type { SymbolHistory };

/**
 * The most symbols one security's history answers (newest first): a rename is rare, a few in a
 * company's life. The cost analysis and the REST work budget count a history at this size, and
 * every security record with it (a page of 250 securities: graphql/cost.ts recordUnits), so it is
 * kept small.
 */
export const MAX_SYMBOL_PERIODS = 20;

/** One symbol of a security and the days it had it. */
export interface SymbolPeriod {
  symbol: string;
  /** Its first exchange day under the symbol; null when unknown (no history, no list date). */
  startDate: string | null;
  /** The day before the next symbol's first day; null for the symbol it has now. */
  endDate: string | null;
}

const dayBefore = (date: string) => new Date(Date.parse(date) - 86_400_000).toISOString().slice(0, 10);

/**
 * A security's periods, newest first, from its stored history (newest first). A security without
 * one has had one symbol, its own, since its list date: what Massive answers for a ticker that
 * never changed.
 */
export function symbolPeriods(
  security: Pick<Security, 'symbol' | 'listDate'>,
  history: readonly Pick<SymbolHistory, 'symbol' | 'startDate'>[],
): SymbolPeriod[] {
  if (history.length === 0) return [{ symbol: security.symbol, startDate: security.listDate, endDate: null }];
  return history.map((h, i) => ({
    symbol: h.symbol,
    startDate: h.startDate,
    endDate: i === 0 ? null : dayBefore(history[i - 1]!.startDate),
  }));
}

/** For loaders: each security's stored history, newest first, at most MAX_SYMBOL_PERIODS (one statement). */
export async function symbolHistories(db: Db, securityIds: readonly string[]): Promise<Map<string, SymbolHistory[]>> {
  const rows = await topPerKey<SymbolHistory & Record<string, unknown>>(db, {
    table: 'SymbolHistory',
    keyColumn: 'securityId',
    keys: securityIds,
    orderColumns: ['startDate'],
    range: { direction: 'desc' },
    limit: MAX_SYMBOL_PERIODS,
  });
  return rows as Map<string, SymbolHistory[]>;
}

/**
 * The security Massive's `{id}` names, upper-cased: the one that has the symbol now (its first
 * listing), else the one with that composite FIGI, else that CUSIP; and its periods. Null when none.
 */
export async function tickerEvents(
  db: Db,
  id: string,
): Promise<{ security: Security; periods: SymbolPeriod[] } | null> {
  const key = id.toUpperCase();
  const [security] = await readSql<Security>(
    db,
    Prisma.sql`SELECT * FROM "Security" WHERE "symbol" = ${key} OR "figiComposite" = ${key} OR "cusip" = ${key}
      ORDER BY ("symbol" = ${key}) DESC, ("figiComposite" = ${key}) DESC, "id" LIMIT 1`,
  );
  if (!security) return null;
  const history = (await symbolHistories(db, [security.id])).get(security.id) ?? [];
  return { security, periods: symbolPeriods(security, history) };
}

// ------------------------------------------------------------------ import (idempotent batch write)

/** One ticker event of an entity: from `startDate` on, the security that has `currentTicker` now traded as `symbol`. */
export interface TickerEventInput {
  currentTicker: string;
  symbol: string;
  startDate: string;
}

/** The security (first listing by id) of each symbol, in one statement. */
async function securityIdsBySymbol(db: Db, symbols: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.prisma.security.findMany({
    where: { symbol: { in: [...symbols] } },
    select: { id: true, symbol: true },
    orderBy: { id: 'asc' },
  });
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.symbol)) out.set(r.symbol, r.id);
  return out;
}

/**
 * Upserts ticker events as history rows of the security that has their entity's ticker now, keyed
 * by (security, start date), in one transaction. An entity the master does not hold has no security
 * to keep its history under: the batch is refused, naming it (import the securities first, as
 * `cli sync` does).
 */
export async function writeTickerEvents(db: Db, rows: readonly TickerEventInput[]): Promise<WriteCounts> {
  const ids = await securityIdsBySymbol(db, [...new Set(rows.map((r) => r.currentTicker))]);
  const unknown = [...new Set(rows.map((r) => r.currentTicker).filter((t) => !ids.has(t)))];
  if (unknown.length)
    throw new Error(
      `ticker events of ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}: no security of the master has that symbol now; import the securities first`,
    );
  const resolved = rows.map((r) => ({
    securityId: ids.get(r.currentTicker)!,
    symbol: r.symbol,
    startDate: r.startDate,
  }));
  const keyOf = (r: SymbolHistory) => `${r.securityId}|${r.startDate}`;
  return writeBatch<SymbolHistory, SymbolHistory>(db, resolved, {
    key: keyOf,
    load: (tx, batch) =>
      tx.symbolHistory.findMany({
        where: { OR: batch.map((r) => ({ securityId: r.securityId, startDate: r.startDate })) },
      }),
    storedKey: keyOf,
    same: (r, s) => r.symbol === s.symbol,
    async insert(tx, batch) {
      await insertRows(tx, 'SymbolHistory', batch);
    },
    async update(tx, changes) {
      for (const { row } of changes)
        await tx.symbolHistory.update({
          where: { securityId_startDate: { securityId: row.securityId, startDate: row.startDate } },
          data: { symbol: row.symbol },
        });
    },
  });
}
