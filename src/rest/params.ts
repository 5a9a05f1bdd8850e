import { API_KEY_PARAMS } from '../auth/caller.js';
import { MAX_SYMBOLS, parseSymbol, parseSymbols } from '../domain/symbols.js';
import { INT64 } from '../domain/integers.js';
import {
  calendarDate,
  inclusiveEnd,
  inclusiveStart,
  parseTime,
  spanNs,
  timeAsDate,
  TIME_FORMS,
} from '../domain/time.js';
import { AppError } from '../errors.js';

/**
 * Query-parameter definitions: the one source for reading a REST request and for describing it in
 * the OpenAPI document (rest/openapi.ts). What the routes accept is decided here for all of them
 * (docs/rest.md#what-the-routes-accept): a name no definition has is set aside and named in
 * X-Ignored-Parameters (splitQuery); a value that breaks its definition is a 400 naming the
 * parameter and the value; enum values and booleans are read whatever their case; every date or
 * time is read by domain/time.ts.
 */
interface Base {
  description: string;
  required?: boolean;
  /** Other names the parameter answers to, where the legacy API leaves its name open (docs/rest.md#what-the-routes-accept). */
  aliases?: readonly string[];
}
export interface StringParam extends Base {
  type: 'string';
  /** Tested on the value as given (before `case` folds it). */
  pattern?: RegExp;
  /** The allowed values, as the answer and the OpenAPI document spell them; a value in another case is read as its member. */
  enum?: readonly string[];
  maxLength?: number;
  /**
   * `date`: a calendar date (a time with it only at midnight UTC); `time`: an instant, or a date
   * alone (see `bound`); `time-or-nanos`: the same, or nanoseconds since the epoch. Every form is
   * domain/time.ts's.
   */
  format?: 'date' | 'time' | 'time-or-nanos';
  /**
   * Which end of a date alone a time takes: `start` (a lower bound, or an exclusive upper one: the
   * default of `time`) or `end` (its last instant: an inclusive upper bound, or an exclusive lower
   * one). A `time-or-nanos` without it is the span a date covers (nanoseconds [first, last]).
   */
  bound?: 'start' | 'end';
  /** The value folded to this case once checked: symbols are upper case, sort keys lower. */
  case?: 'upper' | 'lower';
  default?: string;
  /** A comma list that may also come as the name given once a value (`tickers=A&tickers=B`, as Massive's client sends an array): read as the values joined by commas. */
  list?: boolean;
}
export interface IntegerParam extends Base {
  type: 'integer';
  minimum?: number;
  maximum?: number;
  /** The page's size: with a cursor, a value given is honoured (rest/next-url.ts). */
  pageSize?: boolean;
  default?: number;
}
export interface BooleanParam extends Base {
  type: 'boolean';
  default?: boolean;
}
export type ParamSpec = StringParam | IntegerParam | BooleanParam;
export type ParamSpecs = Record<string, ParamSpec>;

type ValueOf<P extends ParamSpec> = P extends IntegerParam
  ? number
  : P extends BooleanParam
    ? boolean
    : P extends { format: 'time' }
      ? Date
      : P extends { format: 'time-or-nanos'; bound: 'start' | 'end' }
        ? bigint
        : P extends { format: 'time-or-nanos' }
          ? readonly [bigint, bigint]
          : string;
