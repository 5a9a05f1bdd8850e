import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { createDb } from '../../src/db/client.js';
import { MigrationError, migrate, readMigrations } from '../../src/db/migrate.js';
import { MANIFESTS } from '../../src/resources/index.js';
import { testDatabases } from '../helpers.js';

async function pgQuery(database: DatabaseConfig, sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

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

  it('with a time bound (a running instance migrating again) it stops there and keeps nothing of the run', async () => {
    const database = await tdb.create();
    // another migration holding the lock all migrations take: this one cannot start in time
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext('market-data-gateway:migrate:' || $1))`, [
        database.schema,
      ]);
      await expect(migrate(database, { timeoutMs: 300 })).rejects.toThrow(
        new MigrationError('migrating took longer than 300 ms: stopped, and none of it kept'),
      );
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const schema = await pgQuery(database, 'SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [
      database.schema,
    ]);
    expect(schema.rows[0].n).toBe(0); // not even the schema the run began with
    expect((await migrate(database, { timeoutMs: 60_000 })).applied).toEqual(readMigrations().map((m) => m.name));
  });

  it('two instances migrating the same empty database at once apply each migration once', async () => {
    const database = await tdb.create();
    const [a, b] = await Promise.all([migrate(database), migrate(database)]);
    expect([...a.applied, ...b.applied].sort()).toEqual(readMigrations().map((m) => m.name));
  });
});
