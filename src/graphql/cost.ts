import {
  getNamedType,
  getNullableType,
  getOperationAST,
  isEnumType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { TEXT_LIMITS, type TextKind } from '../domain/limits.js';

/**
 * What an operation may cost, decided from its document and variables before anything runs. The
 * unit is one value of up to CHARS_PER_UNIT characters: an object, a number, a boolean, an enum, a
 * date; a text field counts its longest stored length in units (the import refuses longer text:
 * src/domain/limits.ts). Lists count at their size: a connection at its `first` or `last` (the literal, the
 * variable sent, the variable's default, else the list's default page size), a list the schema's
 * code bounds at its declared largest size, a stored record's child list at its default size
 * (LIST_DEFAULTS, src/domain/limits.ts); nested sizes multiply. So the cost bounds the values, and
 * the bytes, of the answer when no record holds more children than that, and the largest answer
 * at most max / default times more for each child list on a path
 * (docs/security.md#limits-per-request-decided-before-it-runs).
 */
export const CHARS_PER_UNIT = 64;

/** A page-size rule, declared on a list's `first` argument (`extensions.pageSize`). */
export interface PageSizeExtension {
  default: number;
  max: number;
}

/**
 * A list's largest size, declared on the field (`extensions.listSize`) where the schema's own code
 * bounds it (`nodes(ids:)`, OCR results); a stored record's child lists take theirs from their
 * manifest's kind (CostOptions.listItems).
 */
export interface ListSizeExtension {
  /** The most items the list can hold (an import limit, or a bound of the code that makes it). */
  max?: number;
  /** The list has one item per element of this list argument (`nodes(ids:)`), at most `max`. */
  itemsOf?: string;
  /** A field of a connection with one item per node of its page (an indicator's values): counted as its `nodes`. */
  perNode?: boolean;
}

/**
 * Work a field makes the gateway do beyond the values it answers, declared on the field
 * (`extensions.work`): `units` each time it is resolved (for each item of a list field), when
 * none of `whenArgs` is named or one of them is given. A search engine's pass over the whole
 * master answers one row but may take as long as a page of thousands (schema/security.ts,
 * measured by bench/search-cost.ts), so the cost analysis charges the pass as what it takes.
 */
export interface WorkExtension {
  units: number;
  whenArgs?: readonly string[];
  /**
   * Only inside these fields (coordinates, e.g. `Query.trades`) with one of `args` given: a field
   * of a type shared by several lists that works in some of them only (a tick count, computed for
   * a root list of one symbol and null elsewhere, schema/tick.ts), charged where it works only.
   */
  whenWithin?: { fields: readonly string[]; args: readonly string[] };
  /** Charged once for the field, not for each item of its list (a read before the items: an indicator's warm-up). */
  once?: boolean;
}

/** The field whose selection set is being priced: its coordinate and its node (for its arguments). */
interface Within {
  coordinate: string;
  node: FieldNode;
}

/** Longest characters of a text-like scalar without a declaration of its own. */
const SCALAR_CHARS: Readonly<Record<string, number>> = {
  String: TEXT_LIMITS.short,
  URL: TEXT_LIMITS.url,
  JSON: TEXT_LIMITS.json,
  // our global ids: base64 of a type name and a key of at most two short values
  ID: 128,
};

/**
 * A list whose size nothing declares is counted at this many items. The schema test enumerates
 * every list field and requires a declaration, so this only guards a field added without one.
 */
export const UNDECLARED_LIST_SIZE = 1_000;

/** A stored record's child list: the items it is counted at, and the most the import lets it hold. */
export interface ChildListSize {
  default: number;
  max: number;
}

export interface CostOptions {
  /** Longest stored characters of a text field, by coordinate (`PressRelease.bodyHtml`); default by scalar. */
  textChars?: (coordinate: string) => number | undefined;
  /** The size of a list field holding a stored record's child list, by coordinate (`Logo.securityInfo`). */
  listItems?: (coordinate: string) => ChildListSize | undefined;
}

type Variables = Readonly<Record<string, unknown>>;

/** Units of a leaf field's value: an enum or a number is one; text counts its longest stored length. */
function leafUnitsOf(
  parent: GraphQLNamedType,
  field: GraphQLField<unknown, unknown>,
  type: GraphQLNamedType,
  options: CostOptions,
): number {
  if (isEnumType(type)) return 1;
  // a field exposed from its record's table carries its text kind (schema/record-fields.ts); one written by hand, its manifest's
  const kind = field.extensions?.textKind as TextKind | undefined;
  const chars =
    (kind ? TEXT_LIMITS[kind] : undefined) ??
    options.textChars?.(`${parent.name}.${field.name}`) ??
    SCALAR_CHARS[type.name];
  return chars === undefined ? 1 : Math.ceil(chars / CHARS_PER_UNIT);
}

/**
 * Units of one record of `typeName` with every field: its leaves, and the parts it holds (objects
 * reached without arguments, child lists at their default size, as the operation's cost counts
 * them), not the records it links to (node types, connections). What a REST row costs, since it
 * carries the same data as its GraphQL twin.
 */
export function recordUnits(schema: GraphQLSchema, typeName: string, options: CostOptions = {}): number {
  const node = schema.getType('Node');
  const units = (type: GraphQLNamedType, path: ReadonlySet<string>): number => {
    if (!isObjectType(type)) return 1;
    let total = 1;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const named = getNamedType(field.type);
      const items = isListType(getNullableType(field.type))
        ? ((field.extensions.listSize as ListSizeExtension | undefined)?.max ??
          options.listItems?.(`${type.name}.${field.name}`)?.default ??
          UNDECLARED_LIST_SIZE)
        : 1;
      if (isLeafType(named)) total += items * leafUnitsOf(type, field, named, options);
      else if (
        isObjectType(named) &&
        !path.has(named.name) &&
        !named.getInterfaces().some((i) => i === node) &&
        !named.name.endsWith('Connection') &&
        !field.args.some((a) => isNonNullType(a.type))
      ) {
        total += items * units(named, new Set([...path, named.name]));
      }
    }
    return total;
  };
  const type = schema.getType(typeName);
  if (!type) throw new Error(`recordUnits: no type ${typeName} in the schema`);
  return units(type, new Set([typeName]));
}

