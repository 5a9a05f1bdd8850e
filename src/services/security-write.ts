// The security master's import: the idempotent batch write of `cli import securities` and sync.
// The reads are services/security.ts; the search engine follows the rows by their "rev", which the
// database stamps (services/security-index.ts).
import type { Db } from '../db/client.js';
import { changedFields, insertRows, jsonInput, sameFields, writeBatch, type WriteCounts } from '../db/upsert.js';
import { Prisma } from '../../generated/prisma/client.js';

/** One security as an import writes it; timestamps left undefined keep (or get) the store's own. */
export type SecurityInput = Omit<Prisma.SecurityCreateManyInput, 'isinHistory' | 'createdAt' | 'updatedAt'> & {
  isinHistory: string[] | null;
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
};

/** The fields an import writes: all but "rev", which the database's trigger stamps. */
const SECURITY_FIELDS = Object.values(Prisma.SecurityScalarFieldEnum).filter((f) => f !== 'rev');

function securityUpdate({ isinHistory, ...fields }: Partial<SecurityInput>) {
  return { ...fields, isinHistory: jsonInput(isinHistory) };
}

/** Upserts securities by id (`<figi>_<mic>`, so by figi + MIC) in one transaction. */
export async function writeSecurities(db: Db, rows: readonly SecurityInput[]): Promise<WriteCounts> {
  return writeBatch(db, rows, {
    key: (r) => r.id,
    load: (tx, batch) => tx.security.findMany({ where: { id: { in: batch.map((r) => r.id) } } }),
    storedKey: (s) => s.id,
    same: (r, s) => sameFields(r, s, SECURITY_FIELDS),
    async insert(tx, batch) {
      await insertRows(tx, 'Security', batch);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        await tx.security.updateMany({
          where: { id: row.id },
          data: securityUpdate(changedFields(row, stored, SECURITY_FIELDS)),
        });
      }
    },
  });
}
