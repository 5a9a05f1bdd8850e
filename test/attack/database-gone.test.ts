// The database taken from under a running instance, by class (db/unavailable.ts, db/readiness.ts):
// dropped (every route answers 503 DATABASE_UNAVAILABLE with Retry-After, /readyz is 503 with one log
// line saying why), re-created empty (not ready, and 503, while the instance migrates it: one
// migration however many ask; then ready and answering, without a restart), and re-created with a
// migration history this version does not know (it stays unready with one log line, until fixed).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import { parsePostgresUrl } from '../../src/config.js';
import type { Db } from '../../src/db/client.js';
import { apiKeyPrefix, hashApiKey } from '../../src/credentials/apikeys.js';
import { readMigrations } from '../../src/db/migrate.js';
import { createLogger } from '../../src/observability/log.js';
import type { Tier } from '../../src/services/account.js';
import { BASE, call, cheapHash, gqlRequest, loginRequest, RELAXED } from '../auth/helpers.js';
import { fetchOf, listening, sse, wsClients } from '../graphql/subscription-helpers.js';
import { testConfig, testDatabaseUrl } from '../helpers.js';

const RATINGS = 'query Ratings { ratings(first: 1) { nodes { firm } } }';
const PASSWORD = 'a password of the test';
const LOGIN = `mutation Login { login(email: "pro@example.com", password: "${PASSWORD}") { message } }`;
/** Production makes no account: the test's own, with cheap password hashes, made again in a re-created database. */
const ACCOUNTS = (['free', 'pro', 'enterprise'] as const).map((tier: Tier) => ({
  email: `${tier}@example.com`,
  tier,
  apiKey: `key-${tier}-${randomBytes(8).toString('hex')}`,
}));
const key = (tier: Tier) => ({ 'x-api-key': ACCOUNTS.find((a) => a.tier === tier)!.apiKey });

async function addAccounts(db: Db): Promise<void> {
  for (const a of ACCOUNTS)
    await db.prisma.user.create({
      data: {
        email: a.email,
        username: a.tier,
        passwordHash: cheapHash(PASSWORD),
        tier: a.tier,
        apiKeys: { create: { name: 'test', prefix: apiKeyPrefix(a.apiKey), hash: hashApiKey(a.apiKey) } },
      },
    });
}

