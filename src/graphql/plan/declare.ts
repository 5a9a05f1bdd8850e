// What a schema field tells the planner (graphql/plan/compile.ts) about how it resolves, in its
// `extensions.plan`. A field the planner may answer without its resolver either reads a column of
// its parent's row (Pothos `expose*`, found without a declaration) or declares one of these; the
// declaration and the resolver share their functions, so the two answers agree by construction
// (test/graphql/plan.test.ts compares them byte for byte).
import type { Db } from '../../db/client.js';
import type { Direction, KeyedList, KeysetArgs, Ordering } from '../../db/keyset.js';
import type { TreeLevel } from '../../db/tree.js';

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
  level(db: Db, args: Args, columns: readonly string[], children: readonly TreeLevel[]): Promise<{ level: TreeLevel; ordering: Ordering<any>; direction: Direction; first: number } | undefined>;
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
export const sameRow = <Parent>() => ({ resolve: (parent: Parent) => parent, extensions: { plan: { kind: 'sameRow' } satisfies SameRowPlan } });

/** The field options of a leaf computed from `columns` of the parent's row by `value`. */
export function computed<Parent, Value>(columns: readonly (keyof Parent & string)[], value: (row: Parent) => Value) {
  return { resolve: value, extensions: { plan: { kind: 'computed', columns, value: value as (row: never) => unknown } satisfies ComputedPlan } };
}

/** The extensions of a connection over a keyed list (see ChildrenPlan). */
export function children<A>(parentColumn: string, list: (args: A) => { list: KeyedList<any>; args: KeysetArgs }) {
  return { plan: { kind: 'children', parentColumn, list: list as ChildrenPlan['list'] } satisfies ChildrenPlan };
}

/** The extensions of an object field over one row of a correlated level (see OnePlan). */
export function one<A>(parentColumns: readonly string[], level: (args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel) {
  return { plan: { kind: 'one', parentColumns, level: level as OnePlan['level'] } satisfies OnePlan };
}

/** The extensions of a list field over every row of a correlated level (see OnePlan). */
export function many<A>(parentColumns: readonly string[], level: (args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel) {
  return { plan: { kind: 'many', parentColumns, level: level as OnePlan['level'] } satisfies OnePlan };
}

/** The extensions of a root field answering one row or null (see RootOnePlan). */
export function rootOne<A>(level: (db: Db, args: A, columns: readonly string[], children: readonly TreeLevel[]) => TreeLevel | undefined) {
  return { plan: { kind: 'rootOne', level: level as RootOnePlan['level'] } satisfies RootOnePlan };
}

/** The extensions of a root connection (see RootPlan). */
export function root<A>(level: (db: Db, args: A, columns: readonly string[], children: readonly TreeLevel[]) => ReturnType<RootPlan['level']>) {
  return { plan: { kind: 'root', level: level as RootPlan['level'] } satisfies RootPlan };
}

export function planOf(extensions: Readonly<Record<string, unknown>> | null | undefined): FieldPlan | undefined {
  return (extensions as { plan?: FieldPlan } | undefined)?.plan;
}

export type { Row };
