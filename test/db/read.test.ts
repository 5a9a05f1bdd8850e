import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { topPerKey } from '../../src/db/sql.js';
import {
  SEARCH_TYPES,
  securitySearchAtPage,
  securitySearchPage,
  type SearchType,
} from '../../src/services/security.js';
import { Prisma } from '../../generated/prisma/client.js';
import { testConfig, testDatabases } from '../helpers.js';
import { canonical, canonicalAnyOrder, typeOf } from './rows.js';

// Db.read is the driver-level path of the hot reads; it must hand back rows exactly as Prisma
// does (types included), or the resolvers and REST bodies built on it would change underneath.

/** Rows compared per model. */
const ROWS = 2_000;
describe.each(testDatabases())('Db.read on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(testConfig(await tdb.createSeeded(), { sampleData: 'auto' }));
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  it('returns each model’s rows equal to Prisma’s findMany, value and type, column by column', async () => {
    let compared = 0;
    for (const model of Object.values(Prisma.ModelName)) {
      const delegate = (
        db.prisma as unknown as Record<string, { findMany(args?: object): Promise<Record<string, unknown>[]> }>
      )[model[0]!.toLowerCase() + model.slice(1)]!;
      // the first rows by the primary key, both ways: the sample's tick, bar and event tables hold
      // hundreds of thousands of rows, which no more kinds of value than their first ROWS show
      const key = await db.read<{ c: string }>(
        `SELECT a.attname AS "c" FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        [`"${model}"`],
      );
      const order = key.map((k) => k.c);
      const viaPrisma = order.length
        ? await delegate.findMany({ orderBy: order.map((c) => ({ [c]: 'asc' })), take: ROWS })
        : await delegate.findMany();
      const viaRead = await db.read(
        order.length
          ? `SELECT * FROM "${model}" ORDER BY ${order.map((c) => `"${c}"`).join(', ')} LIMIT ${ROWS}`
          : `SELECT * FROM "${model}"`,
      );
      expect(viaRead.length, model).toBe(viaPrisma.length);
      const byPrisma = viaPrisma.map(canonicalAnyOrder).sort();
      expect(viaRead.map(canonicalAnyOrder).sort(), model).toEqual(byPrisma);
      if (viaPrisma[0]) {
        const row = viaRead.find((r) => canonicalAnyOrder(r) === canonicalAnyOrder(viaPrisma[0]!))!;
        for (const [k, v] of Object.entries(viaPrisma[0])) expect(typeOf(row[k]), `${model}.${k}`).toBe(typeOf(v));
      }
      compared += viaPrisma.length;
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('binds dates, bigints and booleans as Prisma does, and is counted as a statement', async () => {
    const ratings = await db.prisma.rating.findMany({ orderBy: { createdAt: 'asc' } });
    const middle = ratings[Math.floor(ratings.length / 2)]!.createdAt;
    const trade = (await db.prisma.trade.findFirst({ orderBy: { sipTimestamp: 'desc' } }))!;
    const before = db.statementCount;
    const [dates, bigints, booleans] = await Promise.all([
      db.read<{ n: unknown }>('SELECT COUNT(*) AS "n" FROM "Rating" WHERE "createdAt" >= $1', [middle]),
      db.read<{ n: unknown }>('SELECT COUNT(*) AS "n" FROM "Trade" WHERE "sipTimestamp" >= $1', [trade.sipTimestamp]),
      db.read<{ n: unknown }>('SELECT COUNT(*) AS "n" FROM "Rating" WHERE "isRating" = $1', [true]),
    ]);
    expect(db.statementCount - before).toBe(3);
    expect(Number(dates[0]!.n)).toBe(await db.prisma.rating.count({ where: { createdAt: { gte: middle } } }));
    expect(Number(bigints[0]!.n)).toBe(
      await db.prisma.trade.count({ where: { sipTimestamp: { gte: trade.sipTimestamp } } }),
    );
    expect(Number(booleans[0]!.n)).toBe(await db.prisma.rating.count({ where: { isRating: true } }));
    expect(Number(dates[0]!.n)).toBeGreaterThan(0);
  });

  it('keeps one plan per prepared statement on its own connections, and leaves Prisma’s to plan per call', async () => {
    const [read] = await db.read<{ mode: string }>('SELECT current_setting($1) AS "mode"', ['plan_cache_mode']);
    expect(read?.mode).toBe('force_generic_plan');
    const [prisma] = await db.prisma.$queryRawUnsafe<{ mode: string }[]>(
      `SELECT current_setting('plan_cache_mode') AS "mode"`,
    );
    expect(prisma?.mode).toBe('auto');
  });

  it('pipelines concurrent reads on at most 4 connections; a failing statement fails only itself', async () => {
    const symbols = (
      await db.prisma.security.findMany({ select: { symbol: true }, orderBy: { id: 'asc' }, take: 40 })
    ).map((s) => s.symbol);
    const sql = 'SELECT "symbol" FROM "Security" WHERE "symbol" = $1 ORDER BY "id" LIMIT 1';
    const results = await Promise.allSettled([
      ...symbols.map((s) => db.read<{ symbol: string }>(sql, [s])),
      db.read('SELECT 1 / $1::int AS "x"', [0]), // division by zero, in the middle of the burst
      ...symbols.map((s) => db.read<{ symbol: string }>(sql, [s])),
    ]);
    const rows = results.map((r) => (r.status === 'fulfilled' ? r.value[0]?.symbol : 'failed'));
    expect(rows).toEqual([...symbols, 'failed', ...symbols]);
    expect(String((results[symbols.length] as PromiseRejectedResult).reason)).toMatch(/division by zero/);
    expect(db.driver.reads.totalCount).toBeGreaterThan(0);
    expect(db.driver.reads.totalCount).toBeLessThanOrEqual(4);
  });

  it('replaces a read connection the server dropped', async () => {
    const [me] = await db.read<{ pid: number }>('SELECT pg_backend_pid() AS "pid"');
    await db.prisma.$queryRawUnsafe('SELECT pg_terminate_backend($1::int)', me!.pid);
    let answered = false;
    for (let i = 0; i < 20 && !answered; i++) {
      try {
        const [row] = await db.read<{ pid: number }>('SELECT pg_backend_pid() AS "pid"');
        expect(row!.pid).not.toBe(me!.pid);
        answered = true;
      } catch (e) {
        expect(isDatabaseUnavailable(e), String(e)).toBe(true); // the dropped connection's own error, read as a 503
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(answered).toBe(true);
  });

  it('topPerKey gives each key the rows its own ORDER BY … LIMIT gives, in one statement', async () => {
    const symbols = [
      'NVLX',
      'NOPE',
      ...(await db.prisma.trade.findMany({ distinct: ['symbol'], select: { symbol: true }, take: 4 })).map(
        (t) => t.symbol,
      ),
    ];
    for (const after of [
      undefined,
      [(await db.prisma.trade.findFirst({ where: { symbol: 'NVLX' }, orderBy: { sipTimestamp: 'desc' }, skip: 7 }))!],
    ]) {
      const before = db.statementCount;
      const got = await topPerKey(db, {
        table: 'Trade',
        keyColumn: 'symbol',
        keys: symbols,
        orderColumns: ['sipTimestamp', 'sequenceNumber'],
        range: { direction: 'desc', after: after ? [after[0]!.sipTimestamp, after[0]!.sequenceNumber] : undefined },
        limit: 6,
      });
      expect(db.statementCount - before).toBe(1);
      for (const symbol of symbols) {
        const expected = await db.prisma.trade.findMany({
          where: {
            symbol,
            ...(after
              ? {
                  OR: [
                    { sipTimestamp: { lt: after[0]!.sipTimestamp } },
                    { sipTimestamp: after[0]!.sipTimestamp, sequenceNumber: { lt: after[0]!.sequenceNumber } },
                  ],
                }
              : {}),
          },
          orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
          take: 6,
        });
        expect(got.get(symbol)!.map(canonical), symbol).toEqual(expected.map(canonical));
      }
      expect(got.get('NVLX')).toHaveLength(6);
      expect(got.get('NOPE')).toEqual([]);
    }
  });

  it('security search gives the same pages by index range as by the LIKE fallback (a linguistic collation)', async () => {
    const like = Object.create(db, { codepointTextOrder: { value: async () => false } }) as Db;
    expect(await db.codepointTextOrder()).toBe(true); // the test databases have code-point collation
    const all = await db.prisma.security.findMany();
    let compared = 0;
    for (const type of Object.keys(SEARCH_TYPES) as SearchType[]) {
      const column = SEARCH_TYPES[type];
      const values = [
        ...new Set(all.map((s) => s[column]).filter((v): v is string => typeof v === 'string' && v.length > 0)),
      ].slice(0, 3);
      for (const prefix of [
        ...values.map((v) => v.slice(0, 1)),
        ...values.map((v) => v.slice(0, 3)),
        ...values,
        // a CIK without its leading zeros: one range (or LIKE) per length of CIK
        ...(type === 'identifiers.cik' ? values.map((v) => v.replace(/^0+/, '').slice(0, 2)) : []),
        'ZZZZ',
      ]) {
        const [a, b] = await Promise.all(
          [db, like].map((d) => securitySearchAtPage(d, { query: prefix, type }, { page: 1, pageSize: 7 })),
        );
        expect(
          a!.nodes.map((n) => n.id),
          `${type} ${prefix}`,
        ).toEqual(b!.nodes.map((n) => n.id));
        expect(a!.totalCount).toBe(b!.totalCount);
        const first = await securitySearchPage(db, { query: prefix, type }, { first: 2 });
        if (first.hasNextPage) {
          const [x, y] = await Promise.all(
            [db, like].map((d) =>
              securitySearchPage(d, { query: prefix, type }, { first: 3, after: first.cursorAt(1) }),
            ),
          );
          expect(x!.nodes.map((n) => n.id)).toEqual(y!.nodes.map((n) => n.id));
          expect(x!.nodes.map((n) => n.id)).toEqual(a!.nodes.slice(2, 5).map((n) => n.id));
        }
        compared += a!.totalCount;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
