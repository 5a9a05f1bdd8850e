// A query document as a plan (graphql/plan/run.ts runs it): which rows each level of the answer
// reads, which columns, and how each field of the answer is made from them. Only documents made
// wholly of fields the planner knows how to answer get a plan (see `planDocument`); any other
// document, and any field it does not know, leaves the query to graphql-js and its resolvers.
import {
  getNamedType,
  getNullableType,
  getOperationAST,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { getDatamodel } from '../../../generated/pothos-types.js';
import type { Resource } from '../../domain/entitlements.js';
import { planOf, type ChildrenPlan, type OnePlan, type RootOnePlan, type RootPlan, type Row } from './declare.js';

/** A leaf of the answer: a value read from the row, serialized by its type; or a list of such values. */
interface Leaf {
  kind: 'leaf';
  key: string;
  read(row: Row): unknown;
  type: GraphQLLeafType;
  nonNull: boolean;
  /** A list of leaves (one level); whether its items may be null. */
  list?: { itemNonNull: boolean };
}

/** The type's name (`__typename`). */
interface Typename {
  kind: 'typename';
  key: string;
  name: string;
}

/** An object field over the parent's own row. */
interface SameRow {
  kind: 'sameRow';
  key: string;
  object: ObjectTemplate;
}

/** A connection field (root or child): its page's rows are a level of their own. */
export interface ConnectionField {
  kind: 'connection';
  key: string;
  def: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** Its position among its parent level's children (child connections). */
  index: number;
  level: LevelTemplate;
  fields: ConnectionPart[];
}

/** An object field over the first row (or none) of a level of its own, or a list field over all its rows. */
export interface OneField {
  kind: 'one';
  list: boolean;
  key: string;
  def: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** Its position among its parent level's children (not at the root). */
  index: number;
  level: LevelTemplate;
  object: ObjectTemplate;
  nonNull: boolean;
}

/** An object computed from the row, whose fields read its properties. */
interface Derived {
  kind: 'derived';
  key: string;
  read(row: Row): unknown;
  object: ObjectTemplate;
  nonNull: boolean;
}

export type ObjectPart = Leaf | Typename | SameRow | ConnectionField | OneField | Derived;

export interface ObjectTemplate {
  fields: ObjectPart[];
}

/** A field of a connection, of its edges, or of its page info. */
export type ConnectionPart =
  | Typename
  | { kind: 'nodes'; key: string; object: ObjectTemplate }
  | {
      kind: 'edges';
      key: string;
      fields: ({ kind: 'cursor'; key: string } | { kind: 'node'; key: string; object: ObjectTemplate } | Typename)[];
    }
  | {
      kind: 'pageInfo';
      key: string;
      fields: (Typename | { kind: 'info'; key: string; name: string; type: GraphQLLeafType })[];
    };

/** The rows of one connection: the columns its objects read, and its child connections. */
export interface LevelTemplate {
  columns: Set<string>;
  children: ((ConnectionField & { plan: ChildrenPlan }) | (OneField & { plan: OnePlan }))[];
}

export interface PlanTemplate {
  operation: OperationDefinitionNode;
  roots: (Typename | (ConnectionField & { plan: RootPlan }) | (OneField & { plan: RootOnePlan }))[];
  /** The resources the caller must be entitled to; without one, graphql-js answers (and says why). */
  resources: Set<Resource>;
}

/** Why a document has no plan; caught by planDocument. */
class Unplannable extends Error {}
const refuse = (why: string): never => {
  throw new Unplannable(why);
};

const MODEL_COLUMNS = new Map(
  Object.entries(getDatamodel().datamodel.models).map(([model, { fields }]) => [
    model,
    new Set(fields.filter((f) => f.kind !== 'object').map((f) => f.name)),
  ]),
);

/** The plan of `document`'s operation, or the reason it has none. */
export function planDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): PlanTemplate | string {
  try {
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== 'query') return 'not a query';
    if (operation.directives?.length) return 'directives';
    const compiler = new Compiler(document);
    const query = schema.getQueryType()!;
    const roots = [...compiler.collect(query, operation.selectionSet)].map(([key, nodes]) =>
      compiler.root(query, key, nodes),
    );
    return { operation, roots, resources: compiler.resources };
  } catch (e) {
    if (e instanceof Unplannable) return e.message;
    throw e;
  }
}

class Compiler {
  readonly resources = new Set<Resource>();
  readonly #fragments: Map<string, SelectionSetNode & { typeCondition: string }>;

