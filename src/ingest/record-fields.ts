// Validators for the fields of an imported record: each takes the value received and the field's
// name as the legacy record writes it (`logos.png.url`, `Securities[2].figi`), returns the typed value, or
// throws a RejectError naming the field, the rule and the value received. Text and lists are held
// to the limits of src/domain/limits.ts: text of a kind (default short), lists of a kind (default
// children), opaque JSON by its JSON text.
import { CIK_PATTERN, padCik } from '../domain/cik.js';
import { LIST_LIMITS, TEXT_LIMITS, type ListKind, type TextKind } from '../domain/limits.js';
import { normalizeSymbol } from '../domain/symbols.js';
import { RejectError } from './importer.js';

export type Rec = Record<string, unknown>;

const bigintAsDigits = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

const cut = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

function show(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (typeof value === 'bigint') return String(value);
  return cut(JSON.stringify(value, bigintAsDigits));
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

/**
 * What JSON writes as a six-character escape (a control character other than tab, newline and
 * carriage return; a lone surrogate), and DEL: text that holds one is refused.
 */
const UNSAFE_CHARACTER =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Text of `kind`: at most TEXT_LIMITS[kind] characters, and no character UNSAFE_CHARACTER matches. */
function text(value: string, field: string, kind: TextKind): string {
  const limit = TEXT_LIMITS[kind];
  if (value.length > limit)
    throw new RejectError(
      `${field}: must be at most ${limit} characters, got ${value.length} characters (${show(value)})`,
    );
  const bad = UNSAFE_CHARACTER.exec(value);
  if (bad) {
    const what =
      bad[0] >= '\uD800' ? `a lone surrogate ${codePoint(bad[0])}` : `the control character ${codePoint(bad[0])}`;
    throw new RejectError(
      `${field}: must be text without control characters (but tab, newline and carriage return) or lone surrogates, got ${what} at character ${bad.index + 1} (${show(value)})`,
    );
  }
  return value;
}

export function string(value: unknown, field: string, kind: TextKind = 'short'): string {
  if (typeof value !== 'string') throw reject(field, 'a string', value);
  return text(value, field, kind);
}

export function nonEmpty(value: unknown, field: string, kind: TextKind = 'short'): string {
  if (typeof value !== 'string' || value.trim() === '') throw reject(field, 'a non-empty string', value);
  return text(value, field, kind);
}

/** Absent or null: null. */
export function optString(value: unknown, field: string, kind: TextKind = 'short'): string | null {
  return value === undefined || value === null ? null : string(value, field, kind);
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
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw reject(field, `an integer from ${min} to ${max}`, value);
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
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value))
    throw reject(field, `one of ${values.join(', ')}`, value);
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
  if (!isCalendarDate(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    throw reject(field, rule, value);
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, '0').slice(0, 3)}${offset}`);
  if (Number.isNaN(at.getTime())) throw reject(field, rule, value);
  return at;
}

/** Absent or null: undefined (the store keeps or stamps its own, as for created_at / updated_at). */
export function optTimestamp(value: unknown, field: string): Date | undefined {
  return value === undefined || value === null ? undefined : timestamp(value, field);
}

/** An array of at most LIST_LIMITS[kind] items. */
export function array(value: unknown, field: string, kind: ListKind = 'children'): unknown[] {
  if (!Array.isArray(value)) throw reject(field, 'an array', value);
  const max = LIST_LIMITS[kind];
  if (value.length > max) throw new RejectError(`${field}: must have at most ${max} items, got ${value.length} items`);
  return value;
}

/** An array of at most LIST_LIMITS.children strings, each text of `kind`. */
export function strings(
  value: unknown,
  field: string,
  kind: TextKind = 'short',
  listKind: ListKind = 'children',
): string[] {
  return array(value, field, listKind).map((v, i) => string(v, `${field}[${i}]`, kind));
}

/** An array of at most LIST_LIMITS.children objects, each read by `each` with its own path (`field[i]`) for the names of its fields. */
export function objects<T>(value: unknown, field: string, each: (item: Rec, path: string) => T): T[] {
  return array(value, field).map((v, i) => each(object(v, `${field}[${i}]`), `${field}[${i}]`));
}

/** Deeper JSON is refused: vendor data is never that deep, and recursive readers (sameValue in src/db/upsert.ts) would run out of stack. */
const JSON_DEPTH = 32;

function nestedWithin(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth === 0) return false;
  return (Array.isArray(value) ? value : Object.values(value)).every((v) => nestedWithin(v, depth - 1));
}

/** Any JSON value (an opaque vendor field) of at most TEXT_LIMITS.json characters as JSON text, nested at most JSON_DEPTH deep; absent is null. */
export function anyJson(value: unknown, field: string): unknown {
  if (value === undefined) return null;
  if (!nestedWithin(value, JSON_DEPTH))
    throw new RejectError(`${field}: must be JSON nested at most ${JSON_DEPTH} levels deep, got deeper nesting`);
  const json = JSON.stringify(value, bigintAsDigits);
  if (json.length > TEXT_LIMITS.json)
    throw new RejectError(
      `${field}: must be at most ${TEXT_LIMITS.json} characters as JSON text, got ${json.length} characters (${cut(json)})`,
    );
  return value;
}

/** A SEC Central Index Key, 1 to 10 digits, stored zero-padded to 10 (domain/cik.ts). */
export function cik(value: unknown, field: string): string {
  if (typeof value !== 'string' || !CIK_PATTERN.test(value)) throw reject(field, 'a CIK of 1 to 10 digits', value);
  return padCik(value);
}

/** A ticker symbol by the rule every filter applies (domain/symbols.ts), stored upper-cased as filters ask for it. */
export function symbol(value: unknown, field: string): string {
  const named = normalizeSymbol(nonEmpty(value, field));
  if (named === undefined) throw reject(field, '1 to 20 characters from A-Z 0-9 . -', value);
  return named;
}

/** An array of at most LIST_LIMITS[listKind] symbols, each by `symbol`. */
export function symbols(value: unknown, field: string, listKind: ListKind = 'children'): string[] {
  return array(value, field, listKind).map((v, i) => symbol(v, `${field}[${i}]`));
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
