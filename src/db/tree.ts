import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from './client.js';
import type { Shape } from './pg-combine.js';

/**
 * A tree of rows in one statement (PostgreSQL): a level's rows, and under each row the rows of each
 * child level that belong to it, as one `json_agg` of `json_build_array`s whose children are
 * correlated subqueries of the same form. graphql/plan/ reads a whole page this way.
 *
 * Every column travels as its text form and is parsed by the parser Db.read uses for its type
 * (learned once per table from `SELECT * … LIMIT 0`, see Db.shapeOf), so a row here equals the row
 * Db.read would return for the same columns: DateTime as Date, BigInt as bigint, Json parsed.
 * Each level's rows keep its statement's order: a subquery with ORDER BY is never flattened into the
 * aggregate above it, so json_agg receives them in that order and keeps it, as db/pg-combine.ts relies
 * on too (an ORDER BY in the aggregate cost a page of 100 child lists ~0.2 ms of server CPU).
 */
export interface TreeLevel {
  /** The table the level's rows come from (a code constant): its columns' types are the rows'. */
  table: string;
  /** The columns each row carries (code constants; the parent key columns of its children among them). */
  columns: readonly string[];
  /**
   * The statement of the rows: `SELECT` exactly `columns` of `table`, by those names, with its
   * conditions, ORDER BY and LIMIT. `parent` is the alias of the parent level's row (its columns
   * as `<parent>."<column>"`), undefined at the root.
   */
  select(parent: string | undefined): Prisma.Sql;
  children: readonly TreeLevel[];
}

export interface TreeRow {
  row: Record<string, unknown>;
  /** One list per child level, in the order of `children`. */
  children: TreeRow[][];
}

/** json_build_array takes at most 100 arguments (PostgreSQL's FUNC_MAX_ARGS). */
const MAX_ARGUMENTS = 100;

const quote = (name: string) => `"${name}"`;

function levelSql(level: TreeLevel, depth: number, parent: string | undefined): Prisma.Sql {
  if (level.columns.length + level.children.length > MAX_ARGUMENTS)
    throw new RangeError(`a tree level of ${level.columns.length} columns and ${level.children.length} children`);
  const alias = `t${depth}`;
  const values = level.columns.map((c) => Prisma.raw(`${alias}.${quote(c)}::text`));
  const children = level.children.map((child) => levelSql(child, depth + 1, alias));
  return Prisma.sql`(SELECT json_agg(json_build_array(${Prisma.join([...values, ...children])})) FROM (${level.select(parent)}) ${Prisma.raw(alias)})`;
}

/** Column parsers of a table, by column name. */
type Parsers = ReadonlyMap<string, (text: string) => unknown>;

/** By the shape Db.shapeOf keeps: made once per table, not per request. */
const parsersByShape = new WeakMap<Shape, Parsers>();

async function parsersOf(db: Db, table: string): Promise<Parsers> {
  const shape: Shape = await db.shapeOf(`SELECT * FROM ${quote(table)} LIMIT 0`);
  let parsers = parsersByShape.get(shape);
  if (!parsers) parsersByShape.set(shape, (parsers = new Map(shape.names.map((name, i) => [name, shape.parsers[i]!]))));
  return parsers;
}

interface Decoder {
  columns: readonly string[];
  parsers: readonly ((text: string) => unknown)[];
  children: readonly Decoder[];
}

async function decoderOf(db: Db, level: TreeLevel): Promise<Decoder> {
  const [parsers, children] = await Promise.all([
    parsersOf(db, level.table),
    Promise.all(level.children.map((c) => decoderOf(db, c))),
  ]);
  return {
    columns: level.columns,
    parsers: level.columns.map((c) => {
      const parse = parsers.get(c);
      if (!parse) throw new RangeError(`${level.table} has no column ${c}`);
      return parse;
    }),
    children,
  };
}

function decode(values: unknown[][] | null, d: Decoder): TreeRow[] {
  if (values === null) return [];
  return values.map((value) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < d.columns.length; i++) {
      const text = value[i] as string | null;
      row[d.columns[i]!] = text === null ? null : d.parsers[i]!(text);
    }
    const children = d.children.map((c, j) => decode(value[d.columns.length + j] as unknown[][] | null, c));
    return { row, children };
  });
}

/** `SELECT` of `columns` by their names, from `table` as `alias` if given. */
export function selectColumns(table: string, columns: readonly string[], alias?: string): Prisma.Sql {
  const of = alias ? `${alias}.` : '';
  return Prisma.raw(
    `SELECT ${columns.map((c) => `${of}${quote(c)}`).join(', ')} FROM ${quote(table)}${alias ? ` ${alias}` : ''}`,
  );
}

/** The rows of `root` with their children's, in one statement through Db.read. */
export function readTree(db: Db, root: TreeLevel): Promise<TreeRow[]> {
  return readLevel(db, root, decoderOf(db, root));
}

async function readLevel(db: Db, root: TreeLevel, decoder: Promise<Decoder>): Promise<TreeRow[]> {
  const statement = Prisma.sql`SELECT ${levelSql(root, 0, undefined)} AS "tree"`;
  const [d, rows] = await Promise.all([
    decoder,
    db.read<{ tree: unknown[][] | null }>(statement.text, statement.values),
  ]);
  return decode(rows[0]?.tree ?? null, d);
}

/** `table`'s columns in the order `SELECT *` answers them: a level carrying them all reads the rows `SELECT *` reads. */
export async function columnsOf(db: Db, table: string): Promise<string[]> {
  return [...(await parsersOf(db, table)).keys()];
}

/** The SQL types a parent key column may have in `readUnder` (a jsonb value is sent as its JSON text). */
export type KeyType = 'text' | 'jsonb';

/**
 * The rows of `level` under each of `parents` (rows holding at least the columns of `keys`), in one
 * statement whatever their number, its text the same for any number: the parents are a root level
 * of `unnest` (one array parameter per key column) WITH ORDINALITY, and `level` is correlated to
 * each of them as to a parent row of a tree, so it is the very level a planned page reads under
 * its parents' rows. A null key value is SQL NULL.
 */
export async function readUnder(
  db: Db,
  keys: Readonly<Record<string, KeyType>>,
  parents: readonly Record<string, unknown>[],
  level: TreeLevel,
): Promise<TreeRow[][]> {
  const names = Object.keys(keys);
  const arrays = names.map((name) => {
    const values = parents.map((p) => p[name] ?? null);
    const type = Prisma.raw(`${keys[name]}[]`);
    return Prisma.sql`${keys[name] === 'jsonb' ? values.map((v) => (v === null ? null : JSON.stringify(v))) : values}::${type}`;
  });
  const unnest = Prisma.sql`SELECT * FROM unnest(${Prisma.join(arrays)}) WITH ORDINALITY AS k(${Prisma.raw(
    [...names, 'ord'].map(quote).join(', '),
  )}) ORDER BY "ord"`;
  // the parents' level carries no column of its own: only the rows of `level` under each
  const root: TreeLevel = { table: level.table, columns: [], select: () => unnest, children: [level] };
  const decoder = decoderOf(db, level).then((d): Decoder => ({ columns: [], parsers: [], children: [d] }));
  return (await readLevel(db, root, decoder)).map((parent) => parent.children[0]!);
}