export type ParamValues<S extends ParamSpecs> = {
  [K in keyof S]: S[K] extends { required: true } | { default: unknown } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

export function badParam(name: string, rule: string, value: string): AppError {
  return new AppError('BAD_REQUEST', `parameter ${name} must be ${rule}; got ${quoted(value)}`);
}

/** A value a client sent, as a message shows it: quoted, and cut past 200 characters. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}

function parseTimeValue(name: string, spec: StringParam, raw: string): unknown {
  if (spec.format === 'time-or-nanos' && /^\d{1,19}$/.test(raw)) {
    const ns = BigInt(raw);
    if (ns > INT64.max) throw badParam(name, 'nanoseconds that fit in 64 bits', raw);
    return spec.bound ? ns : [ns, ns];
  }
  const t = parseTime(raw);
  switch (spec.format) {
    case 'date': {
      const date = t && calendarDate(t);
      if (date === undefined) throw badParam(name, 'a date YYYY-MM-DD (with a time, only midnight UTC)', raw);
      return date;
    }
    case 'time': {
      if (!t) throw badParam(name, TIME_FORMS, raw);
      const d = timeAsDate(t);
      return spec.bound === 'end' ? inclusiveEnd(d) : inclusiveStart(d);
    }
    case 'time-or-nanos': {
      if (!t) throw badParam(name, `${TIME_FORMS}, or nanoseconds since the epoch`, raw);
      const [first, last] = spanNs(t);
      return spec.bound === 'start' ? first : spec.bound === 'end' ? last : [first, last];
    }
    default:
      return raw;
  }
}

function parseString(name: string, spec: StringParam, raw: string): unknown {
  if (spec.maxLength !== undefined && raw.length > spec.maxLength)
    throw badParam(name, `at most ${spec.maxLength} characters`, raw);
  if (spec.enum) {
    const folded = raw.toLowerCase();
    const member = spec.enum.find((value) => value.toLowerCase() === folded);
    if (member === undefined) throw badParam(name, `one of ${spec.enum.join(', ')}`, raw);
    return member;
  }
  if (spec.pattern && !spec.pattern.test(raw)) throw badParam(name, `of the form ${spec.pattern.source}`, raw);
  const value = spec.case === 'upper' ? raw.toUpperCase() : spec.case === 'lower' ? raw.toLowerCase() : raw;
  return spec.format ? parseTimeValue(name, spec, value) : value;
}

/** One value of a parameter, checked against its definition. */
export function parseValue(name: string, spec: ParamSpec, raw: string): unknown {
  // no text column stores U+0000 (PostgreSQL refuses it), and no identifier or filter needs it
  if (raw.includes('\u0000')) throw badParam(name, 'text without NUL characters (U+0000)', raw);
  switch (spec.type) {
    case 'integer': {
      if (!/^-?\d{1,15}$/.test(raw)) throw badParam(name, 'an integer', raw);
      const n = Number(raw);
      if ((spec.minimum !== undefined && n < spec.minimum) || (spec.maximum !== undefined && n > spec.maximum)) {
        const range =
          spec.maximum === undefined
            ? `at least ${spec.minimum}`
            : spec.minimum === undefined
              ? `at most ${spec.maximum}`
              : `from ${spec.minimum} to ${spec.maximum}`;
        throw badParam(name, `an integer ${range}`, raw);
      }
      return n;
    }
    case 'boolean': {
      const folded = raw.toLowerCase();
      if (folded === 'true' || folded === 'false') return folded === 'true';
      throw badParam(name, 'true or false', raw);
    }
    case 'string':
      return parseString(name, spec, raw);
  }
}

// ------------------------------------------------------------------ names

/** Parameters every route accepts on top of its own: the API key, in either spelling (auth/caller.ts reads it). */
export const COMMON_PARAMS: ReadonlySet<string> = new Set(API_KEY_PARAMS);

const aliasTables = new WeakMap<ParamSpecs, ReadonlyMap<string, string>>();

/** Alias -> parameter, in a Map: a name a client sends is never looked up on an object's prototype. */
function aliasesOf(specs: ParamSpecs): ReadonlyMap<string, string> {
  let table = aliasTables.get(specs);
  if (!table) {
    const map = new Map<string, string>();
    for (const [name, spec] of Object.entries(specs)) for (const alias of spec.aliases ?? []) map.set(alias, name);
    aliasTables.set(specs, (table = map));
  }
  return table;
}

/** The parameter a name given in a query stands for (its own name or an alias), or undefined. */
export function parameterOf(specs: ParamSpecs, sent: string): string | undefined {
  return Object.hasOwn(specs, sent) ? sent : aliasesOf(specs).get(sent);
}

/**
 * The query a route reads, and the names it sets aside: every name its definitions lack (`specs`
 * undefined: a route without parameters), but the common ones. Names by their own keys, so
 * `constructor` or `__proto__` are names a client may send, never properties of every object.
 */
export function splitQuery(
  specs: ParamSpecs | undefined,
  query: URLSearchParams,
): { query: URLSearchParams; ignored: string[] } {
  const known = new URLSearchParams();
  const ignored = new Set<string>();
  for (const [name, value] of query) {
    if (COMMON_PARAMS.has(name) || (specs && parameterOf(specs, name) !== undefined)) known.append(name, value);
    else ignored.add(name);
  }
  return { query: known, ignored: [...ignored] };
}

/** A parameter as a query gave it: under which name, and its value. */
export interface GivenParam {
  sent: string;
  value: string;
}

/**
 * The route's parameters a query gives, by their own names (an alias read as its parameter); a
 * name given twice, or one parameter under two of its names, is a 400. Other names are skipped.
 */
export function givenParams(specs: ParamSpecs, query: URLSearchParams): Map<string, GivenParam> {
  const out = new Map<string, GivenParam>();
  for (const sent of new Set(query.keys())) {
    const name = parameterOf(specs, sent);
    if (name === undefined) continue;
    const values = query.getAll(sent);
    const list = (specs[name] as StringParam).list === true;
    if (values.length > 1 && !list) throw new AppError('BAD_REQUEST', `parameter ${sent} is given more than once`);
    const before = out.get(name);
    if (before) {
      const [a, b] = before.sent === name ? [name, sent] : sent === name ? [name, before.sent] : [before.sent, sent];
      throw new AppError(
        'BAD_REQUEST',
        a === name
          ? `parameter ${a} and its alias ${b} are both given; give one`
          : `parameters ${a} and ${b} are both aliases of ${name}; give one`,
      );
    }
    out.set(name, { sent, value: list ? values.join(',') : values[0]! });
  }
  return out;
}

function requiredMessage(name: string, spec: ParamSpec): string {
  const aliases = spec.aliases ?? [];
  if (aliases.length === 0) return `parameter ${name} is required`;
  return `parameter ${name} (or its alias${aliases.length > 1 ? 'es' : ''} ${aliases.join(', ')}) is required`;
}

/** Validates a query against its definitions; returns typed values with defaults applied. An empty value is no value. */
export function parseQuery<S extends ParamSpecs>(specs: S, query: URLSearchParams): ParamValues<S> {
  const given = givenParams(specs, query);
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = given.get(name)?.value;
    if (raw === undefined || raw === '') {
      if (spec.required) throw new AppError('BAD_REQUEST', requiredMessage(name, spec));
      out[name] = spec.default;
      continue;
    }
    out[name] = parseValue(name, spec, raw);
  }
  return out as ParamValues<S>;
}

