// A record table (domain/records/table.ts) read the REST way: the record's JSON schema for the
// OpenAPI document, and the function that writes a row as the record.
import type { Field, Kind, RecordTable } from '../domain/records/table.js';
import { arr, bool, date, int, nullable, num, object, str, timestamp, type JsonSchema } from './json-schema.js';
import { exactInt } from './route.js';

/** Where a record's value is not its column as the kind writes it: the key's value, computed from the row. */
export type RecordHooks<Row> = Readonly<Partial<Record<string, (row: Row) => unknown>>>;

function kindSchema(k: Kind, description?: string): JsonSchema {
  switch (k.kind) {
    case 'text':
    case 'symbol':
    case 'cik':
    case 'tickId':
      return str(description);
    case 'integer':
      return k.shown ? { type: 'integer', minimum: k.min, maximum: k.max, description } : int(description);
    case 'bigint':
    case 'uint64':
    case 'int32':
      return int(description);
    case 'number':
    case 'amount':
      return num(description);
    case 'boolean':
      return bool(description);
    case 'timestamp':
      return timestamp(description);
    case 'date':
      return date(description);
    case 'uuid':
      return { type: 'string', format: 'uuid', description };
    case 'enum':
      return { type: 'string', enum: [...k.values], description };
    case 'json':
      return k.object ? { type: 'object', description } : { description };
    case 'strings':
    case 'symbols':
      return arr(str(), description);
    case 'integers':
    case 'conditions':
      return arr(int(), description);
    case 'values':
      return arr({}, description);
    case 'objects':
      return arr(recordSchema(k.fields), description);
    case 'object':
      return object(...properties(k.fields), description);
  }
}

function fieldSchema(f: Field): JsonSchema {
  return f.missing === 'null'
    ? { ...nullable(kindSchema(f)), description: f.description }
    : kindSchema(f, f.description);
}

function properties(table: RecordTable): [Record<string, JsonSchema>, string[]] {
  return [
    Object.fromEntries(table.map((f) => [f.key, fieldSchema(f)])),
    table.filter((f) => f.missing !== 'omit' && f.missing !== 'keep').map((f) => f.key),
  ];
}

/** The record's JSON schema: every key of the table, required unless it is left out when missing. */
export function recordSchema(table: RecordTable): JsonSchema {
  return object(...properties(table));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A column's reader, made once per table: a dotted path reads a related row. */
function reader(column: string): (row: unknown) => unknown {
  const path = column.split('.');
  if (path.length === 1) return (row) => (row as Record<string, unknown>)[column];
  return (row) => path.reduce<unknown>((at, name) => (isObject(at) ? at[name] : undefined), row);
}

/** How a field's value is written from its column. */
function writer(f: Field): (row: unknown) => unknown {
  if (f.kind === 'object' && f.column === undefined) return shaper(f.fields, {});
  const read = reader(f.column!);
  const sub = f.kind === 'object' ? shaper(f.fields, {}) : undefined;
  const each = f.kind === 'objects' ? shaper(f.fields, {}) : undefined;
  return (row) => {
    const v = read(row);
    if ((v === null || v === undefined) && f.missing !== undefined) return v;
    if (v instanceof Date) return v.toISOString();
    switch (f.kind) {
      case 'strings':
        return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
      case 'integers':
        return Array.isArray(v) ? v.filter((n): n is number => typeof n === 'number' && Number.isSafeInteger(n)) : [];
      case 'values':
        return Array.isArray(v) ? v : [];
      case 'json':
        return f.object ? (isObject(v) ? v : {}) : (v ?? null);
      case 'uint64':
        return exactInt(v as bigint);
      case 'objects':
        return (v as unknown[]).map(each!);
      case 'object':
        return sub!(v);
      default:
        return v;
    }
  };
}

function shaper<Row>(table: RecordTable, hooks: RecordHooks<Row>): (row: Row) => Record<string, unknown> {
  const fields = table.map((f) => ({
    key: f.key,
    value: (hooks[f.key] ?? writer(f)) as (row: Row) => unknown,
    omitted: f.missing === 'omit' || f.missing === 'keep',
  }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const { key, value, omitted } of fields) {
      const v = value(row);
      if (v !== null && v !== undefined) out[key] = v;
      else if (!omitted) out[key] = null;
    }
    return out;
  };
}

/** The row -> record function of a table: keys in the table's order, `hooks` for the computed ones. */
export function recordShaper<Row>(
  table: RecordTable,
  hooks: RecordHooks<Row> = {},
): (row: Row) => Record<string, unknown> {
  return shaper(table, hooks);
}
