import type { Db } from '../db/client.js';

/** The high-water mark `cli sync` reached for one resource (or resource:SYMBOL) of one upstream. */
export async function readHighWater(db: Db, source: string, resource: string): Promise<string | undefined> {
  const row = await db.prisma.syncState.findUnique({ where: { source_resource: { source, resource } } });
  return row?.highWater;
}

export async function writeHighWater(
  db: Db,
  source: string,
  resource: string,
  highWater: string,
  rows: number,
): Promise<void> {
  await db.prisma.syncState.upsert({
    where: { source_resource: { source, resource } },
    create: { source, resource, highWater, rows },
    update: { highWater, rows: { increment: rows } },
  });
}

/** What every mark of an upstream says, for `cli sync --status`. */
export async function listHighWater(db: Db, source?: string) {
  return db.prisma.syncState.findMany({
    where: source ? { source } : {},
    orderBy: [{ source: 'asc' }, { resource: 'asc' }],
  });
}
