// A record table (domain/records/table.ts) read the import's way: a legacy JSON record to its row,
// each key checked by its kind with the validators of record-fields.ts, which name the key (its
// path: `logos.png.url`, `Securities[2].figi`), the rule and the value received.
import type { Field, Kind, RecordTable } from '../domain/records/table.js';
import * as f from './record-fields.js';
import { conditionsField, intField, numberField, stringField, uint64Field } from './resources/tick.js';

/** Where a key is not read as its kind says: the columns it gives, from the whole record. */
export type ParseHooks = Readonly<Partial<Record<string, (rec: f.Rec) => Record<string, unknown>>>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function text(k: Kind & { kind: 'text' }, v: unknown, name: string): string {
  const s = k.nonEmpty ? f.nonEmpty(v, name, k.text) : f.string(v, name, k.text);
  if (k.pattern && !k.pattern.test(s)) throw f.reject(name, k.rule ?? `text matching ${k.pattern}`, s);
  return s;
}

function number(k: Kind & { kind: 'number' }, v: unknown, name: string): number {
  const n = f.number(v, name);
  const { min = -Infinity, max = Infinity } = k;
  if (n < min || n > max) throw f.reject(name, `a number from ${min} to ${max}`, n);
  return n;
}

/** A present value of a field's kind (a tick kind reads its key from `rec` itself). */
function value(k: Field, v: unknown, name: string, rec: f.Rec): unknown {
  switch (k.kind) {
    case 'text':
      return text(k, v, name);
    case 'integer':
      return f.integer(v, name, k.min, k.max);
    case 'bigint':
      return f.optBigInteger(v, name);
    case 'number':
      return number(k, v, name);
    case 'boolean':
      return f.boolean(v, name);
    case 'timestamp':
      return f.timestamp(v, name);
    case 'date':
      return f.date(v, name);
    case 'symbol':
      return f.symbol(v, name);
    case 'cik':
      return f.cik(v, name);
    case 'uuid':
      if (typeof v !== 'string' || !UUID.test(v)) throw f.reject(name, 'a UUID', v);
      return v;
    case 'enum':
      return f.oneOf(v, name, k.values);
    case 'json':
      return k.object ? f.anyJson(f.object(v, name), name) : f.anyJson(v, name);
    case 'strings':
      return f.strings(v, name, k.text, k.list);
    case 'symbols':
      return f.symbols(v, name, k.list);
    case 'integers':
      return f.array(v, name).map((n, i) => f.integer(n, `${name}[${i}]`, k.min));
    case 'values':
      return f.anyJson(f.array(v, name), name);
    case 'objects':
      return f.objects(v, name, (item, at) => parseWith(k.fields, item, {}, `${at}.`));
    case 'object':
      return parseWith(k.fields, f.object(v, name), {}, `${name}.`);
    case 'uint64':
      return uint64Field(rec, k.key);
    case 'int32':
      return intField(rec, k.key);
    case 'amount':
      return numberField(rec, k.key);
    case 'tickId':
      return stringField(rec, k.key);
    case 'conditions':
      return conditionsField(rec);
  }
}

/** Absent or null: what the row holds then (see Missing); `json` reads absent as null itself. */
function whenMissing(k: Field): unknown {
  if (k.kind === 'json') return k.object ? {} : null;
  return k.missing === 'stamp' ? undefined : null;
}

/** Sets the columns one field gives: its column's value, or a nested object's columns. */
function parseInto(row: Record<string, unknown>, k: Field, rec: f.Rec, prefix: string): void {
  const v = rec[k.key];
  const name = prefix === '' ? k.key : `${prefix}${k.key}`;
  if (k.kind === 'object' && k.column === undefined) Object.assign(row, value(k, v, name, rec));
  else if (k.missing === 'keep' && v === undefined) row[k.column!] = undefined;
  else if ((k.missing !== undefined || k.kind === 'json') && (v === undefined || v === null))
    row[k.column!] = whenMissing(k);
  else row[k.column!] = value(k, v, name, rec);
}

/** The columns one field gives, for a hook that reads its key from a record of its own making. */
export function parseField(k: Field, rec: f.Rec, prefix = ''): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  parseInto(row, k, rec, prefix);
  return row;
}

function parseWith(table: RecordTable, rec: f.Rec, hooks: ParseHooks, prefix: string): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const k of table) {
    if (k.derived) continue;
    const hook = hooks[k.key];
    if (hook) Object.assign(row, hook(rec));
    else parseInto(row, k, rec, prefix);
  }
  return row;
}

/** The record -> row parse of a table, in the table's order; `hooks` read the irregular keys. */
export function parseRecord(table: RecordTable, rec: f.Rec, hooks: ParseHooks = {}): Record<string, unknown> {
  return parseWith(table, rec, hooks, '');
}