// ------------------------------------------------------------------ the names set aside

/** The response header naming what a request's query held that the route set aside. */
export const IGNORED_HEADER = 'x-ignored-parameters';
/** The names come from the caller: the header shows at most this many, each cut to MAX_IGNORED_NAME code points. */
export const MAX_IGNORED_SHOWN = 20;
export const MAX_IGNORED_NAME = 40;

/**
 * X-Ignored-Parameters: the names, each percent-encoded as in a query string (so a comma or a
 * line break in one cannot split the list or the header), separated by `, `; past
 * MAX_IGNORED_SHOWN, a last entry `+N` says how many more (a `+` in a name is encoded, `%2B`).
 */
export function ignoredHeader(names: readonly string[]): string {
  const unique = [...new Set(names)];
  const shown = unique.slice(0, MAX_IGNORED_SHOWN).map((name) => {
    // by code points, so no surrogate pair is split (encodeURIComponent refuses half of one)
    const cut = Array.from(name.slice(0, 2 * MAX_IGNORED_NAME))
      .slice(0, MAX_IGNORED_NAME)
      .join('');
    return encodeURIComponent(cut.length < name.length ? `${cut}…` : cut);
  });
  if (unique.length > MAX_IGNORED_SHOWN) shown.push(`+${unique.length - MAX_IGNORED_SHOWN}`);
  return shown.join(', ');
}

// ------------------------------------------------------------------ times, symbols and ranges

/** The forms a time parameter takes, as its description says them; a date alone stands for its day's start or end. */
export function timeFormsText(bound: 'start' | 'end'): string {
  return `A date YYYY-MM-DD (${bound === 'start' ? 'from the start' : 'through the end'} of that day, UTC), YYYY-MM-DD HH:MM:SS, or ISO 8601 such as 2026-01-31T14:30:00Z or 2026-01-31T09:30:00-05:00; UTC when no zone is given.`;
}

/** A lower (`start`) or inclusive upper (`end`) bound on a time, in every form domain/time.ts reads. */
export function timeBound<B extends 'start' | 'end'>(bound: B, description: string) {
  return { type: 'string', format: 'time', bound, description: `${description} ${timeFormsText(bound)}` } as const;
}

// The symbol rule is domain/symbols.ts's; these only say it in the words of a REST parameter.

/** SYMBOL_PATTERN as a parameter's pattern shows it: lower case is accepted, and upper-cased. */
export const SYMBOL_PARAM_PATTERN = /^[A-Za-z0-9.-]{1,20}$/;

/** One symbol, upper-cased; anything else is a 400 naming `name`. */
export function symbolParam(name: string, raw: string): string {
  try {
    return parseSymbol(raw, name);
  } catch (err) {
    if (err instanceof AppError) throw badParam(name, 'a symbol of 1 to 20 characters of A-Z 0-9 . -', raw);
    throw err;
  }
}

/** A comma list of symbols, upper-cased and de-duplicated; anything else is a 400 naming `name`. */
export function symbolList(name: string, raw: string, max = MAX_SYMBOLS): string[] {
  try {
    return parseSymbols(raw, name, max);
  } catch (err) {
    if (err instanceof AppError)
      throw badParam(name, `a comma list of 1 to ${max} symbols, each 1 to 20 characters of A-Z 0-9 . -`, raw);
    throw err;
  }
}

/**
 * `from` after `to` selects nothing by construction: a 400, as GraphQL answers. The bounds are
 * read (a date alone as `to` is its whole day) and shown as the client wrote them when `raw` is
 * given, else as ISO times.
 */
export function checkOrder(from: Date | undefined, to: Date | undefined, raw?: URLSearchParams): void {
  if (from && to && from.getTime() > to.getTime()) {
    const shown = (name: 'from' | 'to', value: Date) => (raw ? quoted(raw.get(name) ?? '') : value.toISOString());
    throw new AppError(
      'BAD_REQUEST',
      `parameter from (${shown('from', from)}) is after parameter to (${shown('to', to)})`,
    );
  }
}
