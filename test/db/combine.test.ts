import pg, { type QueryConfig } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import { readQueue, type Db } from '../../src/db/client.js';
import { pgReader, type QueuedRead } from '../../src/db/pg-read.js';
import { Prisma } from '../../generated/prisma/client.js';
import { testConfig, testDatabases } from '../helpers.js';
import { canonical, typeOf } from './rows.js';

// A request's Db (Db.forRequest) sends the reads of one turn of the event loop as one statement
// on PostgreSQL (db/pg-combine.ts); its rows must be the rows each statement gives alone, value,
// type and key order, or every answer built on them would change underneath.
const typesOf = (row: Record<string, unknown>) => Object.entries(row).map(([k, v]) => `${k}:${typeOf(v)}`);

describe.each(testDatabases())('a request’s reads on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(testConfig(await tdb.createSeeded(), { sampleData: 'auto' }));
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  /** Statements sent while `fn` ran. */
  const counted = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const before = db.statementCount;
    const value = await fn();
    return [value, db.statementCount - before];
  };

  it('gives each model’s rows, in one statement, exactly as each statement alone gives them', async () => {
    const models = Object.values(Prisma.ModelName);
    // ordered by their first columns, so each statement has one order whatever its plan; the first
    // 2,000 rows (the sample's tick, bar and event tables hold hundreds of thousands, no more kinds of value)
    const statements = models.map((m) => `SELECT * FROM "${m}" ORDER BY 1, 2 LIMIT 2000`);
    const alone = await Promise.all(statements.map((sql) => db.read(sql))); // also teaches the columns
    const withRows = statements.filter((_, i) => alone[i]!.length > 0);
    expect(withRows.length).toBeGreaterThan(15);
    const request = db.forRequest();
    const [together, sent] = await counted(() => Promise.all(statements.map((sql) => request.read(sql))));
    expect(sent).toBe(1);
    let compared = 0;
    statements.forEach((sql, i) => {
      expect(together[i]!.map(canonical), sql).toEqual(alone[i]!.map(canonical)); // key order too
      expect(together[i]!.map(typesOf), sql).toEqual(alone[i]!.map(typesOf));
      compared += alone[i]!.length;
    });
    expect(compared).toBeGreaterThan(1000);
    // what the sample holds of the hard cases: 64-bit integers past 2^53, JSON, floats, booleans, nulls
    const all = together.flat().flatMap((row) => Object.values(row));
    expect(all.some((v) => typeof v === 'bigint' && v > 2n ** 53n)).toBe(true);
    expect(all.some((v) => v !== null && typeof v === 'object' && !(v instanceof Date))).toBe(true);
    expect(all.some((v) => typeof v === 'number' && !Number.isInteger(v))).toBe(true);
    expect(all.filter((v) => typeof v === 'boolean')).toEqual(expect.arrayContaining([true, false]));
    expect(all).toContain(null);
  });

  it('keeps each value of every kind, null and unicode text as the statement alone does', async () => {
    const sql = `SELECT 9007199254740993::int8 AS "big", (-9223372036854775808)::int8 AS "min", '2026-01-02 03:04:05.678'::timestamp(3) AS "at",
      '{"a": [1, "é"], "b": null}'::jsonb AS "doc", '[1.5, true]'::json AS "raw", 0.1::float8 AS "tenth", 1e300::float8 AS "huge",
      'NaN'::float8 AS "nan", true AS "yes", false AS "no", NULL::text AS "none", $1::text AS "text", 2147483647 AS "int",
      ARRAY['a', NULL, 'c,d']::text[] AS "list", 12.50::numeric AS "exact", $2::timestamp(3) AS "param"`;
    const params = ['héllo "wörld" ✓ 𝄞 \\ \n\t', new Date('2025-06-30T23:59:59.999Z')];
    const one = 'SELECT 1 AS "one"';
    const [alone] = await db.read(sql, params);
    await db.read(one);
    const request = db.forRequest();
    const [[[together], [other]], sent] = await counted(() =>
      Promise.all([request.read(sql, params), request.read(one)]),
    );
    expect(sent).toBe(1);
    expect(canonical(together)).toBe(canonical(alone));
    expect(typesOf(together!)).toEqual(typesOf(alone!));
    expect(alone).toMatchObject({
      big: 9007199254740993n,
      min: -(2n ** 63n),
      at: new Date('2026-01-02T03:04:05.678Z'),
      text: params[0],
      param: params[1],
      yes: true,
      no: false,
      none: null,
    });
    expect(Number.isNaN(together!.nan)).toBe(true);
    expect(other).toEqual({ one: 1 });
  });

  it('runs a statement alone until it has taught its columns, then together', async () => {
    const a = `SELECT "symbol" FROM "Security" WHERE "symbol" = $1 /* taught ${Date.now()} */`;
    const b = `SELECT COUNT(*) AS "n" FROM "Rating" WHERE "ticker" = $1 /* taught ${Date.now()} */`;
    const both = (request: Db) => Promise.all([request.read(a, ['NVLX']), request.read(b, ['NVLX'])]);
    const [first, sentFirst] = await counted(() => both(db.forRequest()));
    const [second, sentSecond] = await counted(() => both(db.forRequest()));
    expect([sentFirst, sentSecond]).toEqual([2, 1]);
    expect(second).toEqual(first);
    expect(first[0]).toEqual([{ symbol: 'NVLX' }]);
  });

  it('keeps each statement’s row order, and the parameters of each statement its own', async () => {
    const trades = 'SELECT "tradeId", "price" FROM "Trade" ORDER BY "price" DESC, "tradeId" LIMIT $1';
    const ratings = 'SELECT "id" FROM "Rating" WHERE "ticker" = $1 ORDER BY "createdAt" ASC, "id" DESC';
    const series = 'SELECT g AS "g" FROM generate_series(1, $1::int) g ORDER BY g % 7, g DESC';
    const calls: [string, unknown[]][] = [
      [trades, [3000]],
      [ratings, ['NVLX']],
      [series, [5000]],
      [ratings, ['ACME']],
      [series, [10]],
      [trades, [1]],
    ];
    const alone = await Promise.all(calls.map(([sql, params]) => db.read(sql, params)));
    const request = db.forRequest();
    const [together, sent] = await counted(() => Promise.all(calls.map(([sql, params]) => request.read(sql, params))));
    expect(sent).toBe(1);
    expect(together).toEqual(alone);
    expect(together.map((rows) => rows.length)).toEqual([3000, alone[1]!.length, 5000, alone[3]!.length, 10, 1]);
    expect(alone[1]!.length).toBeGreaterThan(1);
    expect(alone[1]).not.toEqual(alone[3]);
  });

  it('a failing statement rejects every read sent with it, with its own error; the next turn reads again; each fallback is told', async () => {
    const divide = 'SELECT 10 / $1::int AS "x"';
    const fine = 'SELECT "symbol" FROM "Security" ORDER BY "id" LIMIT $1';
    expect(await db.read(divide, [2])).toEqual([{ x: 5 }]);
    await db.read(fine, [1]);
    const told: string[] = [];
    const request = db.forRequest((reason) => told.push(reason));
    const [results, sent] = await counted(() =>
      Promise.allSettled([request.read(fine, [2]), request.read(divide, [0]), request.read(fine, [3])]),
    );
    expect(sent).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/division by zero/);
    expect(told).toEqual(['error']);
    // the same request's next turn: the statements run alone once more, then together again
    const again = await Promise.all([request.read(fine, [2]), request.read(divide, [5])]);
    expect(again[0]).toHaveLength(2);
    expect(again[1]).toEqual([{ x: 2 }]);
    expect(told).toEqual(['error', 'unlearned', 'unlearned']);
    const [, sentAfter] = await counted(() => Promise.all([request.read(fine, [2]), request.read(divide, [5])]));
    expect(sentAfter).toBe(1);
    expect(told).toHaveLength(3);
  });
});

