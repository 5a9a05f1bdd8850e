import { API_KEY_PARAMS } from '../auth/caller.js';
import { isCalendarDate } from '../domain/fiscal.js';
import { parseSymbol, parseSymbols } from '../domain/symbols.js';
import { AppError } from '../errors.js';

/**
 * Query-parameter definitions: the one source for validating a REST request and for describing it
 * in the OpenAPI document (rest/openapi.ts). A value that breaks its definition is a 400 naming
 * the parameter and the value; so is a parameter no definition names.
 */
interface Base {
  description: string;
  required?: boolean;
}
export interface StringParam extends Base {
  type: 'string';
  pattern?: RegExp;
  /** The pattern as the OpenAPI document shows it (the RegExp source by default). */
  enum?: readonly string[];
  maxLength?: number;
  /** `date`: YYYY-MM-DD; `datetime-space`: YYYY-MM-DD HH:MM:SS (UTC); `date-time`: ISO 8601. */
  format?: 'date' | 'datetime-space' | 'date-time';
  default?: string;
}
export interface IntegerParam extends Base {
  type: 'integer';
  minimum?: number;
  maximum?: number;
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
    : P extends { format: 'datetime-space' | 'date-time' }
      ? Date
      : string;
export type ParamValues<S extends ParamSpecs> = {
  [K in keyof S]: S[K] extends { required: true } | { default: unknown } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

export function badParam(name: string, rule: string, value: string): AppError {
  return new AppError(
    'BAD_REQUEST',
    `parameter ${name} must be ${rule}; got ${JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)}`,
  );
}

const DATETIME_SPACE = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function parseDate(name: string, spec: StringParam, raw: string): string | Date {
  switch (spec.format) {
    case 'date':
      if (!isCalendarDate(raw)) throw badParam(name, 'a date YYYY-MM-DD', raw);
      return raw;
    case 'datetime-space': {
      const m = DATETIME_SPACE.exec(raw);
      const d = m && isCalendarDate(m[1]!) ? new Date(`${m[1]}T${m[2]}Z`) : null;
      if (!d || Number.isNaN(d.getTime())) throw badParam(name, 'a UTC time YYYY-MM-DD HH:MM:SS', raw);
      return d;
    }
    case 'date-time': {
      // without a zone it is UTC, as the legacy API's examples are
      const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(raw.slice(10))
        ? raw
        : raw.length === 10
          ? `${raw}T00:00:00Z`
          : `${raw}Z`;
      const d = ISO.test(raw) && isCalendarDate(raw.slice(0, 10)) ? new Date(withZone) : null;
      if (!d || Number.isNaN(d.getTime())) throw badParam(name, 'an ISO 8601 time such as 2026-01-31T14:30:00', raw);
      return d;
    }
    default:
      return raw;
  }
}

function parseOne(name: string, spec: ParamSpec, raw: string): unknown {
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
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw badParam(name, 'true or false', raw);
    case 'string':
      if (spec.maxLength !== undefined && raw.length > spec.maxLength)
        throw badParam(name, `at most ${spec.maxLength} characters`, raw);
      if (spec.enum && !spec.enum.includes(raw)) throw badParam(name, `one of ${spec.enum.join(', ')}`, raw);
      if (spec.pattern && !spec.pattern.test(raw)) throw badParam(name, `of the form ${spec.pattern.source}`, raw);
      return parseDate(name, spec, raw);
  }
}

/** Parameters every route accepts on top of its own: the API key, in either spelling (auth/caller.ts). */
export const COMMON_PARAMS: ReadonlySet<string> = new Set(API_KEY_PARAMS);

/** A copy of `query` without the API key: what a route's own parameters are read from, and carried on in a next_url. */
export function withoutApiKey(query: URLSearchParams): URLSearchParams {
  const own = new URLSearchParams(query);
  for (const name of COMMON_PARAMS) own.delete(name);
  return own;
}

/**
 * Refuses a parameter `specs` does not define (by its own keys: `constructor` or `__proto__` are
 * names a client may send, not properties of every object) and one given more than once.
 */
export function checkParamNames(specs: ParamSpecs, query: URLSearchParams): void {
  for (const name of new Set(query.keys())) {
    if (!Object.hasOwn(specs, name) && !COMMON_PARAMS.has(name)) {
      const names = Object.keys(specs);
      const shown = JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
      throw new AppError(
        'BAD_REQUEST',
        `unknown parameter ${shown}; this path takes ${names.length ? names.join(', ') : 'no parameters'}`,
      );
    }
    if (query.getAll(name).length > 1) throw new AppError('BAD_REQUEST', `parameter ${name} is given more than once`);
  }
}

/** Validates a query against its definitions; returns typed values with defaults applied. */
export function parseQuery<S extends ParamSpecs>(specs: S, query: URLSearchParams): ParamValues<S> {
  checkParamNames(specs, query);
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = query.get(name);
    if (raw === null || raw === '') {
      if (spec.required) throw new AppError('BAD_REQUEST', `parameter ${name} is required`);
      out[name] = spec.default;
      continue;
    }
    // no text column stores U+0000 (PostgreSQL refuses it), and no identifier or filter needs it
    if (raw.includes('\u0000')) throw badParam(name, 'text without NUL characters (U+0000)', raw);
    out[name] = parseOne(name, spec, raw);
  }
  return out as ParamValues<S>;
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
export function symbolList(name: string, raw: string): string[] {
  try {
    return parseSymbols(raw, name);
  } catch (err) {
    if (err instanceof AppError)
      throw badParam(name, 'a comma list of 1 to 100 symbols, each 1 to 20 characters of A-Z 0-9 . -', raw);
    throw err;
  }
}

/**
 * `from` after `to` selects nothing by construction: a 400, as GraphQL answers. The bounds are
 * shown as the client wrote them when `raw` is given, else as ISO times.
 */
export function checkOrder(from: Date | undefined, to: Date | undefined, raw?: URLSearchParams): void {
  if (from && to && from.getTime() > to.getTime()) {
    const shown = (name: 'from' | 'to', value: Date) => (raw ? JSON.stringify(raw.get(name)) : value.toISOString());
    throw new AppError(
      'BAD_REQUEST',
      `parameter from (${shown('from', from)}) is after parameter to (${shown('to', to)})`,
    );
  }
}
