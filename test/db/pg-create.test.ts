// `DATABASE_URL=postgresql://…/market npm start` on a server without a `market` database: the
// gateway creates it (db/pg-create.ts) or stops with the createdb command to run.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import { parsePostgresUrl } from '../../src/config.js';
import { createMissingDatabase } from '../../src/db/pg-create.js';
import { AppError } from '../../src/errors.js';
import { DEFAULT_SAMPLE } from '../../src/sample/generate.js';
import { gqlRequest } from '../auth/helpers.js';
import { testConfig, testDatabaseUrl } from '../helpers.js';

/** The test roles' password: the embedded cluster asks every client for one. */
const ROLE_PASSWORD = 'role-password-1';

describe('a PostgreSQL database that does not exist yet', () => {
  const baseUrl = testDatabaseUrl();
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const databases: string[] = [];
  const roles: string[] = [];

  /** Runs `fn` on a connection to the test server's maintenance database. */
  async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const url = new URL(baseUrl);
    url.pathname = '/postgres';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  /** DATABASE_URL for a database named `name` on the test server, whose name is dropped after the file. */
  function urlFor(name: string, user?: string): string {
    databases.push(name);
    const url = new URL(baseUrl);
    url.pathname = `/${encodeURI(name)}`; // the pg driver reads the name with decodeURI
    if (user) [url.username, url.password] = [user, ROLE_PASSWORD];
    return url.toString();
  }

  const exists = (name: string) =>
    admin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);

  afterAll(async () => {
    if (!baseUrl) return;
    await admin(async (c) => {
      for (const name of databases) await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`);
      for (const role of roles) await c.query(`DROP ROLE IF EXISTS ${c.escapeIdentifier(role)}`);
    });
  });

  it('is created with a code-point collation, migrated and seeded; the app serves a prefix search from it', async () => {
    const name = `mdg_create_${suffix}`;
    const config = testConfig(parsePostgresUrl(urlFor(name), true), { sampleData: 'auto' });
    const logs: string[] = [];
    const db = await openDatabase(config, (m) => logs.push(m));
    try {
      expect(logs[0]).toBe(`created database "${name}" (UTF8, collation C.UTF-8: text compares by code point)`);
      expect(logs.some((l) => l.startsWith('applied migrations:'))).toBe(true);
      const [row] = await admin(
        async (c) =>
          (
            await c.query(
              'SELECT datcollate, datctype, pg_encoding_to_char(encoding) AS enc FROM pg_database WHERE datname = $1',
              [name],
            )
          ).rows,
      );
      expect(row).toEqual({ datcollate: 'C.UTF-8', datctype: 'C.UTF-8', enc: 'UTF8' });
      expect(await db.codepointTextOrder()).toBe(true);
      expect(await db.prisma.security.count()).toBe(DEFAULT_SAMPLE.securities);

      const app = createApp({ config, db });
      const symbol = (await db.prisma.security.findFirstOrThrow({ orderBy: { symbol: 'asc' } })).symbol;
      const r = await gqlRequest(
        app,
        `{ securities(search: ${JSON.stringify(symbol.slice(0, 2))}) { nodes { symbol } } }`,
        { 'x-api-key': 'demo-free' },
      );
      expect(r.status).toBe(200);
      expect(r.body.data.securities.nodes.map((n: { symbol: string }) => n.symbol)).toContain(symbol);
    } finally {
      await db.close();
    }
    // a restart finds it: nothing created, nothing applied
    const again: string[] = [];
    await (await openDatabase(config, (m) => again.push(m))).close();
    expect(again).toEqual([]);
  });

  it('takes a hostile name verbatim as one identifier: quotes and semicolons create that database and run nothing', async () => {
    // what an injection would drop: a database of this test's own, never one the suite shares
    const canary = `mdg_c_${suffix}`;
    databases.push(canary);
    await admin((c) => c.query(`CREATE DATABASE ${canary}`));
    const name = `m"; DROP DATABASE "${canary}"; --'\\`;
    const db = await openDatabase(testConfig(parsePostgresUrl(urlFor(name), true)));
    await db.close();
    expect(await exists(name)).toBe(true);
    expect(await exists(canary)).toBe(true);
  });

  it('refuses a name PostgreSQL would cut to 63 bytes, naming the rule', async () => {
    const name = `mdg_long_${suffix}_${'x'.repeat(60)}`;
    await expect(openDatabase(testConfig(parsePostgresUrl(urlFor(name), true)))).rejects.toThrow(
      /a database name is at most 63 bytes/,
    );
    expect(await exists(name.slice(0, 63))).toBe(false);
  });

  it('in production (DATABASE_CREATE off) creates nothing and names the createdb command to run', async () => {
    const name = `mdg_prod_${suffix}`;
    const config = testConfig(parsePostgresUrl(urlFor(name), false), { nodeEnv: 'production' });
    const error = await openDatabase(config).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('DATABASE_MISSING');
    const { hostname, port, username } = new URL(baseUrl);
    const where = `-h ${hostname}${port && port !== '5432' ? ` -p ${port}` : ''} -U ${username}`;
    expect((error as AppError).message).toBe(
      `database "${name}" does not exist (DATABASE_CREATE=true lets the gateway create it); create it with: createdb ${where} --locale=C.UTF-8 --template=template0 ${name}`,
    );
    expect(await exists(name)).toBe(false);
  });

  it('without the right to create databases stops with the reason and the createdb command', async () => {
    const role = `mdg_nocreate_${suffix}`;
    roles.push(role);
    await admin((c) => c.query(`CREATE ROLE ${c.escapeIdentifier(role)} LOGIN NOCREATEDB PASSWORD '${ROLE_PASSWORD}'`));
    const name = `mdg_noright_${suffix}`;
    const config = testConfig(parsePostgresUrl(urlFor(name, role), true));
    const error = await openDatabase(config).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as AppError).code).toBe('DATABASE_MISSING');
    expect((error as AppError).message).toMatch(
      new RegExp(
        `^database "${name}" does not exist and creating it failed \\(permission denied to create database\\); create it as a user with the CREATEDB right: createdb -h \\S+ (-p \\d+ )?-U postgres --owner=${role} --locale=C\\.UTF-8 --template=template0 ${name}$`,
      ),
    );
    expect(await exists(name)).toBe(false);
  });
});