/** The arguments a connection's page size is asked with (schema/common.ts pagingArgs). */
const PAGE_COUNTS = ['first', 'last'] as const;

/** Relay's wrappers: the items of a connection, whose count its parent field's `first` (or `last`) decides. */
const isConnectionItems = (parent: GraphQLNamedType, field: string) =>
  parent.name.endsWith('Connection') && (field === 'edges' || field === 'nodes');

/**
 * The cost of the operation `operationName` of `document` with `variables`, and whether any
 * variable decided it (when none did, the cost belongs to the document and may be cached).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Variables,
  options: CostOptions = {},
): { cost: number; byVariables: boolean } {
  const operation = getOperationAST(document, operationName);
  if (!operation) return { cost: 0, byVariables: false };
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: 0, byVariables: false };
  const walk = new CostWalk(schema, document, operation, variables, options);
  const cost = walk.setCost(operation.selectionSet, root, undefined, new Set());
  return { cost, byVariables: walk.byVariables };
}

/** One operation's walk: its fragments and variable defaults, and whether a variable was read. */
class CostWalk {
  byVariables = false;
  readonly #fragments = new Map<string, { set: SelectionSetNode; type: string }>();
  readonly #defaults = new Map<string, ValueNode>();
  /**
   * Each fragment's cost, once per page size and field node it is spread in (undefined: at the
   * root): a spread may repeat, never cycle once valid, so the walk is linear in the document.
   */
  readonly #fragmentCosts = new Map<FieldNode | undefined, Map<string, number>>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    private readonly variables: Variables,
    private readonly options: CostOptions,
  ) {
    for (const def of document.definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION)
        this.#fragments.set(def.name.value, { set: def.selectionSet, type: def.typeCondition.name.value });
    }
    for (const v of operation.variableDefinitions ?? [])
      if (v.defaultValue) this.#defaults.set(v.variable.name.value, v.defaultValue);
  }

  /** The value of an argument: a literal, or a variable (as sent, else its default). */
  argumentValue(node: ValueNode): unknown {
    if (node.kind === Kind.VARIABLE) {
      this.byVariables = true;
      const name = node.name.value;
      if (Object.hasOwn(this.variables, name)) return this.variables[name];
      const fallback = this.#defaults.get(name);
      return fallback ? this.argumentValue(fallback) : undefined;
    }
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.LIST) return node.values.map((v) => this.argumentValue(v));
    return undefined;
  }

  listSize(
    parent: GraphQLNamedType,
    field: GraphQLField<unknown, unknown>,
    node: FieldNode,
    inherited: number | undefined,
  ): number {
    const first = field.args.find((a) => a.name === 'first');
    const pageSize = first?.extensions.pageSize as PageSizeExtension | undefined;
    if (pageSize) {
      // a connection's `first`, or its `last` (paging backward; both at once is refused by the field)
      const counts = PAGE_COUNTS.flatMap((name) => {
        const given = node.arguments?.find((a) => a.name.value === name);
        const value = given ? this.argumentValue(given.value) : undefined;
        return typeof value === 'number' && Number.isInteger(value) ? [value] : [];
      });
      // out of range is refused by the field itself, with a message naming the argument
      return counts.length ? Math.min(Math.max(...counts, 1), pageSize.max) : pageSize.default;
    }
    const declared = field.extensions.listSize as ListSizeExtension | undefined;
    if (declared?.itemsOf) {
      const given = node.arguments?.find((a) => a.name.value === declared.itemsOf);
      const value = given ? this.argumentValue(given.value) : undefined;
      const items = Array.isArray(value) ? value.length : (declared.max ?? UNDECLARED_LIST_SIZE);
      return Math.min(items, declared.max ?? items);
    }
    return (
      declared?.max ??
      this.options.listItems?.(`${parent.name}.${field.name}`)?.default ??
      inherited ??
      UNDECLARED_LIST_SIZE
    );
  }

  setCost(
    set: SelectionSetNode,
    parent: GraphQLNamedType,
    pageSize: number | undefined,
    spreading: ReadonlySet<string>,
    within?: Within,
  ): number {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition
          ? (this.schema.getType(selection.typeCondition.name.value) ?? parent)
          : parent;
        total += this.setCost(selection.selectionSet, type, pageSize, spreading, within);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = this.#fragments.get(name);
        if (!fragment || spreading.has(name)) continue; // unknown or cyclic: validation refuses it
        // kept per field it is spread in (a work may depend on that field: WorkExtension.whenWithin),
        // so a chain of fragments each spread twice is priced once a link, not 2^n times
        const key = `${name}:${pageSize ?? ''}`;
        let costs = this.#fragmentCosts.get(within?.node);
        if (!costs) this.#fragmentCosts.set(within?.node, (costs = new Map()));
        let cost = costs.get(key);
        if (cost === undefined) {
          cost = this.setCost(
            fragment.set,
            this.schema.getType(fragment.type) ?? parent,
            pageSize,
            new Set([...spreading, name]),
            within,
          );
          costs.set(key, cost);
        }
        total += cost;
      } else {
        total += this.fieldCost(selection, parent, pageSize, spreading, within);
      }
    }
    return total;
  }

  fieldCost(
    node: FieldNode,
    parent: GraphQLNamedType,
    pageSize: number | undefined,
    spreading: ReadonlySet<string>,
    within?: Within,
  ): number {
    const name = node.name.value;
    if (name === '__typename') return 1;
    if (name === '__schema' || name === '__type') return 0; // introspection: a fixed answer, refused in production
    const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!field) return 0; // validation refuses it
    const type = getNamedType(field.type);
    const isList = isListType(getNullableType(field.type));
    const perNode = (field.extensions.listSize as ListSizeExtension | undefined)?.perNode;
    const items = isList
      ? this.listSize(parent, field, node, isConnectionItems(parent, name) || perNode ? pageSize : undefined)
      : 1;
    const work = this.workUnits(field, node, within);
    const once = (field.extensions.work as WorkExtension | undefined)?.once;
    if (once) return items * this.itemCost(node, parent, field, type, spreading) + work;
    if (isLeafType(type)) return items * (leafUnitsOf(parent, field, type, this.options) + work);
    // a connection passes its page size to its edges and nodes
    const first = field.args.some((a) => a.name === 'first' && a.extensions.pageSize)
      ? this.listSize(parent, field, node, undefined)
      : undefined;
    const inside: Within = { coordinate: `${parent.name}.${name}`, node };
    const each = 1 + (node.selectionSet ? this.setCost(node.selectionSet, type, first, spreading, inside) : 0);
    return items * (each + work);
  }

  /** One item of a field whose work is charged once (WorkExtension.once): a leaf's units, or an object's selection. */
  itemCost(
    node: FieldNode,
    parent: GraphQLNamedType,
    field: GraphQLField<unknown, unknown>,
    type: GraphQLNamedType,
    spreading: ReadonlySet<string>,
  ): number {
    if (isLeafType(type)) return leafUnitsOf(parent, field, type, this.options);
    const inside: Within = { coordinate: `${parent.name}.${field.name}`, node };
    return 1 + (node.selectionSet ? this.setCost(node.selectionSet, type, undefined, spreading, inside) : 0);
  }

  /** The field's declared work (WorkExtension), when its arguments, and the field it is inside, ask for it. */
  workUnits(field: GraphQLField<unknown, unknown>, node: FieldNode, within: Within | undefined): number {
    const work = field.extensions.work as WorkExtension | undefined;
    if (!work) return 0;
    if (work.whenWithin) {
      const { fields, args } = work.whenWithin;
      if (!within || !fields.includes(within.coordinate) || !this.anyGiven(within.node, args)) return 0;
    }
    return !work.whenArgs || this.anyGiven(node, work.whenArgs) ? work.units : 0;
  }

  /** Whether `node` gives one of `names` a value other than null (a variable's, or its default). */
  anyGiven(node: FieldNode, names: readonly string[]): boolean {
    return (node.arguments ?? []).some((a) => {
      if (!names.includes(a.name.value) || a.value.kind === Kind.NULL) return false;
      if (a.value.kind !== Kind.VARIABLE) return true;
      this.byVariables = true;
      const name = a.value.name.value;
      const value = Object.hasOwn(this.variables, name) ? this.variables[name] : this.#defaults.get(name);
      return value !== null && value !== undefined && (value as ValueNode).kind !== Kind.NULL;
    });
  }
}
