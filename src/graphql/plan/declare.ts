// What a schema field tells the planner (graphql/plan/compile.ts) about how it resolves, in its
// `extensions.plan`. A field the planner may answer without its resolver either reads a column of
// its parent's row (Pothos `expose*`, found without a declaration) or declares one of these. Each
// helper below gives a field's options whole, `{ resolve, extensions }`, so a field is one
// expression: the resolver is made from the same declaration as the plan (sameRow, computed,
// children, firstOf, one, many, rootOne: the same level read for the resolver's batch), or, for a
// root connection whose answer carries more than its level (`root`), given beside it in the same
// call (test/graphql/plan.test.ts compares the two answers byte for byte).
import type { Context } from '../../context.js';
import type { Db } from '../../db/client.js';
import { keyedLevel, type Direction, type KeyedList, type KeysetArgs, type Ordering } from '../../db/keyset.js';
import type { KeyType, TreeLevel } from '../../db/tree.js';
import { levelRows, levelRowsUnder } from '../../services/levels.js';
import { connection } from '../connection.js';
import { keyedPage, loaderName } from '../loaders.js';

type Row = Record<string, unknown>;
type Args = Record<string, unknown>;

/** An object field resolving to its parent's own row (a group of the row's columns). */
export interface SameRowPlan {
  kind: 'sameRow';
}

/**
 * A value computed from some columns of the parent's row, and nothing else: a leaf, or an object
 * whose own fields read its properties (Pothos `expose*`).
 */
export interface ComputedPlan {
  kind: 'computed';
  columns: readonly string[];
  value(row: never): unknown;
}

/** A connection of the rows of a keyed list whose key is a column of the parent's row. */
export interface ChildrenPlan {
  kind: 'children';
  parentColumn: string;
  /** The list and page for the field's arguments (coerced); throws as the resolver would on bad ones. */
  list(args: Args): { list: KeyedList<any>; args: KeysetArgs };
}

/** A root connection whose rows are the root level of the page's tree. */
export interface RootPlan {
  kind: 'root';
  /** Its level for the field's arguments, with `columns` and `children`; undefined when the page is empty without reading. */
  level(
    db: Db,
    args: Args,
    columns: readonly string[],
    children: readonly TreeLevel[],
  ): Promise<{ level: TreeLevel; ordering: Ordering<any>; direction: Direction; page: KeysetArgs } | undefined>;
}

/**
 * An object field answering the first row (or null) of a level correlated to the parent's row
 * (`one`), or a list field answering all its rows, in its order (`many`).
 */
export interface OnePlan {
  kind: 'one' | 'many';
  /** The parent's columns the level refers to. */
  parentColumns: readonly string[];
  /** The level for the field's arguments (coerced), carrying `columns` and `children`; throws as the resolver would on bad ones. */
  level(args: Args, columns: readonly string[], children: readonly TreeLevel[]): TreeLevel;
}

/** A root field answering one row or null: the first row of its level. */
export interface RootOnePlan {
  kind: 'rootOne';
  /** Its level for the field's arguments; undefined when the planner cannot read it (graphql-js answers). */
  level(db: Db, args: Args, columns: readonly string[], children: readonly TreeLevel[]): TreeLevel | undefined;
}

export type FieldPlan = SameRowPlan | ComputedPlan | ChildrenPlan | RootPlan | OnePlan | RootOnePlan;

/** The field options of an object field over its parent's own row. */
export const sameRow = <Parent>() => ({
  resolve: (parent: Parent) => parent,
  extensions: { plan: { kind: 'sameRow' } satisfies SameRowPlan },
});

/** The field options of a leaf computed from `columns` of the parent's row by `value`. */
export function computed<Parent, Value>(columns: readonly (keyof Parent & string)[], value: (row: Parent) => Value) {
  return {
    resolve: value,
    extensions: { plan: { kind: 'computed', columns, value: value as (row: never) => unknown } satisfies ComputedPlan },
  };
}

/**
 * The field options of a connection over a keyed list whose key is the parent's `parentColumn`
 * (see ChildrenPlan): the planner reads `list(args)` as a level of the page's tree, the resolver
 * reads the same list and page for a batch of parents through one loader (graphql/loaders.ts).
 */
export function children<Parent, A>(
  parentColumn: keyof Parent & string,
  list: (args: A) => { list: KeyedList<any>; args: KeysetArgs },
) {
  return {
    resolve: async (parent: Parent, args: A, ctx: Context) => {
      const chosen = list(args);
      return connection(await keyedPage(ctx, chosen.list, chosen.args, parent[parentColumn] as string));
    },
    extensions: { plan: { kind: 'children', parentColumn, list: list as ChildrenPlan['list'] } satisfies ChildrenPlan },
  };
}

/**
 * The field options of an object field over the first row (or null) of the keyed list `list(args)`
 * whose key is the parent's `parentColumn` (see OnePlan): its level for the planner, and for the
 * resolver a one-row page of the same list, batched as `children` batches.
 */