/**
 * What other servers answer, from a driver that sends nothing: the pg client with its connection
 * replaced, answering each CREATE DATABASE with the next of `answers` (an error, or nothing: done).
 */
function fakeServer(answers: ({ code: string; message: string } | undefined)[]) {
  const sent: string[] = [];
  // called with `new`, a function's returned object is the instance: a real client, reading the URL as pg does
  function Client(config: pg.ClientConfig) {
    return Object.assign(new pg.Client(config), {
      connect: () => Promise.resolve(),
      query: (sql: string) => {
        sent.push(sql);
        const answer = answers.shift();
        return answer
          ? Promise.reject(Object.assign(new Error(answer.message), { code: answer.code }))
          : Promise.resolve({ rows: [] });
      },
      end: () => Promise.resolve(),
    });
  }
  return { pg: { Client } as unknown as typeof pg, sent };
}

describe('creating a database on servers unlike the test one', () => {
  const database = parsePostgresUrl('postgresql://app@db.example:6543/market', true);
  const create = `CREATE DATABASE "market" TEMPLATE template0 ENCODING 'UTF8'`;

  it('falls back to LOCALE C where the server has no C.UTF-8 locale', async () => {
    const server = fakeServer([{ code: '42809', message: 'invalid locale name: "C.UTF-8"' }]);
    expect(await createMissingDatabase(server.pg, database)).toBe(
      'created database "market" (UTF8, collation C: text compares by code point)',
    );
    expect(server.sent).toEqual([
      `${create} LOCALE_PROVIDER libc LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`,
      `${create} LOCALE_PROVIDER libc LOCALE 'C'`,
    ]);
  });

  it('leaves out LOCALE_PROVIDER where PostgreSQL (before 15) does not know it', async () => {
    const server = fakeServer([{ code: '42601', message: 'option "locale_provider" not recognized' }]);
    expect(await createMissingDatabase(server.pg, database)).toMatch(/collation C\.UTF-8/);
    expect(server.sent[1]).toBe(`${create} LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
  });

  it('takes a database another instance created at the same moment; any other failure names the createdb command', async () => {
    expect(
      await createMissingDatabase(
        fakeServer([{ code: '42P04', message: 'database "market" already exists' }]).pg,
        database,
      ),
    ).toBeUndefined();
    await expect(
      createMissingDatabase(
        fakeServer([{ code: '57P03', message: 'the database system is starting up' }]).pg,
        database,
      ),
    ).rejects.toThrow(
      'database "market" does not exist and creating it failed (the database system is starting up); create it with: createdb -h db.example -p 6543 -U app --locale=C.UTF-8 --template=template0 market',
    );
    const refused = createMissingDatabase(
      fakeServer([{ code: '42501', message: 'permission denied to create database' }]).pg,
      database,
    );
    await expect(refused).rejects.toThrow(
      'database "market" does not exist and creating it failed (permission denied to create database); create it as a user with the CREATEDB right: createdb -h db.example -p 6543 -U postgres --owner=app --locale=C.UTF-8 --template=template0 market',
    );
  });
});
