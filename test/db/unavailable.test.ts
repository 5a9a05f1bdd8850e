import { randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePostgresUrl, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { isDatabaseUnavailable, knownError } from '../../src/db/unavailable.js';
import { testDatabases, testDatabaseUrl } from '../helpers.js';

/**
 * The errors a real server gives, as Prisma, its pg adapter and pg wrap them (db/unavailable.ts):
 * a database that cannot be used is a 503 to retry, a query that is wrong stays an internal error.
 * test/db/outage.test.ts covers a server that is down.
 */

/** The rejection of `p` (failing the test if it resolves). */
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('the statement did not fail'),
    (e: unknown) => e,
  );

/** Whatever the error carries as its SQLSTATE: pg's `code`, or the adapter's `originalCode` under Prisma's meta. */
function sqlstate(e: unknown): string | undefined {
  const err = e as { code?: string; meta?: { driverAdapterError?: { cause?: { originalCode?: string } } } };
  return err.meta?.driverAdapterError?.cause?.originalCode ?? err.code;
}

describe.each(testDatabases())('which errors of a real $name server mean "the database is unavailable"', (tdb) => {
  const opened: Db[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close().catch(() => {});
    await tdb.cleanup();
  });
  const open = async (database: DatabaseConfig) => {
    const db = await createDb(database);
    opened.push(db);
    return db;
  };
  /** The four paths a request reaches the database by: a model query, raw SQL, a transaction, Db.read (pg itself). */
  const everyPath = (db: Db) =>
    Promise.all([
      rejection(db.prisma.security.findFirst()),
      rejection(db.prisma.$queryRawUnsafe('SELECT 1 FROM "Security"')),
      rejection(db.prisma.$transaction((tx) => tx.user.findFirst())),
      rejection(db.read('SELECT 1 FROM "Security"')),
    ]);

  it('a database dropped, or never made (3D000): every path, and wrapped in a GraphQL error', async () => {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/mdg_never_${randomBytes(4).toString('hex')}`;
    const [model, raw, tx, read] = await everyPath(await open(parsePostgresUrl(url.toString())));
    expect((model as { code: string }).code).toBe('P1003');
    expect((raw as { code: string }).code).toBe('P2010'); // raw SQL failed: the adapter's cause says why
    expect((tx as { code: string }).code).toBe('P1003');
    for (const e of [model, raw, tx, read]) {
      expect(sqlstate(e)).toBe('3D000');
      expect(isDatabaseUnavailable(e), String(e)).toBe(true);
    }
    expect(isDatabaseUnavailable(new GraphQLError('resolver failed', { originalError: model as Error }))).toBe(true);
    expect(knownError(raw)).toMatchObject({
      code: 'DATABASE_UNAVAILABLE',
      status: 503,
      headers: { 'retry-after': '5' },
    });
  });

  it('a database without its tables (42P01: re-created empty, not migrated yet): every path', async () => {
    const [model, raw, tx, read] = await everyPath(await open(await tdb.create())); // a schema nothing made
    expect((model as { code: string }).code).toBe('P2021');
    expect((tx as { code: string }).code).toBe('P2021');
    for (const e of [model, raw, tx, read]) {
      expect(sqlstate(e)).toBe('42P01');
      expect(isDatabaseUnavailable(e), String(e)).toBe(true);
    }
  });

  it('a server that refuses the user (28000 or 28P01, as pg_hba.conf or a password decides)', async () => {
    const url = new URL(testDatabaseUrl());
    url.username = `mdg_nobody_${randomBytes(4).toString('hex')}`;
    const [model, raw, , read] = await everyPath(await open(parsePostgresUrl(url.toString())));
    for (const e of [model, raw, read]) {
      expect(['28000', '28P01']).toContain(sqlstate(e));
      expect(isDatabaseUnavailable(e), String(e)).toBe(true);
    }
  });

  it('a statement that is wrong is not: a missing column (42703, P2022), a syntax error, a duplicate key, a division by zero', async () => {
    const database = await tdb.create();
    await migrate(database);
    const db = await open(database);
    const user = { email: 'a@example.com', username: 'a', passwordHash: '' };
    await db.prisma.user.create({ data: user });
    const wrong = await Promise.all([
      rejection(db.prisma.user.create({ data: user })),
      rejection(db.prisma.$queryRawUnsafe('SELECT "nosuch" FROM "User"')),
      rejection(db.read('SELECT "nosuch" FROM "User"')),
      rejection(db.prisma.$queryRawUnsafe('SELEC 1')),
      rejection(db.read('SELECT 1 / 0')),
    ]);
    expect(wrong.map(sqlstate)).toEqual(['23505', '42703', '42703', '42601', '22012']);
    expect((wrong[0] as { code: string }).code).toBe('P2002');
    // a column dropped under the client: Prisma's own code for it
    await db.prisma.$executeRawUnsafe('ALTER TABLE "User" DROP COLUMN "username"');
    const column = await rejection(db.prisma.user.findFirst());
    expect((column as { code: string }).code).toBe('P2022');
    for (const e of [...wrong, column]) {
      expect(isDatabaseUnavailable(e), String(e)).toBe(false);
      expect(knownError(e)).toBeUndefined();
    }
  });
});