  constructor(document: DocumentNode) {
    this.#fragments = new Map(
      document.definitions.flatMap((d) =>
        d.kind === Kind.FRAGMENT_DEFINITION
          ? [[d.name.value, { ...d.selectionSet, typeCondition: d.typeCondition.name.value }]]
          : [],
      ),
    );
  }

  /** The fields of `selectionSet` on `type` by response key, fragments spread, as graphql-js collects them. */
  collect(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    out = new Map<string, FieldNode[]>(),
  ): Map<string, FieldNode[]> {
    for (const s of selectionSet.selections) {
      if (s.directives?.length) refuse('directives');
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        out.set(key, [...(out.get(key) ?? []), s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (s.typeCondition && s.typeCondition.name.value !== type.name) refuse('a fragment on another type');
        this.collect(type, s.selectionSet, out);
      } else {
        const fragment = this.#fragments.get(s.name.value) ?? refuse('unknown fragment');
        if (fragment.typeCondition !== type.name) refuse('a fragment on another type');
        this.collect(type, fragment, out);
      }
    }
    return out;
  }

  /** The sub-fields of every node of one response key, merged. */
  #sub(type: GraphQLObjectType, nodes: readonly FieldNode[]): Map<string, FieldNode[]> {
    const out = new Map<string, FieldNode[]>();
    for (const n of nodes) if (n.selectionSet) this.collect(type, n.selectionSet, out);
    return out;
  }

  /** Records what the field (and its type) asks of the caller: only `entitled` scopes are known. */
  #scopes(of: { extensions: Readonly<Record<string, unknown>> }): void {
    const scopes = (of.extensions.pothosOptions as { authScopes?: unknown } | undefined)?.authScopes;
    if (scopes === undefined) return;
    const keys = typeof scopes === 'object' && scopes !== null ? Object.keys(scopes) : [];
    if (keys.length !== 1 || keys[0] !== 'entitled') refuse('scopes other than entitled');
    this.resources.add((scopes as { entitled: Resource }).entitled);
  }

  root(query: GraphQLObjectType, key: string, nodes: FieldNode[]): PlanTemplate['roots'][number] {
    const name = nodes[0]!.name.value;
    if (name === '__typename') return { kind: 'typename', key, name: query.name };
    const def = query.getFields()[name] ?? refuse(`no field ${name}`);
    const plan = planOf(def.extensions);
    this.#scopes(def);
    if (plan?.kind === 'rootOne') return { ...this.#one(def, key, nodes, 0), plan };
    if (plan?.kind !== 'root') refuse(`root field ${name}`);
    return { ...this.#connection(def, key, nodes, 0), plan: plan as RootPlan };
  }

  #one(def: GraphQLField<unknown, unknown>, key: string, nodes: FieldNode[], index: number, list = false): OneField {
    const type = list ? getNamedType(def.type) : getNullableType(def.type);
    if (!isObjectType(type) || list !== isListLike(def))
      return refuse(`${def.name}: not ${list ? 'a list of objects' : 'an object'}`);
    const level: LevelTemplate = { columns: new Set(), children: [] };
    return {
      kind: 'one',
      list,
      key,
      def,
      node: nodes[0]!,
      index,
      level,
      object: this.#object(type, nodes, level),
      nonNull: isNonNullType(def.type),
    };
  }

  /** An object computed from a row: only its type name and its exposed properties. */
  #derived(type: GraphQLObjectType, nodes: FieldNode[]): ObjectTemplate {
    this.#scopes(type);
    const fields = [...this.#sub(type, nodes)].map(([key, [n]]): ObjectPart => {
      const name = n!.name.value;
      if (name === '__typename') return { kind: 'typename', key, name: type.name };
      const def = type.getFields()[name] ?? refuse(`no field ${name}`);
      this.#scopes(def);
      const named = getNamedType(def.type);
      const exposed = def.extensions.pothosExposedField;
      if (
        typeof exposed !== 'string' ||
        planOf(def.extensions) ||
        isListLike(def) ||
        !(isScalarType(named) || isEnumType(named))
      )
        return refuse(`${type.name}.${name}`);
      return { kind: 'leaf', key, read: (row) => row[exposed], type: named, nonNull: isNonNullType(def.type) };
    });
    return { fields };
  }

  #connection(def: GraphQLField<unknown, unknown>, key: string, nodes: FieldNode[], index: number): ConnectionField {
    const type = getNullableType(def.type);
    if (!isObjectType(type)) return refuse(`${def.name}: not a connection`);
    const level: LevelTemplate = { columns: new Set(), children: [] };
    const fields = [...this.#sub(type, nodes)].map(([k, sub]) => this.#connectionPart(type, k, sub, level));
    return { kind: 'connection', key, def, node: nodes[0]!, index, level, fields };
  }

  #connectionPart(type: GraphQLObjectType, key: string, nodes: FieldNode[], level: LevelTemplate): ConnectionPart {
    const name = nodes[0]!.name.value;
    if (name === '__typename') return { kind: 'typename', key, name: type.name };
    const def = type.getFields()[name] ?? refuse(`no field ${name}`);
    const target = getNamedType(def.type);
    if (!isObjectType(target)) return refuse(`${type.name}.${name}`);
    if (name === 'nodes') return { kind: 'nodes', key, object: this.#object(target, nodes, level) };
    if (name === 'pageInfo') {
      const fields = [...this.#sub(target, nodes)].map(([k, [n]]) => {
        const f = n!.name.value;
        if (f === '__typename') return { kind: 'typename' as const, key: k, name: target.name };
        const info = target.getFields()[f];
        if (!info || info.resolve || !isLeafType(getNamedType(info.type))) return refuse(`PageInfo.${f}`);
        return { kind: 'info' as const, key: k, name: f, type: getNamedType(info.type) as GraphQLLeafType };
      });
      return { kind: 'pageInfo', key, fields };
    }
    if (name === 'edges') {
      const fields = [...this.#sub(target, nodes)].map(([k, sub]) => {
        const f = sub[0]!.name.value;
        if (f === '__typename') return { kind: 'typename' as const, key: k, name: target.name };
        if (f === 'cursor') return { kind: 'cursor' as const, key: k };
        const node = target.getFields()[f];
        const nodeType = node && getNamedType(node.type);
        if (f !== 'node' || !isObjectType(nodeType)) return refuse(`${target.name}.${f}`);
        return { kind: 'node' as const, key: k, object: this.#object(nodeType, sub, level) };
      });
      return { kind: 'edges', key, fields };
    }
    return refuse(`${type.name}.${name}`);
  }

  /** An object over a row of `level`'s table (the type's Prisma model). */
  #object(type: GraphQLObjectType, nodes: FieldNode[], level: LevelTemplate, model = modelOf(type)): ObjectTemplate {
    this.#scopes(type);
    const fields = [...this.#sub(type, nodes)].map(([key, sub]) => this.#objectPart(type, key, sub, level, model));
    return { fields };
  }

  #objectPart(
    type: GraphQLObjectType,
    key: string,
    nodes: FieldNode[],
    level: LevelTemplate,
    model: string,
  ): ObjectPart {
    const name = nodes[0]!.name.value;
    if (name === '__typename') return { kind: 'typename', key, name: type.name };
    const def = type.getFields()[name] ?? refuse(`no field ${name}`);
    this.#scopes(def);
    const plan = planOf(def.extensions);
    const columns = MODEL_COLUMNS.get(model)!;
    const column = (c: string) => (columns.has(c) ? level.columns.add(c) : refuse(`${model} has no column ${c}`));
    const named = getNamedType(def.type);
    const leaf =
      isScalarType(named) || isEnumType(named) ? { type: named, nonNull: isNonNullType(def.type) } : undefined;
    if (plan?.kind === 'sameRow' && isObjectType(named))
      return { kind: 'sameRow', key, object: this.#object(named, nodes, level, model) };
    if (plan?.kind === 'computed' && leaf) {
      plan.columns.forEach(column);
      const nullable = getNullableType(def.type);
      const item = isListType(nullable) ? (nullable.ofType as GraphQLType) : undefined;
      if (item && getNullableType(item) !== named) refuse(`${type.name}.${name}: a list of lists`);
      const list = item && { itemNonNull: isNonNullType(item) };
      return { kind: 'leaf', key, read: plan.value as (row: Row) => unknown, ...leaf, ...(list && { list }) };
    }
    if (plan?.kind === 'computed' && isObjectType(named) && !isListLike(def)) {
      plan.columns.forEach(column);
      return {
        kind: 'derived',
        key,
        read: plan.value as (row: Row) => unknown,
        object: this.#derived(named, nodes),
        nonNull: isNonNullType(def.type),
      };
    }
    if (plan?.kind === 'one' || plan?.kind === 'many') {
      plan.parentColumns.forEach(column);
      const child = { ...this.#one(def, key, nodes, level.children.length, plan.kind === 'many'), plan };
      level.children.push(child);
      return child;
    }
    if (plan?.kind === 'children') {
      column(plan.parentColumn);
      const child = { ...this.#connection(def, key, nodes, level.children.length), plan };
      level.children.push(child);
      return child;
    }
    const exposed = def.extensions.pothosExposedField;
    // Pothos's expose*: a read of the row's property `exposed`, whatever wraps it (scope-auth wraps
    // every field of a type with scopes, which #scopes records)
    if (plan === undefined && typeof exposed === 'string' && leaf && !isListLike(def)) {
      column(exposed);
      return { kind: 'leaf', key, read: (row) => row[exposed], ...leaf };
    }
    return refuse(`${type.name}.${name}`);
  }
}

function isLeafType(t: unknown): boolean {
  return isScalarType(t) || isEnumType(t);
}

function isListLike(def: GraphQLField<unknown, unknown>): boolean {
  return isListType(getNullableType(def.type));
}

function modelOf(type: GraphQLObjectType): string {
  const model = type.extensions.pothosPrismaModel;
  if (typeof model !== 'string' || !MODEL_COLUMNS.has(model)) return refuse(`${type.name}: not a table's rows`);
  return model;
}
