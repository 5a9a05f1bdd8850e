// What a schema field tells the planner (graphql/plan/compile.ts) about how it resolves, in its
// `extensions.plan`. A field the planner may answer without its resolver either reads a column of
// its parent's row (Pothos `expose*`, found without a declaration) or declares one of these. Each
// helper below gives a field's options whole, `{ resolve, extensions }`, so a field is one
// expression: the resolver is made from the same declaration as the plan (sameRow, computed,
// children, firstOf), or, where no keyed list describes the level, given beside it in the same call
// (test/graphql/plan.test.ts compares the two answers byte for byte).
import type { Context } from '../../context.js';
import type { Db } from '../../db/client.js';
import { keyedLevel, type Direction, type KeyedList, type KeysetArgs, type Ordering } from '../../db/keyset.js';
import type { TreeLevel } from '../../db/tree.js';
import { connection } from '../connection.js';
import { keyedPage } from '../loaders.js';

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
  ): Promise<{ level: TreeLevel; ordering: Ordering<any>; direction: Direction; first: number } | undefined>;
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

/**
 * The field options of an object field over one row of a correlated level (see OnePlan) that no
 * keyed list describes: its level, and the resolver that answers the same row.
 */
export function one<Parent, A, Value>(
  parentColumns: readonly string[],
  level: (args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel,
  resolve: Resolver<Parent, A, Value>,
) {
  return {
    resolve,
    extensions: { plan: { kind: 'one', parentColumns, level: level as OnePlan['level'] } satisfies OnePlan },
  };
}

/** The field options of a list field over every row of a correlated level (see OnePlan), and its resolver. */
export function many<Parent, A, Value>(
  parentColumns: readonly string[],
  level: (args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel,
  resolve: Resolver<Parent, A, Value>,
) {
  return {
    resolve,
    extensions: { plan: { kind: 'many', parentColumns, level: level as OnePlan['level'] } satisfies OnePlan },
  };
}

/** The field options of a root field answering one row or null (see RootOnePlan), and its resolver. */
export function rootOne<A, Value>(
  level: (db: Db, args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel | undefined,
  resolve: Resolver<unknown, A, Value>,
) {
  return {
    resolve,
    extensions: { plan: { kind: 'rootOne', level: level as RootOnePlan['level'] } satisfies RootOnePlan },
  };
}

/** The field options of a root connection (see RootPlan), and its resolver. */
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
