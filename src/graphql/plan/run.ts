// A plan (graphql/plan/compile.ts) run: its arguments coerced as graphql-js coerces them, its rows
// read as one tree (db/tree.ts), and the answer built from them as the resolvers would build it:
// the same connection objects (graphql/connection.ts), the same leaf values, serialized by the
// same types. Anything that would make graphql-js answer with an error (a bad argument, a null
// where the type forbids one, a caller without the entitlement) answers why instead, and graphql-js
// runs the query to say so in its own words; anything unexpected answers `error` with what was thrown.
import { getArgumentValues, getVariableValues, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { checkEntitled } from '../../domain/entitlements.js';
import type { Context } from '../../context.js';
import { keyedLevel, pageRows, toPage, type Direction, type KeysetArgs, type Ordering } from '../../db/keyset.js';
import { readTree, type TreeLevel, type TreeRow } from '../../db/tree.js';
import { AppError } from '../../errors.js';
import type { FallbackReason } from '../../observability/fallbacks.js';
import { every } from '../../runtime/deadline.js';
import { connection } from '../connection.js';
import type {
  ConnectionField,
  ConnectionPart,
  LevelTemplate,
  ObjectTemplate,
  OneField,
  PlanTemplate,
} from './compile.js';
import type { Row } from './declare.js';

/** Why graphql-js answers instead of the plan (observability/fallbacks.ts); `err`: what was thrown, when nothing expected it. */
export interface NotAnswered {
  fallback: FallbackReason<'planner'>;
  err?: unknown;
}

/** Thrown where graphql-js would answer with an error, or answer what the plan does not: the query goes to graphql-js. */
class NotPlanned extends Error {
  constructor(readonly reason: 'not_plannable' | 'arguments' | 'answer') {
    super(reason);
  }
}

/** An argument refused as the resolver would refuse it: by graphql-js's coercion, or a service's check. */
const isRefusal = (e: unknown) => e instanceof GraphQLError || (e instanceof AppError && e.code === 'BAD_REQUEST');

/** A refusal as NotPlanned; anything else is rethrown as it is. */
function refused(e: unknown): NotPlanned {
  if (isRefusal(e)) return new NotPlanned('arguments');
  throw e;
}

/** How one level's rows become a connection's page (a single object's level has no page). */
interface Paging {
  page?: { args: KeysetArgs; ordering: Ordering<never>; direction: Direction };
  /** The same for each of its child levels, by index. */
  children: Paging[];
}

type Variables = Record<string, unknown>;

/** Called for each object of the answer: checks the request's deadline every so often. */
type Tick = () => void;

/** Objects of an answer built between two checks of the deadline. */
const OBJECTS_PER_CHECK = 256;

/** Whether a list of fields names `__proto__` (a response key may be any name), by list: known once per template. */
const namesProto = new WeakMap<readonly { key: string }[], boolean>();

/**
 * An object of the answer for `fields`: a plain object, whose shape V8 shares between the objects
 * of one template and JSON.stringify writes fast (~35% faster than objects without a prototype, in
 * a micro-benchmark of a list page's tree; 16% fewer bytes allocated a list page: bench/RESULTS.md
 * "Issue 26: dates written once, and the answer's objects"); without a
 * prototype where a key is `__proto__`, which on a plain object would set the prototype instead of
 * a key (test/graphql/plan.test.ts asks for it).
 */
function record(fields: readonly { key: string }[]): Record<string, unknown> {
  let proto = namesProto.get(fields);
  if (proto === undefined) namesProto.set(fields, (proto = fields.some((f) => f.key === '__proto__')));
  return proto ? (Object.create(null) as Record<string, unknown>) : {};
}

/** The answer of `template` for `args`, or why graphql-js must answer. */
export async function runPlan(template: PlanTemplate, args: ExecutionArgs): Promise<ExecutionResult | NotAnswered> {
  const ctx = args.contextValue as Context;
  try {
    for (const resource of template.resources) checkEntitled(ctx.caller, resource);
  } catch (e) {
    return e instanceof AppError ? { fallback: 'entitlement' } : { fallback: 'error', err: e };
  }
  const coerced = getVariableValues(
    args.schema,
    template.operation.variableDefinitions ?? [],
    args.variableValues ?? {},
  );
  if (coerced.errors) return { fallback: 'arguments' };
  try {
    ctx.deadline.check('plan');
    const tick = every(OBJECTS_PER_CHECK, () => ctx.deadline.check('answer'));
    const data = record(template.roots);
    const answers = await Promise.all(
      template.roots.map((root) =>
        root.kind === 'typename'
          ? root.name
          : root.kind === 'one'
            ? rootOneAnswer(root, ctx, coerced.coerced, tick)
            : rootAnswer(root, ctx, coerced.coerced, tick),
      ),
    );
    template.roots.forEach((root, i) => (data[root.key] = answers[i]));
    return { data };
  } catch (e) {
    // graphql-js runs the query either way, and its resolvers answer (or fail) in their own way;
    // a failed read or a fault of the plan is no expected fallback: it is told, with what was thrown
    if (e instanceof NotPlanned) return { fallback: e.reason };
    if (e instanceof AppError && e.code === 'TIMEOUT') throw e;
    return isRefusal(e) ? { fallback: 'arguments' } : { fallback: 'error', err: e };
  }
}

async function rootAnswer(
  root: Extract<PlanTemplate['roots'][number], { kind: 'connection' }>,
  ctx: Context,
  variables: Variables,
  tick: Tick,
): Promise<unknown> {
  const children = childLevels(root.level, variables);
  const args = argumentsOf(root, variables);
  const found = await root.plan.level(
    ctx.db,
    args,
    [...root.level.columns],
    children.map((c) => c.level),
  );
  // arguments the root's plan leaves to its resolver (a ranked search)
  if (!found) throw new NotPlanned('not_plannable');
  const rows = await readTree(ctx.db, found.level);
  const paging: Paging = {
    page: { args: found.page, ordering: found.ordering, direction: found.direction },
    children: children.map((c) => c.paging),
  };
  return connectionAnswer(root, rows, paging, tick);
}

async function rootOneAnswer(
  root: Extract<PlanTemplate['roots'][number], { kind: 'one' }>,
  ctx: Context,
  variables: Variables,
  tick: Tick,
): Promise<unknown> {
  const children = childLevels(root.level, variables);
  const args = argumentsOf(root, variables);
  let level;
  try {
    level = root.plan.level(
      ctx.db,
      args,
      [...root.level.columns],
      children.map((c) => c.level),
    );
  } catch (e) {
    throw refused(e);
  }
  // arguments the root's plan leaves to its resolver (a lookup by ISIN)
  if (!level) throw new NotPlanned('not_plannable');
  return oneAnswer(root, await readTree(ctx.db, level), { children: children.map((c) => c.paging) }, tick);
}

function argumentsOf(
  field: { def: ConnectionField['def']; node: ConnectionField['node'] },
  variables: Variables,
): Record<string, unknown> {
  try {
    return getArgumentValues(field.def, field.node, variables);
  } catch (e) {
    throw refused(e);
  }
}

/** The tree levels of a level's child connections, and how each one's rows become pages. */
function childLevels(level: LevelTemplate, variables: Variables): { level: TreeLevel; paging: Paging }[] {
  return level.children.map((child) => {
    const args = argumentsOf(child, variables);
    const grandchildren = childLevels(child.level, variables);
    const columns = [...child.level.columns];
    const levels = grandchildren.map((g) => g.level);
    const children = grandchildren.map((g) => g.paging);
    try {
      if (child.kind === 'one') return { level: child.plan.level(args, columns, levels), paging: { children } };
      const chosen = child.plan.list(args);
      return {
        level: keyedLevel(chosen.list, chosen.args, child.plan.parentColumn, columns, levels),
        paging: {
          page: { args: chosen.args, ordering: chosen.list.ordering, direction: chosen.list.direction },
          children,
        },
      };
    } catch (e) {
      throw refused(e);
    }
  });
}

/** A single object's answer: its level's first row, or null where the type allows it; a list's: every row. */
function oneAnswer(field: OneField, rows: TreeRow[], paging: Paging, tick: Tick): unknown {
  if (field.list) return rows.map((row) => objectAnswer(field.object, row, paging, tick));
  const first = rows[0];
  if (first) return objectAnswer(field.object, first, paging, tick);
  if (field.nonNull) throw new NotPlanned('answer');
  return null;
}

function connectionAnswer(
  field: ConnectionField,
  rows: TreeRow[],
  paging: Paging,
  tick: Tick,
): Record<string, unknown> {
  const { args, ordering, direction } = paging.page!;
  // the rows as toPage puts the page's (a backward page's reversed), each with its own children
  const page = toPage(
    rows.map((r) => r.row as never),
    args,
    ordering,
    direction,
  );
  const shown = pageRows(rows, args).rows;
  const con = connection(page);
  const out = record(field.fields);
  for (const part of field.fields) out[part.key] = partAnswer(part, con, shown, paging, tick);
  return out;
}

function partAnswer(
  part: ConnectionPart,
  con: ReturnType<typeof connection<never>>,
  rows: TreeRow[],
  paging: Paging,
  tick: Tick,
): unknown {
  switch (part.kind) {
    case 'typename':
      return part.name;
    case 'nodes':
      return rows.map((r) => objectAnswer(part.object, r, paging, tick));
    case 'edges':
      return con.edges.map((edge, i) => {
        const out = record(part.fields);
        for (const f of part.fields)
          out[f.key] =
            f.kind === 'typename'
              ? f.name
              : f.kind === 'cursor'
                ? edge.cursor
                : objectAnswer(f.object, rows[i]!, paging, tick);
        return out;
      });
    case 'pageInfo': {
      const info = con.pageInfo as Record<string, unknown>;
      const out = record(part.fields);
      for (const f of part.fields) out[f.key] = f.kind === 'typename' ? f.name : leaf(info[f.name], f.type, false);
      return out;
    }
  }
}

function objectAnswer(object: ObjectTemplate, tree: TreeRow, paging: Paging, tick: Tick): Record<string, unknown> {
  tick();
  const row = tree.row as Row;
  const out = record(object.fields);
  for (const f of object.fields) {
    if (f.kind === 'typename') out[f.key] = f.name;
    else if (f.kind === 'leaf')
      out[f.key] = f.list
        ? leafList(f.read(row), f.type, f.nonNull, f.list.itemNonNull)
        : leaf(f.read(row), f.type, f.nonNull);
    else if (f.kind === 'sameRow') out[f.key] = objectAnswer(f.object, tree, paging, tick);
    else if (f.kind === 'derived') out[f.key] = derivedAnswer(f.object, f.read(row), f.nonNull);
    else if (f.kind === 'one') out[f.key] = oneAnswer(f, tree.children[f.index]!, paging.children[f.index]!, tick);
    else out[f.key] = connectionAnswer(f, tree.children[f.index]!, paging.children[f.index]!, tick);
  }
  return out;
}

/** An object computed from the row: its type name and properties. */
function derivedAnswer(object: ObjectTemplate, value: unknown, nonNull: boolean): unknown {
  if (value === null || value === undefined) {
    if (nonNull) throw new NotPlanned('answer');
    return null;
  }
  const out = record(object.fields);
  for (const f of object.fields)
    out[f.key] =
      f.kind === 'typename' ? f.name : f.kind === 'leaf' ? leaf(f.read(value as Row), f.type, f.nonNull) : undefined;
  return out;
}

/** A list of leaves as graphql-js completes it, item by item (anything but an array goes to graphql-js). */
function leafList(
  value: unknown,
  type: { serialize(v: unknown): unknown },
  nonNull: boolean,
  itemNonNull: boolean,
): unknown {
  if (value === null || value === undefined) {
    if (nonNull) throw new NotPlanned('answer');
    return null;
  }
  if (!Array.isArray(value)) throw new NotPlanned('answer');
  return value.map((item) => leaf(item, type, itemNonNull));
}

/** A leaf as graphql-js completes it: null stays null where the type allows it, else serialized by its type. */
function leaf(value: unknown, type: { serialize(v: unknown): unknown }, nonNull: boolean): unknown {
  if (value === null || value === undefined) {
    if (nonNull) throw new NotPlanned('answer');
    return null;
  }
  let out: unknown;
  try {
    out = type.serialize(value);
  } catch {
    // the type refuses the value: graphql-js words the field's error
    throw new NotPlanned('answer');
  }
  if (out === undefined) throw new NotPlanned('answer');
  return out;
}
