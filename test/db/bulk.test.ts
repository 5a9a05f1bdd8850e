import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { bulkInsert, bulkUpsert } from '../../src/db/bulk.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('bulk insert on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    const database = await tdb.create();
    await migrate(database);
    db = await createDb(database);
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  it('writes rows that Prisma reads back exactly: 19-digit BigInt, Json, DateTime, Boolean, enum', async () => {
    const trade = {
      symbol: 'BULK',
      sequenceNumber: 9_007_199_254_740_993n,
      sipTimestamp: 1_795_208_399_869_397_596n,
      tradeId: 't1',
      price: 101.2345,
      size: 300,
      exchange: 4,
      tape: 3,
      conditions: [12, 37],
    };
    expect(await bulkInsert(db, 'Trade', [trade])).toBe(1);
    expect(await db.prisma.trade.findFirstOrThrow({ where: { symbol: 'BULK' } })).toEqual(trade);

    const createdAt = new Date('2026-01-02T03:04:05.678Z');
    await bulkInsert(db, 'NewsItem', [
      {
        id: 7,
        newsId: '0b7e3f0e-3d0a-4c5e-9a43-2f2f6f1f0a11',
        headline: 'h',
        catalyst: 'c',
        catalystCreated: true,
        associatedPressReleases: [1, 2],
        associatedRatings: [],
        associatedTranscripts: [],
        logoExists: false,
        logoThumbnailUrl: 'https://x/y.png',
        onAllTickers: false,
        onEntities: true,
        shareClassFigi: 'BBG001',
        ticker: 'BULK',
        type: 'losers',
        createdAt,
        updatedAt: createdAt,
      },
    ]);
    const news = await db.prisma.newsItem.findUniqueOrThrow({ where: { id: 7 } });
    expect(news).toMatchObject({
      catalystCreated: true,
      logoExists: false,
      associatedPressReleases: [1, 2],
      type: 'losers',
      createdAt,
    });
  });

  it('fills Prisma-managed timestamps and moves the id sequence past explicit ids', async () => {
    const before = Date.now();
    await bulkInsert(db, 'Logo', [
      {
        id: 40,
        symbol: 'LOGO',
        companyName: 'L',
        pngUrl: 'u',
        pngHeight: 1,
        pngWidth: 1,
        pngSizeKb: 1,
        svgUrl: 'u',
        svgSizeKb: 1,
        thumbnailUrl: 'u',
        thumbnailSizeKb: 1,
      },
    ]);
    const logo = await db.prisma.logo.findUniqueOrThrow({ where: { symbol: 'LOGO' } });
    expect(logo.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(logo.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // a later insert through Prisma gets a fresh id rather than colliding with 40
    const next = await db.prisma.logo.create({
      data: {
        symbol: 'NEXT',
        companyName: 'N',
        pngUrl: 'u',
        pngHeight: 1,
        pngWidth: 1,
        pngSizeKb: 1,
        svgUrl: 'u',
        svgSizeKb: 1,
        thumbnailUrl: 'u',
        thumbnailSizeKb: 1,
      },
    });
    expect(next.id).toBeGreaterThan(40);
  });

  it('is all or nothing, and skips existing keys when asked', async () => {
    const row = (seq: bigint) => ({
      symbol: 'ATOM',
      sequenceNumber: seq,
      sipTimestamp: 1n,
      tradeId: 'x',
      price: 1,
      size: 1,
      exchange: 1,
      tape: 1,
      conditions: [],
    });
    await expect(bulkInsert(db, 'Trade', [row(1n), row(2n), row(2n)])).rejects.toThrow();
    expect(await db.prisma.trade.count({ where: { symbol: 'ATOM' } })).toBe(0);
    expect(await bulkInsert(db, 'Trade', [row(1n), row(2n)])).toBe(2);
    expect(await bulkInsert(db, 'Trade', [row(2n), row(3n)], { skipDuplicates: true })).toBe(1);
    expect(await db.prisma.trade.count({ where: { symbol: 'ATOM' } })).toBe(3);
  });

  it('an upsert tells row by row what it inserted, and what each update replaced, before `within` runs', async () => {
    const row = (seq: bigint, sipTimestamp: bigint, price: number) => ({
      symbol: 'UPS',
      sequenceNumber: seq,
      sipTimestamp,
      tradeId: 'x',
      price,
      size: 1,
      exchange: 1,
      tape: 1,
      conditions: [],
    });
    await bulkInsert(db, 'Trade', [row(1n, 10n, 1), row(2n, 20n, 2), row(3n, 30n, 3)]);
    let seen: unknown;
    const r = await bulkUpsert(
      db,
      'Trade',
      ['symbol', 'sequenceNumber'],
      [row(1n, 10n, 1), row(2n, 24n, 2), row(4n, 40n, 4), row(3n, 30n, 5)],
      { replaced: ['sipTimestamp'], within: async (_, result) => void (seen = result.replaced) },
    );
    expect([r.inserted, r.updated, r.unchanged]).toEqual([1, 2, 1]);
    expect(r.wasInserted).toEqual([false, false, true, false]);
    expect(r.replaced).toEqual([undefined, { sipTimestamp: '20' }, undefined, { sipTimestamp: '30' }]);
    expect(seen).toEqual(r.replaced);
    expect(
      (await db.prisma.trade.findUnique({ where: { symbol_sequenceNumber: { symbol: 'UPS', sequenceNumber: 2n } } }))
        ?.sipTimestamp,
    ).toBe(24n);
  });
});
