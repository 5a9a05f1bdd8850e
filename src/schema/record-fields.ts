// A record's plain GraphQL fields, from its field table (domain/records/table.ts): one `expose`
// per entry, so the planner reads each as a column of the row (graphql/plan/compile.ts) and a new
// plain field is one line of the table (docs/architecture.md#adding-a-resource).
import type { FieldRef, SchemaTypes } from '@pothos/core';
import type { TextKind } from '../domain/limits.js';
import type { Field, GraphqlScalar, Kind, RecordTable } from '../domain/records/table.js';

const SCALAR_OF: Partial<Record<Kind['kind'], GraphqlScalar>> = {
  text: 'String',
  symbol: 'String',
  cik: 'String',
  tickId: 'String',
  integer: 'Int',
  int32: 'Int',
  number: 'Float',
  amount: 'Float',
  boolean: 'Boolean',
  timestamp: 'DateTime',
  date: 'Date',
  bigint: 'BigInt',
  uint64: 'BigInt',
  uuid: 'UUID',
};

interface Exposed {
  name: string;
  column: string;
  type: GraphqlScalar;
  nullable: boolean;
  description: string | undefined;
  /** Its text kind when not short: the cost analysis counts it at that length (schema/text-kinds.ts). */
  textKind: TextKind | undefined;
}

/** Where a type's fields sit in the record: `under` a dotted key path, or columns of a related `row`. */
export interface Place {
  /** The type of a nested object whose keys the legacy record spells with dots (`classification` of `classification.gics`). */
  readonly under?: string;
  /** The type over a related row whose columns the table reads by path (`metrics` of `metrics.peRatio`). */
  readonly row?: string;
}

/** The GraphQL field of one table entry in `place`; undefined when the type does not expose it from the table. */
function exposedField(field: Field, place: Place): Exposed | undefined {
  const keyPrefix = place.under === undefined ? '' : `${place.under}.`;
  const columnPrefix = place.row === undefined ? '' : `${place.row}.`;
  if (!field.key.startsWith(keyPrefix) || field.key.slice(keyPrefix.length).includes('.')) return undefined;
  if (field.graphql === false || !field.column?.startsWith(columnPrefix)) return undefined;
  const column = field.column.slice(columnPrefix.length);
  const type = field.graphql?.type ?? SCALAR_OF[field.kind];
  if (type === undefined || column.includes('.')) return undefined;
  return {
    name: field.graphql?.name ?? column,
    column,
    type,
    nullable:
      field.graphql?.nullable ?? (field.missing === 'null' || field.missing === 'omit' || field.missing === 'keep'),
    description: field.graphql?.description ?? field.description,
    textKind: field.kind === 'text' && field.text && field.text !== 'short' ? field.text : undefined,
  };
}

/** The GraphQL names of the fields `exposeRecordFields` adds for `table` in `place` (test/graphql/record-fields.test.ts checks no hand-written field shadows one). */
export function recordFieldNames(table: RecordTable, place: Place = {}): string[] {
  return table.flatMap((field) => exposedField(field, place)?.name ?? []);
}

/** What `exposeRecordFields` needs of a Pothos field builder: its `expose` of a row's property. */
interface ExposingBuilder<Types extends SchemaTypes> {
  expose: (...args: never[]) => FieldRef<Types, unknown>;
}

/**
 * The plain fields of `table` for a Pothos type's `fields`, beside its hand-written ones: those of
 * the record's own row at its top level, or those in `place`.
 */
export function exposeRecordFields<Types extends SchemaTypes>(
  t: ExposingBuilder<Types>,
  table: RecordTable,
  place: Place = {},
): Record<string, FieldRef<Types, unknown>> {
  const expose = t.expose as unknown as (
    column: string,
    options: {
      type: GraphqlScalar;
      nullable: boolean;
      description: string | undefined;
      extensions?: { textKind: TextKind };
    },
  ) => FieldRef<Types, unknown>;
  const fields: Record<string, FieldRef<Types, unknown>> = {};
  for (const field of table) {
    const exposed = exposedField(field, place);
    if (exposed)
      fields[exposed.name] = expose.call(t, exposed.column, {
        type: exposed.type,
        nullable: exposed.nullable,
        description: exposed.description,
        ...(exposed.textKind ? { extensions: { textKind: exposed.textKind } } : {}),
      });
  }
  return fields;
}