describe('a database dropped and re-created under a running instance', () => {
  const name = `mdg_gone_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  // production, whose DATABASE_CREATE is off: a dropped database stays gone until someone makes it
  const config = testConfig(parsePostgresUrl(url.toString(), false), {}, { ...RELAXED, NODE_ENV: 'production' });
  const logLines: string[] = [];
  let db: Db;
  let app: App;
  let ws: Awaited<ReturnType<typeof listening>>;
  const clients = wsClients(() => ws.url);

  /** Runs `fn` on a connection to `database` (the server's maintenance database by default). */
  async function sql<T>(fn: (c: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
    const u = new URL(url);
    u.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: u.toString() });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }
  const drop = () => sql((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const create = () => sql((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`));
  const databaseLines = () =>
    logLines
      .map((l) => JSON.parse(l) as { level: string; component?: string; msg: string })
      .filter((l) => l.component === 'database');

  beforeAll(async () => {
    await create();
    db = await openDatabase(config); // what a start makes of it: the migrations
    await addAccounts(db);
    app = createApp({
      config,
      db,
      logger: createLogger('info', { write: (line: string) => void logLines.push(line) }),
    });
    ws = await listening(app);
  }, 60_000);

  afterAll(async () => {
    await clients.disposeAll();
    await ws?.close();
    await db?.close().catch(() => {});
    await drop();
  });

  const readyz = async () => {
    const res = await app.fetch(`${BASE}/readyz`);
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Record<string, unknown>,
    };
  };
  const rest = (tier: Tier) => call(app, '/rating/api/v1/ratings?symbol=NVLX', { headers: key(tier) });

  /** Every route a client reaches the database by: each answered 503 DATABASE_UNAVAILABLE with Retry-After. */
  async function expectEveryRouteUnavailable(): Promise<void> {
    const restAnswers = [
      await rest('free'), // its caller cached: it fails in the handler
      await rest('enterprise'), // not seen yet: it fails looking the key up
      await loginRequest(app, 'free@example.com', PASSWORD),
    ];
    for (const r of restAnswers) {
      expect(r.status).toBe(503);
      expect(r.res.headers.get('retry-after')).toBe('5');
      expect(r.body).toMatchObject({
        status: 'ERROR',
        code: 'DATABASE_UNAVAILABLE',
        message: expect.stringMatching(/database is unavailable/),
      });
    }
    const graphqlAnswers = [
      await gqlRequest(app, RATINGS, key('free')),
      await gqlRequest(app, RATINGS, key('pro')),
      await gqlRequest(app, LOGIN),
    ];
    for (const r of graphqlAnswers) {
      expect(r.status).toBe(503);
      expect(r.res.headers.get('retry-after')).toBe('5');
      expect(r.body.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
    }
    // a subscription's setup, by a key not looked up yet (with the caller cached and the in-memory bus
    // it needs no database): over SSE an HTTP answer, over WebSocket a close to try again later (1013)
    const unseen = { 'x-api-key': `key-unseen-${randomBytes(8).toString('hex')}` };
    const stream = await sse(fetchOf(app), BASE, 'subscription { tradeAdded(symbol: "NVLX") { price } }', unseen);
    expect(stream.response.status).toBe(503);
    expect(stream.response.headers.get('retry-after')).toBe('5');
    const socket = clients.client({ apiKey: unseen['x-api-key'] });
    const op = clients.run(socket.client, 'subscription { tradeAdded(symbol: "NVLX") { price } }');
    await expect.poll(() => op.done, { timeout: 10_000 }).toBe(true);
    expect(socket.closed).toMatchObject({ code: 1013, reason: expect.stringMatching(/database is unavailable/) });
  }

  async function expectEveryRouteAnswers(): Promise<void> {
    expect((await rest('free')).status).toBe(200);
    expect((await rest('enterprise')).status).toBe(200);
    expect((await loginRequest(app, 'free@example.com', PASSWORD)).status).toBe(200);
    for (const r of [
      await gqlRequest(app, RATINGS, key('free')),
      await gqlRequest(app, RATINGS, key('pro')),
      await gqlRequest(app, LOGIN),
    ]) {
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
    }
  }

  it('dropped: every route answers 503 DATABASE_UNAVAILABLE with Retry-After, /readyz 503, one log line saying why', async () => {
    expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready' } });
    await expectEveryRouteAnswers();

    await drop();
    await expectEveryRouteUnavailable();
    await expectEveryRouteUnavailable(); // the pool's dropped connections first, then refused new ones
    const r = await readyz();
    expect(r).toMatchObject({ status: 503, retryAfter: '5', body: { status: 'unavailable' } });
    expect(['migrating', 'unmigrated']).toContain(r.body.reason);

    // it tried to make the database again, as a start would, and was not allowed to (DATABASE_CREATE off)
    const failed = (line: { msg: string }) => /migrating it failed/.test(line.msg);
    await expect.poll(() => databaseLines().filter(failed).length, { timeout: 10_000 }).toBe(1);
    expect(databaseLines().find(failed)).toMatchObject({
      level: 'error',
      msg: expect.stringContaining(
        `database "${name}" does not exist (DATABASE_CREATE=true lets the gateway create it); create it with: createdb`,
      ),
    });
    // tried again (the answer says `migrating` for a moment) and failed the same way: no second line
    await expect.poll(async () => (await readyz()).body.reason, { timeout: 15_000, interval: 100 }).toBe('migrating');
    await expect.poll(async () => (await readyz()).body.reason, { timeout: 15_000, interval: 100 }).toBe('unmigrated');
    expect(databaseLines().filter(failed)).toHaveLength(1);
    expect(logLines.join('\n')).not.toMatch(/"code":"INTERNAL"|INTERNAL_SERVER_ERROR/);
  }, 60_000);

  it('re-created empty: not ready and 503 while it is migrated, one migration however many ask; then ready and answering', async () => {
    await drop(); // if the test before left it
    await create();
    // the instance's migration waits for this lock, which migrations take (db/migrate.ts): the window held open
    const holder = new pg.Client({ connectionString: url.toString() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext('market-data-gateway:migrate:' || $1))`, [
        config.database.schema,
      ]);
      await expect.poll(async () => (await readyz()).body.reason, { timeout: 15_000, interval: 100 }).toBe('migrating');
      await expectEveryRouteUnavailable(); // its tables are missing (42P01)
      // readiness asked many times over more than one answer's life, and by every failing request
      const waiting = () =>
        sql(async (c) =>
          Number(
            (
              await c.query(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`,
                [name],
              )
            ).rows[0].n,
          ),
        );
      for (const t0 = performance.now(); performance.now() - t0 < 2_500; ) {
        const answers = await Promise.all([...Array(10)].map(() => readyz()));
        expect(answers.map((a) => a.status)).toEqual(Array(10).fill(503));
        expect((await rest('free')).status).toBe(503);
      }
      expect(await waiting()).toBe(1);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
    await expect.poll(async () => (await readyz()).status, { timeout: 30_000, interval: 100 }).toBe(200);
    // what a start in production makes of an empty database: the migrations, no account, no sample data
    expect(await db.prisma.user.count()).toBe(0);
    expect(await db.prisma.security.count()).toBe(0);
    await addAccounts(db);
    await expectEveryRouteAnswers();
    const history = await sql((c) => c.query('SELECT migration_name FROM "_prisma_migrations" ORDER BY 1'), name);
    expect(history.rows.map((r) => r.migration_name)).toEqual(readMigrations().map((m) => m.name));
    expect(databaseLines().map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        `applied migrations: ${readMigrations()
          .map((m) => m.name)
          .join(', ')}`,
        'database: ready again',
      ]),
    );
  }, 60_000);

  it('re-created with a migration this version does not know: it stays unready with one log line, and 503; ready once fixed', async () => {
    await drop();
    await create();
    const future = '29990101000000_from_a_newer_version';
    await sql(async (c) => {
      await c.query(
        `CREATE TABLE "_prisma_migrations" (id VARCHAR(36) PRIMARY KEY, checksum VARCHAR(64) NOT NULL, finished_at TIMESTAMPTZ, migration_name VARCHAR(255) NOT NULL, logs TEXT, rolled_back_at TIMESTAMPTZ, started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0)`,
      );
      await c.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name) VALUES ('x', 'x', now(), $1)`,
        [future],
      );
    }, name);
    const before = databaseLines().length;
    await expect.poll(async () => (await readyz()).body.reason, { timeout: 15_000, interval: 100 }).toBe('unmigrated');
    await expectEveryRouteUnavailable();
    const lines = databaseLines().slice(before);
    expect(lines.filter((l) => /migrating it failed/.test(l.msg))).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: expect.stringContaining(
          `the database has migration ${future}, which this version of the code does not know`,
        ),
      }),
    ]);

    await sql((c) => c.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [future]), name);
    await expect.poll(async () => (await readyz()).status, { timeout: 30_000, interval: 100 }).toBe(200);
    await addAccounts(db);
    await expectEveryRouteAnswers();
  }, 60_000);
});
