// Validators for the fields of an imported record: each takes the value received and the field's
// name as the spec writes it (`logos.png.url`, `Securities[2].figi`), returns the typed value, or
// throws a RejectError naming the field, the rule and the value received.
import { RejectError } from './importer.js';

export type Rec = Record<string, unknown>;

function show(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (typeof value === 'bigint') return String(value);
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function reject(field: string, rule: string, value: unknown): RejectError {
  return new RejectError(`${field}: must be ${rule}, got ${show(value)}`);
}

const isObject = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

export function object(value: unknown, field: string): Rec {
  if (!isObject(value)) throw reject(field, 'an object', value);
  return value;
}

/** A record: a JSON object. */
export function record(value: unknown): Rec {
  if (!isObject(value)) throw new RejectError(`the record must be a JSON object, got ${show(value)}`);
  return value;
}

export function string(value: unknown, field: string): string {
  if (typeof value !== 'string') throw reject(field, 'a string', value);
  return value;
}

export function nonEmpty(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw reject(field, 'a non-empty string', value);
  return value;
}

/** Absent or null: null. */
export function optString(value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : string(value, field);
}

export function number(value: unknown, field: string): number {
  // an integer literal past 2^53 arrives as a bigint (ingest/json.ts); as an amount it is a double
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw reject(field, 'a number', value);
  return value;
}

export function optNumber(value: unknown, field: string): number | null {
  return value === undefined || value === null ? null : number(value, field);
}

export function integer(value: unknown, field: string, min = -2_147_483_648, max = 2_147_483_647): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw reject(field, `an integer from ${min} to ${max}`, value);
  return value;
}

export function optInteger(value: unknown, field: string, min?: number, max?: number): number | null {
  return value === undefined || value === null ? null : integer(value, field, min, max);
}

/** A 64-bit integer: a JSON number (exact only up to 2^53) or a string of digits. */
export function optBigInteger(value: unknown, field: string): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  throw reject(field, 'an integer (a JSON number, or a string of digits)', value);
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw reject(field, 'true or false', value);
  return value;
}

export function oneOf<T extends string>(value: unknown, field: string, values: readonly T[]): T {
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) throw reject(field, `one of ${values.join(', ')}`, value);
  return value as T;
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** `yyyy-mm-dd` naming a day that exists. */
export function date(value: unknown, field: string): string {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw reject(field, 'a date yyyy-mm-dd', value);
  return value as string;
}

export function optDate(value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : date(value, field);
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 timestamp (`2026-01-31T14:30:00.000Z`); without a zone it is UTC. Precision: milliseconds. */
export function timestamp(value: unknown, field: string): Date {
  const m = typeof value === 'string' ? TIMESTAMP.exec(value) : null;
  const rule = 'an ISO 8601 timestamp such as 2026-01-31T14:30:00Z';
  if (!m) throw reject(field, rule, value);
  const [, y, mo, d, h, mi, s = '00', frac = '', zone = 'Z'] = m;
  if (!isCalendarDate(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw reject(field, rule, value);
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, '0').slice(0, 3)}${offset}`);
  if (Number.isNaN(at.getTime())) throw reject(field, rule, value);
  return at;
}

/** Absent or null: undefined (the store keeps or stamps its own, as for created_at / updated_at). */
export function optTimestamp(value: unknown, field: string): Date | undefined {
  return value === undefined || value === null ? undefined : timestamp(value, field);
}

export function array(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw reject(field, 'an array', value);
  return value;
}

export function strings(value: unknown, field: string): string[] {
  return array(value, field).map((v, i) => string(v, `${field}[${i}]`));
}

/** An array of objects, each read by `each` with its own path (`field[i]`) for the names of its fields. */
export function objects<T>(value: unknown, field: string, each: (item: Rec, path: string) => T): T[] {
  return array(value, field).map((v, i) => each(object(v, `${field}[${i}]`), `${field}[${i}]`));
}

/** Any JSON value (an opaque vendor field); absent is null. */
export function anyJson(value: unknown): unknown {
  return value === undefined ? null : value;
}

/** A SEC Central Index Key, 1 to 10 digits, stored zero-padded to 10. */
export function cik(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value)) throw reject(field, 'a CIK of 1 to 10 digits', value);
  return value.padStart(10, '0');
}

export function optCik(value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : cik(value, field);
}

/** The records of a body that is a bare array, or an object holding the array under `key`. */
export function listIn(body: unknown, key: string): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (isObject(body) && Array.isArray(body[key])) return body[key] as unknown[];
  return null;
}

export const isoOf = (d: Date | undefined): string | undefined => d?.toISOString();
