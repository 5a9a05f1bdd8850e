import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { MANIFESTS } from '../../src/resources/index.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('migrations on $name', (tdb) => {
  afterAll(() => tdb.cleanup());

  it('apply from empty once, record Prisma-compatible history, and are a no-op the second time', async () => {
    const database = await tdb.create();
    const migrations = readMigrations();
    expect(migrations.length).toBeGreaterThan(0);

    const first = await migrate(database);
    expect(first.applied).toEqual(migrations.map((m) => m.name));
    expect((await migrate(database)).applied).toEqual([]);

    const db = await createDb(database);
    try {
      const history = await db.prisma.$queryRawUnsafe<
        { migration_name: string; checksum: string; finished_at: unknown }[]
      >('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name');
      expect(history.map((h) => h.migration_name)).toEqual(migrations.map((m) => m.name));
      for (const [i, h] of history.entries()) {
        expect(h.checksum).toBe(createHash('sha256').update(migrations[i]!.sql).digest('hex'));
        expect(h.finished_at).not.toBeNull();
      }
      // every model's table exists and is empty
      for (const model of [
        ...MANIFESTS.flatMap((r) => (r.tables ?? []).map((t) => `${t.model[0]!.toLowerCase()}${t.model.slice(1)}`)),
        'user',
        'apiKey',
        'refreshTokenFamily',
      ]) {
        const table = (db.prisma as unknown as Record<string, { count(): Promise<number> }>)[model]!;
        expect(await table.count(), model).toBe(0);
      }
    } finally {
      await db.close();
    }
  });

  it('two instances migrating the same empty database at once apply each migration once', async () => {
    const database = await tdb.create();
    const [a, b] = await Promise.all([migrate(database), migrate(database)]);
    expect([...a.applied, ...b.applied].sort()).toEqual(readMigrations().map((m) => m.name));
  });
});