it('prepares the first combined texts and plans any further one unnamed: a connection keeps every statement it prepared', async () => {
  const sent: QueryConfig[] = [];
  const reader = pgReader(
    async (config) => {
      sent.push(config);
      if (!config.text.startsWith('SELECT (SELECT'))
        return { rows: [{ v: 1 }], fields: [{ name: 'v', dataTypeID: 23 }] };
      return { rows: [{ r0: [['1']], r1: [['2']] }], fields: [] };
    },
    pg.types,
    3,
  );
  const [a, b, c] = ['SELECT 1 AS "v"', 'SELECT 2 AS "v"', 'SELECT 3 AS "v"'];
  for (const sql of [a, b, c]) await reader.read(sql, []);
  const together = async (x: string, y: string) => {
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const got: unknown[] = [];
      const read = (sql: string): QueuedRead => ({
        sql,
        params: [],
        resolve: (r) => got.push(r) === 2 && resolve(got),
        reject,
      });
      reader.readTogether([read(x), read(y)], () => {});
    });
    expect(rows).toEqual([[{ v: 1 }], [{ v: 2 }]]); // the fake's answer, as decoded
    return sent.at(-1)!.name;
  };
  const names = [
    await together(a, b),
    await together(a, c),
    await together(b, c),
    await together(b, a),
    await together(a, b),
  ];
  expect(names.map((n) => typeof n)).toEqual(['string', 'string', 'string', 'undefined', 'string']);
  expect(names[4]).toBe(names[0]);
  expect(sent.filter((q) => q.text.startsWith('SELECT (SELECT'))).toHaveLength(5);
});

it('a queue whose sending throws fails the reads it held, and nothing else', async () => {
  const sent: number[] = [];
  let fail = true;
  const read = readQueue((batch) => {
    sent.push(batch.length);
    if (fail) throw new Error('could not build the statement');
    for (const r of batch) r.resolve([{ sql: r.sql }]);
  });
  const held = [read('SELECT 1'), read('SELECT 2')];
  for (const p of held) await expect(p).rejects.toThrow('could not build the statement');
  fail = false;
  expect(await read('SELECT 3')).toEqual([{ sql: 'SELECT 3' }]);
  expect(sent).toEqual([2, 1]);
});
