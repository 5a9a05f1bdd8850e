// The reader of the levels that schema fields declare (graphql/plan/declare.ts) when their resolvers
// answer, not the planner: the rows of the same level, with every column of its table, so a row
// equals the one `SELECT *` through Db.read gives (db/tree.ts decodes as Db.read does).
import type { Db } from '../db/client.js';
import { columnsOf, readTree, readUnder, type KeyType, type TreeLevel } from '../db/tree.js';

type Row = Record<string, unknown>;

/** The level `level` makes for `columns`, carrying every column of its table. */
async function wholeRows<L extends TreeLevel | undefined>(
  db: Db,
  level: (columns: readonly string[]) => L,
): Promise<L> {
  // a level's table does not depend on its columns: asked once without, then with all of them
  const table = level([])?.table;
  return table === undefined ? level([]) : level(await columnsOf(db, table));
}

/** The rows of the root level `level` (undefined when it makes none), in one statement. */
export async function levelRows(
  db: Db,
  level: (columns: readonly string[]) => TreeLevel | undefined,
): Promise<Row[] | undefined> {
  const whole = await wholeRows(db, level);
  return whole && (await readTree(db, whole)).map((r) => r.row);
}

/** The rows of `level` under each of `parents` (by the key columns `keys`), in one statement (readUnder). */
export async function levelRowsUnder(
  db: Db,
  keys: Readonly<Record<string, KeyType>>,
  parents: readonly Row[],
  level: (columns: readonly string[]) => TreeLevel,
): Promise<Row[][]> {
  const trees = await readUnder(db, keys, parents, await wholeRows(db, level));
  return trees.map((rows) => rows.map((r) => r.row));
}