export function firstOf<Parent, A, Row>(parentColumn: keyof Parent & string, list: (args: A) => KeyedList<Row>) {
  const page: KeysetArgs = { first: 1 };
  return {
    resolve: async (parent: Parent, args: A, ctx: Context): Promise<Row | null> =>
      (await keyedPage(ctx, list(args), page, parent[parentColumn] as string)).nodes[0] ?? null,
    extensions: {
      plan: {
        kind: 'one',
        parentColumns: [parentColumn],
        level: (args, columns, children) => keyedLevel(list(args as A), page, parentColumn, columns, children),
      } satisfies OnePlan,
    },
  };
}

type Resolver<Parent, A, Value> = (parent: Parent, args: A, ctx: Context) => Value;

type LevelOf<A> = (args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel;

/** Tells the loaders of two declared levels apart (their names are per declaration). */
let declaredLevels = 0;

/**
 * The rows of `level` under a parent, read for every parent of the request asked with the same
 * arguments in one statement (services/levels.ts), through one per-request loader per declaration
 * and arguments. The level is made first in the resolver itself, so bad arguments fail the field
 * as they would fail the planner's level.
 */
function rowsUnder<Parent, A>(keys: Readonly<Record<string, KeyType>>, level: LevelOf<A>) {
  const name = `level${++declaredLevels}`;
  const names = Object.keys(keys);
  return (parent: Parent, args: A, ctx: Context): Promise<Row[]> => {
    level(args, [], []);
    return ctx.loaders
      .get(
        loaderName(name, args),
        (parents: readonly Row[]) => levelRowsUnder(ctx.db, keys, parents, (columns) => level(args, columns, [])),
        { cacheKeyFn: (p: Row) => JSON.stringify(names.map((n) => p[n] ?? null)) },
      )
      .load(parent as Row);
  };
}

/**
 * The field options of an object field over the first row (or null) of a correlated level that no
 * keyed list describes (see OnePlan), keyed by the parent's columns `keys` (with their SQL types):
 * the planner reads the level under the page's rows, the resolver under a batch of parents
 * (`rowsUnder`). `Value` is the type of the level's rows (every column of its table).
 */
export function one<Parent, A, Value>(keys: Readonly<Record<string, KeyType>>, level: LevelOf<A>) {
  const rows = rowsUnder<Parent, A>(keys, level);
  return {
    resolve: async (parent: Parent, args: A, ctx: Context): Promise<Value | null> =>
      ((await rows(parent, args, ctx))[0] as Value | undefined) ?? null,
    extensions: {
      plan: { kind: 'one', parentColumns: Object.keys(keys), level: level as OnePlan['level'] } satisfies OnePlan,
    },
  };
}

/** The field options of a list field over every row of a correlated level (see OnePlan), as `one`. */
export function many<Parent, A, Value>(keys: Readonly<Record<string, KeyType>>, level: LevelOf<A>) {
  const rows = rowsUnder<Parent, A>(keys, level);
  return {
    resolve: async (parent: Parent, args: A, ctx: Context): Promise<Value[]> =>
      (await rows(parent, args, ctx)) as Value[],
    extensions: {
      plan: { kind: 'many', parentColumns: Object.keys(keys), level: level as OnePlan['level'] } satisfies OnePlan,
    },
  };
}

/**
 * The field options of a root field answering one row or null (see RootOnePlan): the first row of
 * its level, read by the resolver as by the planner; where the level is undefined (arguments it
 * does not describe), `fallback` answers.
 */
export function rootOne<A, Value>(
  level: (db: Db, args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel | undefined,
  fallback: Resolver<unknown, A, Promise<Value | null>>,
) {
  return {
    resolve: async (root: unknown, args: A, ctx: Context): Promise<Value | null> => {
      const rows = await levelRows(ctx.db, (columns) => level(ctx.db, args, columns, []));
      return rows ? ((rows[0] as Value | undefined) ?? null) : fallback(root, args, ctx);
    },
    extensions: { plan: { kind: 'rootOne', level: level as RootOnePlan['level'] } satisfies RootOnePlan },
  };
}

/**
 * The field options of a root connection (see RootPlan), and its resolver. Not derived from the
 * level: the resolver's connection also answers what no level describes (`securities`: its lazy
 * `totalCount` and facets), and a ranked search has no level at all.
 */
export function root<A, Value>(
  level: (db: Db, args: A, columns: readonly string[], children: readonly TreeLevel[]) => ReturnType<RootPlan['level']>,
  resolve: Resolver<unknown, A, Value>,
) {
  return { resolve, extensions: { plan: { kind: 'root', level: level as RootPlan['level'] } satisfies RootPlan } };
}

export function planOf(extensions: Readonly<Record<string, unknown>> | null | undefined): FieldPlan | undefined {
  return (extensions as { plan?: FieldPlan } | undefined)?.plan;
}

export type { Row };
