// A record's plain GraphQL fields, from its field table (domain/records/table.ts): one `expose`
// per entry, so the planner reads each as a column of the row (graphql/plan/compile.ts) and a new
// plain field is one line of the table (docs/architecture.md#adding-a-resource).
import type { FieldRef, SchemaTypes } from '@pothos/core';
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
}

/** The GraphQL field of one table entry; undefined when the graph does not expose it from the table. */
function exposedField(field: Field): Exposed | undefined {
  if (field.graphql === false || field.column === undefined || field.column.includes('.')) return undefined;
  const type = field.graphql?.type ?? SCALAR_OF[field.kind];
  if (type === undefined) return undefined;
  return {
    name: field.graphql?.name ?? field.column,
    column: field.column,
    type,
    nullable:
      field.graphql?.nullable ?? (field.missing === 'null' || field.missing === 'omit' || field.missing === 'keep'),
    description: field.graphql?.description ?? field.description,
  };
}

/** What `exposeRecordFields` needs of a Pothos field builder: its `expose` of a row's property. */
interface ExposingBuilder<Types extends SchemaTypes> {
  expose: (...args: never[]) => FieldRef<Types, unknown>;
}

/**
 * The plain fields of `table` for a Pothos type's `fields`, beside its hand-written ones: those of
 * the record's top level, or, for the type of a nested object whose keys the legacy record spells
 * with dots (a security's `classification.gics`), those directly `under` its path.
 */
export function exposeRecordFields<Types extends SchemaTypes>(
  t: ExposingBuilder<Types>,
  table: RecordTable,
  under?: string,
): Record<string, FieldRef<Types, unknown>> {
  const prefix = under === undefined ? '' : `${under}.`;
  const expose = t.expose as unknown as (
    column: string,
    options: { type: GraphqlScalar; nullable: boolean; description: string | undefined },
  ) => FieldRef<Types, unknown>;
  const fields: Record<string, FieldRef<Types, unknown>> = {};
  for (const field of table) {
    if (!field.key.startsWith(prefix) || field.key.slice(prefix.length).includes('.')) continue;
    const exposed = exposedField(field);
    if (exposed)
      fields[exposed.name] = expose.call(t, exposed.column, {
        type: exposed.type,
        nullable: exposed.nullable,
        description: exposed.description,
      });
  }
  return fields;
}
