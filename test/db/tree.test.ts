import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { readTree, selectColumns, type TreeLevel } from '../../src/db/tree.js';
import { Prisma } from '../../generated/prisma/client.js';
import { testConfig, testDatabases } from '../helpers.js';
import { canonical } from './rows.js';

// A page planned by graphql/plan/ is read as one tree of rows (db/tree.ts); its rows must be the
// rows Db.read gives for the same statement, value and type, or a planned answer would differ from
// the resolvers' (test/graphql/plan.test.ts compares whole answers).

/** Leading columns that order a table's rows totally: its first two, or its whole key where that is longer. */
const ORDER_COLUMNS: Readonly<Record<string, number>> = {};
const orderColumns = (table: string) => ORDER_COLUMNS[table] ?? 2;

/** `table`'s first rows by its leading columns, every column carried. */
function wholeTable(table: string, columns: readonly string[], limit: number, children: TreeLevel[] = []): TreeLevel {
  const order = columns.slice(0, orderColumns(table));
  return {
    table,
    columns,
    select: () =>
      Prisma.sql`${selectColumns(table, columns)} ORDER BY ${Prisma.raw(order.map((c) => `"${c}"`).join(', '))} LIMIT ${limit}`,
    children,
  };
}

describe.each(testDatabases())('rows read as a tree on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(testConfig(await tdb.createSeeded(), { sampleData: 'auto' }));
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  it('gives every model’s rows as Db.read gives them: values, types, order', async () => {
    let compared = 0;
    for (const model of Object.values(Prisma.ModelName)) {
      const order = Array.from({ length: orderColumns(model) }, (_, i) => i + 1).join(', ');
      const alone = await db.read(`SELECT * FROM "${model}" ORDER BY ${order} LIMIT 300`);
      if (alone.length === 0) continue;
      const columns = Object.keys(alone[0]!);
      const tree = await readTree(db, wholeTable(model, columns, 300));
      expect(
        tree.map((t) => canonical(t.row)),
        model,
      ).toEqual(alone.map(canonical));
      compared += alone.length;
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('puts each child level’s rows under their parent, in the level’s order, with its own limit, in one statement', async () => {
    const ratings: TreeLevel = {
      table: 'Rating',
      columns: ['id', 'ticker', 'createdAt'],
      select: (parent) =>
        Prisma.sql`${selectColumns('Rating', ['id', 'ticker', 'createdAt'])} WHERE "ticker" = ${Prisma.raw(`${parent}."symbol"`)} ORDER BY "createdAt" DESC, "id" DESC LIMIT 3`,
      children: [],
    };
    const securities = wholeTable('Security', ['id', 'symbol'], 20, [ratings]);
    const before = db.statementCount;
    const tree = await readTree(db.forRequest(), securities);
    expect(db.statementCount - before).toBe(1);
    expect(tree).toHaveLength(20);
    let withChildren = 0;
    for (const { row, children } of tree) {
      const expected = await db.read(
        `SELECT "id", "ticker", "createdAt" FROM "Rating" WHERE "ticker" = $1 ORDER BY "createdAt" DESC, "id" DESC LIMIT 3`,
        [row.symbol],
      );
      expect(
        children[0]!.map((c) => canonical(c.row)),
        String(row.symbol),
      ).toEqual(expected.map(canonical));
      if (expected.length) withChildren++;
    }
    expect(withChildren).toBeGreaterThan(5);
  });

  it('refuses a column its table does not have', async () => {
    await expect(readTree(db, wholeTable('Security', ['id', 'symbol', 'nope'], 1))).rejects.toThrow();
  });
});
