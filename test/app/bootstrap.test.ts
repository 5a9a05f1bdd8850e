import { afterAll, describe, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { hashApiKey } from '../../src/credentials/apikeys.js';
import { verifyPassword } from '../../src/credentials/passwords.js';
import { logLines, openDatabase, seedProgress } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { DEFAULT_SAMPLE, plannedMarketRows } from '../../src/sample/generate.js';
import { createApiKey, createUser, DEMO_ACCOUNTS } from '../../src/services/account.js';
import { MANIFESTS } from '../../src/resources/index.js';
import { seedSampleData } from '../../src/sample/seed.js';
import { bearer, DEMO_PASSWORD, expectRestError, login, loginRequest, validateRequest } from '../auth/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';

/** A stable fingerprint of the market data: what "the same rows" means. */
async function fingerprint(db: Db) {
  const p = db.prisma;
  const strip = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map(({ createdAt, updatedAt, rev, ...rest }) => rest);
  return JSON.stringify(
    {
      securities: strip(await p.security.findMany({ orderBy: { id: 'asc' } })),
      balanceSheets: strip(await p.balanceSheet.findMany({ orderBy: { id: 'asc' }, include: { symbols: true } })),
      fundamentals: strip(await p.fundamental.findMany({ orderBy: { id: 'asc' } })),
      news: strip(await p.newsItem.findMany({ orderBy: { id: 'asc' }, include: { securities: true } })),
      trades: await p.trade.findMany({ orderBy: [{ symbol: 'asc' }, { sequenceNumber: 'asc' }], take: 2_000 }),
      tradeCount: await p.trade.count(),
      quoteCount: await p.quote.count(),
    },
    (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

describe.each(testDatabases())('start-up on $name', (tdb) => {
  afterAll(() => tdb.cleanup());

  // Every test makes databases of its own or only reads the shared seeded one, so the tests run at
  // once: this process generates rows while the database server writes others.
  const test = it.concurrent;

  /**
   * One empty database opened (and so migrated and seeded) by openDatabase with SAMPLE_DATA=auto,
   * with what it logged, then closed again. A seed costs seconds; the tests that only read the
   * result share this one (each opens it again, as a restart would) instead of seeding their own.
   */
  let seeded: Promise<{ config: Readonly<Config>; logs: string[]; counts: Record<string, number> }> | undefined;
  const seededFromEmpty = () =>
    (seeded ??= (async () => {
      const config = testConfig(await tdb.create(), { sampleData: 'auto' });
      const logs: string[] = [];
      const db = await openDatabase(config, (m) => logs.push(m));
      try {
        // as the seed left them, before any other open of the database
        const counts = {
          security: await db.prisma.security.count(),
          user: await db.prisma.user.count(),
          apiKey: await db.prisma.apiKey.count(),
        };
        return { config, logs, counts };
      } finally {
        await db.close();
      }
    })());

  test('migrates and seeds an empty database, creates demo accounts, and does not seed twice', async ({ expect }) => {
    const { config, logs, counts } = await seededFromEmpty();
    expect(counts).toEqual({
      security: DEFAULT_SAMPLE.securities,
      user: DEMO_ACCOUNTS.length,
      apiKey: DEMO_ACCOUNTS.length,
    });
    const db = await openDatabase(config);
    let before: string;
    try {
      const planned = plannedMarketRows(DEFAULT_SAMPLE);
      expect(await db.prisma.security.count()).toBe(DEFAULT_SAMPLE.securities);
      expect(await db.prisma.logo.count()).toBe(DEFAULT_SAMPLE.securities);
      expect(await db.prisma.trade.count()).toBe(planned.trades);
      expect(await db.prisma.quote.count()).toBe(planned.quotes);
      expect(planned.trades).toBeGreaterThanOrEqual(10_000);
      // every table of every resource the sample fills in one go (trades and quotes are streamed: counted above)
      for (const { model } of MANIFESTS.filter((r) => !r.bulk).flatMap((r) => r.tables ?? [])) {
        const table = (db.prisma as unknown as Record<string, { count(): Promise<number> }>)[
          `${model[0]!.toLowerCase()}${model.slice(1)}`
        ]!;
        expect(await table.count(), model).toBeGreaterThan(0);
      }
      expect(logs.some((l) => l.startsWith('sample data:'))).toBe(true);

      for (const demo of DEMO_ACCOUNTS) {
        const user = await db.prisma.user.findUniqueOrThrow({
          where: { email: demo.email },
          include: { apiKeys: true },
        });
        expect(user.tier).toBe(demo.tier);
        expect(user.passwordHash).not.toContain(demo.password);
        expect(await verifyPassword(demo.password, user.passwordHash)).toBe(true);
        expect(await verifyPassword('wrong-password', user.passwordHash)).toBe(false);
        expect(user.apiKeys.map((k) => k.hash)).toEqual([hashApiKey(demo.apiKey)]);
      }
      before = await fingerprint(db);
    } finally {
      await db.close();
    }

    const logs2: string[] = [];
    const again = await openDatabase(config, (m) => logs2.push(m));
    try {
      expect(logs2.some((l) => l.startsWith('sample data:'))).toBe(false);
      expect(await fingerprint(again)).toBe(before);
      expect(await again.prisma.user.count()).toBe(DEMO_ACCOUNTS.length);
      expect(await again.prisma.apiKey.count()).toBe(DEMO_ACCOUNTS.length);
    } finally {
      await again.close();
    }
  });

  test('stored balance sheets balance and agree with the stored fundamentals', async ({ expect }) => {
    const db = await openDatabase((await seededFromEmpty()).config);
    try {
      const sheets = await db.prisma.balanceSheet.findMany({ include: { symbols: true } });
      expect(sheets.length).toBeGreaterThan(0);
      for (const s of sheets) {
        expect(s.totalLiabilities + s.totalEquity, `sheet ${s.id}`).toBe(s.totalAssets);
        expect(s.totalLiabilitiesPlusEquity, `sheet ${s.id}`).toBe(s.totalAssets);
        expect(s.cik).toMatch(/^\d{10}$/);
        expect(s.symbols.length).toBeGreaterThan(0);
      }
      const quarterly = sheets.filter((s) => s.timeframe === 'quarterly');
      const funds = await db.prisma.fundamental.findMany({ include: { metrics: true } });
      const byKey = new Map(funds.map((f) => [`${f.cik}|${f.endPeriod}|${f.quarter}`, f]));
      for (const s of quarterly) {
        const f = byKey.get(`${s.cik}|${s.reportingPeriodEnd}|Q${s.fiscalQuarter}`);
        expect(f, `fundamentals for ${s.cik} ${s.reportingPeriodEnd}`).toBeDefined();
        expect(f!.totalAssets).toBe(s.totalAssets);
        expect(f!.totalLiabilities).toBe(s.totalLiabilities);
        expect(f!.totalEquity).toBe(s.totalEquity);
      }
      expect(funds.every((f) => f.metrics !== null)).toBe(true);
    } finally {
      await db.close();
    }
  });

  test('the same seed gives the same rows; an interrupted seed is redone on the next start', async ({ expect }) => {
    const a = await openDatabase((await seededFromEmpty()).config);
    const bConfig = testConfig(await tdb.create(), { sampleData: 'auto' });
    const b = await openDatabase(bConfig);
    try {
      expect(await fingerprint(b)).toBe(await fingerprint(a));
      // simulate a crash part-way through a seed: marker still "partial", rows missing
      await b.prisma.trade.deleteMany({ where: { symbol: (await b.prisma.trade.findFirstOrThrow()).symbol } });
      await b.prisma.appMeta.update({
        where: { key: 'sample_data' },
        data: { value: JSON.stringify({ state: 'partial', options: DEFAULT_SAMPLE }) },
      });
    } finally {
      await b.close();
    }
    const restarted = await openDatabase(bConfig);
    try {
      expect(await fingerprint(restarted)).toBe(await fingerprint(a));
      // a different seed really is different
      await seedSampleData(restarted, { ...DEFAULT_SAMPLE, seed: 7 });
      expect(await fingerprint(restarted)).not.toBe(await fingerprint(a));
    } finally {
      await restarted.close();
      await a.close();
    }
    // four seeds of the sample (about 10 s each alone): bounded for a loaded machine, as the CLI tests are
  }, 240_000);

  test('a production start over a database a development start filled disables the demo accounts and keys, once, saying so', async ({
    expect,
  }) => {
    const database = await tdb.create();
    const dev = await openDatabase(testConfig(database, { sampleData: 'none', nodeEnv: 'development' }));
    let access: string;
    let ownKey: string;
    try {
      const app = createApp({ config: testConfig(database), db: dev });
      expect((await validateRequest(app, {}, '?apikey=demo-enterprise')).status).toBe(200);
      access = (await login(app, 'enterprise@example.com', DEMO_PASSWORD)).access;
      const user = await createUser(dev, { email: 'customer@example.com', password: 'a real password', tier: 'pro' });
      ownKey = (await createApiKey(dev, user.id, 'theirs', 10)).key;
    } finally {
      await dev.close();
    }

    const production = testConfig(database, { sampleData: 'none', nodeEnv: 'production' });
    const logs: string[] = [];
    const db = await openDatabase(production, (m) => logs.push(m));
    try {
      expect(logs).toEqual([
        `production: disabled ${DEMO_ACCOUNTS.length} demo user(s) and revoked ${DEMO_ACCOUNTS.length} demo API key(s) left by a development start (their published passwords and keys no longer work)`,
      ]);
      const app = createApp({ config: production, db });
      for (const demo of DEMO_ACCOUNTS) {
        expectRestError(
          await validateRequest(app, {}, `?apikey=${demo.apiKey}`),
          401,
          'UNAUTHENTICATED',
          'the API key is not valid',
        );
        expectRestError(
          await loginRequest(app, demo.email, demo.password),
          401,
          'UNAUTHENTICATED',
          'invalid email or password',
        );
      }
      expectRestError(await validateRequest(app, bearer(access)), 401, 'UNAUTHENTICATED', /session has ended/);
      // everyone else is left alone
      expect((await validateRequest(app, { 'x-api-key': ownKey })).body.email).toBe('customer@example.com');
      expect((await loginRequest(app, 'customer@example.com', 'a real password')).status).toBe(200);
    } finally {
      await db.close();
    }

    const again: string[] = [];
    const restarted = await openDatabase(production, (m) => again.push(m));
    try {
      expect(again).toEqual([]);
      expect(
        await restarted.prisma.user.count({
          where: { email: { in: DEMO_ACCOUNTS.map((d) => d.email) }, disabled: true },
        }),
      ).toBe(DEMO_ACCOUNTS.length);
      expect(
        await restarted.prisma.apiKey.count({
          where: { hash: { in: DEMO_ACCOUNTS.map((d) => hashApiKey(d.apiKey)) }, revokedAt: null },
        }),
      ).toBe(0);
    } finally {
      await restarted.close();
    }
  });

  test('leaves a database filled by other means alone, and seeds nothing with SAMPLE_DATA=none or in production', async ({
    expect,
  }) => {
    const database = await tdb.create();
    const none = await openDatabase(testConfig(database, { sampleData: 'none' }));
    try {
      expect(await none.prisma.security.count()).toBe(0);
      expect(await none.prisma.user.count()).toBe(DEMO_ACCOUNTS.length);
      await none.prisma.rating.create({
        data: {
          id: 1,
          firm: 'f',
          ticker: 'T',
          exchange: 'X',
          company: 'c',
          action: 'a',
          rating: 'r',
          priceTarget: '$1',
          story: 's',
          isRating: true,
          createdAt: new Date(),
          updatedAt: new Date(),
        },
      });
      await none.prisma.security.create({
        data: {
          id: 'BBG000000001_XNAS',
          symbol: 'T',
          name: 'T',
          status: 'ACTIVE',
          micCode: 'XNAS',
          figi: 'BBG000000001',
        },
      });
    } finally {
      await none.close();
    }
    const imported = await openDatabase(testConfig(database, { sampleData: 'auto' }));
    try {
      expect(await imported.prisma.security.count()).toBe(1);
      expect(await imported.prisma.trade.count()).toBe(0);
    } finally {
      await imported.close();
    }
    const prod = await openDatabase(testConfig(await tdb.create(), { sampleData: 'auto', nodeEnv: 'production' }));
    try {
      expect(await prod.prisma.security.count()).toBe(0);
      expect(await prod.prisma.user.count()).toBe(0);
    } finally {
      await prod.close();
    }
  });
});

describe('seed progress', () => {
  it('shows rows, rows/s, ETA and the share of the phase, as import does, and a line as each phase ends', ({
    expect,
  }) => {
    const lines: string[] = [];
    const report = seedProgress(
      logLines((l) => lines.push(l)),
      0,
    );
    report({ phase: 'trades', done: 0, total: 1_200_000 });
    report({ phase: 'trades', done: 300_000, total: 1_200_000 });
    report({ phase: 'trades', done: 1_200_000, total: 1_200_000 });
    expect(lines).toEqual([
      'seeding trades: 0 rows | 0 rows/s | 0.0% of 1,200,000 rows',
      expect.stringMatching(
        /^seeding trades: 300,000 rows \| [\d,]+ rows\/s \| ETA \d+(s|m\d\ds|h\d\dm) \| 25\.0% of 1,200,000 rows$/,
      ),
      expect.stringMatching(/^seeding trades: 1,200,000 rows in \d+\.\d s \([\d,]+ rows\/s\)$/),
    ]);
  });
});
