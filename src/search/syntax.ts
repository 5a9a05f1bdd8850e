import { AppError } from '../errors.js';

/**
 * Typesense's search parameters `filter_by`, `sort_by` and `facet_by`, parsed
 * against a catalogue of the fields a collection offers (search/fields.ts for the
 * security master). The engine (search/engine.ts) applies what they parse (search/filter.ts).
 *
 * Where this differs from Typesense, on purpose:
 * - `field:value` on a string field is an exact match, as `field:=value` is (Typesense's `:` matches
 *   words): the master's string fields are codes (MICs, countries, GICS sectors), not prose.
 * - Strings compare exactly, case and all, as the columns store them.
 * - A value with spaces or commas goes in backticks (`` `Health Care` ``); a bare word ends at a space.
 * - A field without a value (null) matches no comparison, `!=` included: SQL's `NOT (col = v)` is
 *   unknown there, and a WHERE keeps only what is true.
 */

/** A field a search may filter, sort or facet on, by the name the API gives it. */
export interface SearchField {
  name: string;
  kind: 'string' | 'number' | 'boolean';
  /** facet_by may name it (a number's facet is its stats) */
  facet?: boolean;
  /** sort_by may name it */
  sort?: boolean;
}

export type FilterValue = string | number | boolean;

/** Inclusive at both ends. */
export interface NumberRange {
  from: number;
  to: number;
}

/**
 * A parsed filter_by. `=` holds when the field is one of `values` or in one of `ranges`; `!=` when
 * it is none of them (and not null).
 */
export type Filter =
  | { op: 'and' | 'or'; of: Filter[] }
  | { op: '=' | '!='; field: string; values: FilterValue[]; ranges: NumberRange[] }
  | { op: '<' | '<=' | '>' | '>='; field: string; value: number };

export interface SortTerm {
  /** A sortable field's name, or TEXT_MATCH. */
  field: string;
  order: 'asc' | 'desc';
}

/** The relevance of a text query, as Typesense names it in sort_by. */
export const TEXT_MATCH = '_text_match';

/** What one parameter may ask for: enough for any filter a person writes, little for a hostile one. */
export const SEARCH_SYNTAX_LIMITS = {
  characters: 1000,
  comparisons: 50,
  depth: 10,
  listValues: 100,
  sortFields: 3,
  facetFields: 10,
} as const;

const FIELD_NAME = /[A-Za-z_][A-Za-z0-9_.]*/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;
/** A bare word: up to a space, a backtick or a character of the syntax. */
const WORD = /[^\s,()[\]`&|]+/y;
/** What may follow a number: a space, a character of the syntax, or the end. */
const AFTER_NUMBER = /(?:[\s,()[\]&|]|$)/y;
const OPERATOR = /!=|>=|<=|=|>|<|!(?=\s*\[)/y;

/** A cursor over one parameter's text; its errors name the parameter and the 1-based position. */
class Scanner {
  pos = 0;
  constructor(
    readonly text: string,
    readonly param: string,
  ) {
    if (text.length > SEARCH_SYNTAX_LIMITS.characters) {
      throw new AppError(
        'BAD_REQUEST',
        `${param} must be at most ${SEARCH_SYNTAX_LIMITS.characters} characters; got ${text.length}`,
      );
    }
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** Skips spaces, then consumes `token` if it is next. */
  eat(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }

  /** Consumes what the sticky `pattern` matches at the cursor, if anything. */
  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.pos;
    const m = pattern.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  /** What is at `at`, as an error message shows it. */
  found(at = this.pos): string {
    if (at >= this.text.length) return 'end of input';
    const rest = this.text.slice(at);
    if (rest.startsWith('&&') || rest.startsWith('||')) return JSON.stringify(rest.slice(0, 2));
    WORD.lastIndex = at;
    const word = WORD.exec(this.text)?.[0] ?? rest[0]!;
    return JSON.stringify(word.length > 40 ? `${word.slice(0, 40)}…` : word);
  }

  fail(message: string, at = this.pos): never {
    throw new AppError('BAD_REQUEST', `${this.param} at position ${at + 1}: ${message}`);
  }

  expected(what: string): never {
    this.skipSpace();
    return this.fail(`expected ${what}, found ${this.found()}`);
  }
}

const kindOf = (field: SearchField) =>
  field.kind === 'number' ? 'a number' : field.kind === 'boolean' ? 'true or false' : 'a string';

class FilterParser {
  private comparisons = 0;
  constructor(
    private readonly s: Scanner,
    private readonly fields: ReadonlyMap<string, SearchField>,
  ) {}

  parse(): Filter {
    const filter = this.or(0);
    this.s.skipSpace();
    if (!this.s.atEnd()) this.afterComparison('"&&", "||" or the end of filter_by');
    return filter;
  }

  private afterComparison(what: string): never {
    const found = this.s.found();
    const hint = /^"[^&|()[\],]/.test(found) ? ' (a value with spaces goes in backticks: `Health Care`)' : '';
    return this.s.fail(`expected ${what}, found ${found}${hint}`);
  }

  private or(depth: number): Filter {
    const of = [this.and(depth)];
    while (this.s.eat('||')) of.push(this.and(depth));
    return of.length === 1 ? of[0]! : { op: 'or', of };
  }

  private and(depth: number): Filter {
    const of = [this.primary(depth)];
    while (this.s.eat('&&')) of.push(this.primary(depth));
    return of.length === 1 ? of[0]! : { op: 'and', of };
  }

  private primary(depth: number): Filter {
    const s = this.s;
    s.skipSpace();
    if (s.text[s.pos] !== '(') return this.comparison();
    const open = s.pos;
    if (depth === SEARCH_SYNTAX_LIMITS.depth) s.fail(`parentheses nest at most ${SEARCH_SYNTAX_LIMITS.depth} deep`);
    s.pos++;
    const inner = this.or(depth + 1);
    if (!s.eat(')')) this.afterComparison(`"&&", "||" or ")" to close the "(" at position ${open + 1}`);
    return inner;
  }

  private comparison(): Filter {
    const s = this.s;
    const at = s.pos;
    const name = s.match(FIELD_NAME) ?? s.expected('a field name');
    const field =
      this.fields.get(name) ??
      s.fail(`unknown field ${JSON.stringify(name)}; the fields are ${[...this.fields.keys()].join(', ')}`, at);
    if (++this.comparisons > SEARCH_SYNTAX_LIMITS.comparisons)
      s.fail(`at most ${SEARCH_SYNTAX_LIMITS.comparisons} comparisons`, at);
    if (!s.eat(':')) s.expected(`":" after the field name ${name}`);
    s.skipSpace();
    const opAt = s.pos;
    const op = s.match(OPERATOR) ?? '';
    const after = JSON.stringify(`:${op}`);
    if (op === '<' || op === '<=' || op === '>' || op === '>=') {
      if (field.kind !== 'number') s.fail(`${after} compares numbers, and ${name} is a ${field.kind} field`, opAt);
      if (s.eat('[')) s.fail(`${after} takes one number, not a list`, s.pos - 1);
      return { op, field: name, value: this.number(field, after) };
    }
    const eq = op === '!=' || op === '!' ? '!=' : '=';
    s.skipSpace();
    if (s.text[s.pos] === '[') return { op: eq, field: name, ...this.list(field) };
    return { op: eq, field: name, values: [this.value(field, after)], ranges: [] };
  }

  /** `[item, …]`: values, and for a number field ranges `a..b` too. */
  private list(field: SearchField): { values: FilterValue[]; ranges: NumberRange[] } {
    const s = this.s;
    const open = s.pos++;
    const values: FilterValue[] = [];
    const ranges: NumberRange[] = [];
    let after = '"["';
    for (;;) {
      s.skipSpace();
      if (values.length + ranges.length === SEARCH_SYNTAX_LIMITS.listValues)
        s.fail(`a list holds at most ${SEARCH_SYNTAX_LIMITS.listValues} values`);
      const itemAt = s.pos;
      const value = this.value(field, after);
      if (typeof value === 'number' && s.eat('..')) {
        const to = this.number(field, '".."');
        if (value > to) s.fail(`the range [${value}..${to}] is empty: its start must not exceed its end`, itemAt);
        ranges.push({ from: value, to });
      } else values.push(value);
      if (s.eat(']')) return { values, ranges };
      if (!s.eat(',')) this.afterComparison(`"," or "]" to close the "[" at position ${open + 1}`);
      after = '","';
    }
  }

  private value(field: SearchField, after: string): FilterValue {
    if (field.kind === 'number') return this.number(field, after);
    const s = this.s;
    s.skipSpace();
    const at = s.pos;
    if (s.text[at] === '`') {
      const close = s.text.indexOf('`', at + 1);
      if (close < 0) s.fail('unclosed backtick: the value it opens has no closing "`"', at);
      if (field.kind !== 'string')
        s.fail(`${field.name} is a ${field.kind} field: expected ${kindOf(field)}, found a backtick-quoted string`, at);
      s.pos = close + 1;
      return s.text.slice(at + 1, close);
    }
    const word = s.match(WORD) ?? s.fail(`expected a value after ${after}, found ${s.found()}`);
    if (field.kind === 'string') {
      if (word.includes('..'))
        s.fail(`ranges compare numbers, and ${field.name} is a string field (a value with ".." goes in backticks)`, at);
      return word;
    }
    if (word === 'true' || word === 'false') return word === 'true';
    return s.fail(`${field.name} is a boolean field: expected true or false, found ${JSON.stringify(word)}`, at);
  }

  private number(field: SearchField, after: string): number {
    const s = this.s;
    s.skipSpace();
    const at = s.pos;
    const text = s.match(NUMBER);
    AFTER_NUMBER.lastIndex = s.pos;
    if (text === undefined || !(AFTER_NUMBER.test(s.text) || s.text.startsWith('..', s.pos))) {
      s.pos = at;
      if (s.text[at] === '`')
        s.fail(`${field.name} is a number field: expected a number, found a backtick-quoted string`);
      if (s.match(WORD) === undefined) s.fail(`expected a value after ${after}, found ${s.found()}`);
      s.fail(`${field.name} is a number field: expected a number, found ${s.found(at)}`, at);
    }
    const value = Number(text);
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER)
      s.fail(`${text} is out of range: a number must lie within ±${Number.MAX_SAFE_INTEGER}`, at);
    return value === 0 ? 0 : value; // -0 is 0
  }
}

/**
 * Parses Typesense's filter_by: comparisons `field:op value` joined by `&&` and `||` (`&&` binds
 * tighter), grouped by parentheses. Operators: `=` (or none), `!=`, `>`, `>=`, `<`, `<=`; a list
 * `[a, b]` after `=` or `!=` (or `!`) means one of (none of); `[a..b]` is an inclusive range of
 * numbers, and a list may mix ranges and numbers. Throws a BAD_REQUEST naming the 1-based position.
 */
export function parseFilterBy(text: string, fields: ReadonlyMap<string, SearchField>): Filter {
  return new FilterParser(new Scanner(text, 'filter_by'), fields).parse();
}

const fieldList = (fields: ReadonlyMap<string, SearchField>, which: (f: SearchField) => boolean | undefined) =>
  [...fields.values()].filter(which).map((f) => f.name);

/** Parses a comma list of field names, each checked by `check` (which throws); at most `max`, no repeats. */
function fieldNames(
  s: Scanner,
  max: number,
  check: (name: string, at: number) => void,
  then?: (name: string) => void,
): void {
  const seen = new Set<string>();
  do {
    s.skipSpace();
    const at = s.pos;
    const name = s.match(FIELD_NAME) ?? s.expected('a field name');
    if (seen.size === max) s.fail(`at most ${max} fields; this is field ${max + 1}`, at);
    check(name, at);
    if (seen.has(name)) s.fail(`${name} is named twice`, at);
    seen.add(name);
    then?.(name);
  } while (s.eat(','));
  s.skipSpace();
  if (!s.atEnd()) s.expected(`"," or the end of ${s.param}`);
}

/** Parses Typesense's sort_by, `field:desc,other:asc`: at most 3 sortable fields or `_text_match`. */
export function parseSortBy(text: string, fields: ReadonlyMap<string, SearchField>): SortTerm[] {
  const s = new Scanner(text, 'sort_by');
  const sortable = [...fieldList(fields, (f) => f.sort), TEXT_MATCH];
  const terms: SortTerm[] = [];
  const check = (name: string, at: number) => {
    if (!sortable.includes(name))
      s.fail(
        `${fields.has(name) ? 'cannot sort by' : 'unknown field'} ${JSON.stringify(name)}; sort_by takes ${sortable.join(', ')}`,
        at,
      );
  };
  fieldNames(s, SEARCH_SYNTAX_LIMITS.sortFields, check, (name) => {
    if (!s.eat(':')) s.expected(`":asc" or ":desc" after ${name}`);
    s.skipSpace();
    const at = s.pos;
    const order = s.match(/[A-Za-z]+/y)?.toLowerCase();
    if (order === 'asc' || order === 'desc') terms.push({ field: name, order });
    else s.fail(`expected "asc" or "desc" after "${name}:", found ${s.found(at)}`, at);
  });
  return terms;
}

/** Parses Typesense's facet_by: a comma list of at most 10 facetable fields, none twice. */
export function parseFacetBy(text: string, fields: ReadonlyMap<string, SearchField>): string[] {
  const s = new Scanner(text, 'facet_by');
  const facetable = fieldList(fields, (f) => f.facet);
  const names: string[] = [];
  const check = (name: string, at: number) => {
    if (!facetable.includes(name))
      s.fail(
        `${fields.has(name) ? 'cannot facet by' : 'unknown field'} ${JSON.stringify(name)}; facet_by takes ${facetable.join(', ')}`,
        at,
      );
  };
  fieldNames(s, SEARCH_SYNTAX_LIMITS.facetFields, check, (name) => names.push(name));
  return names;
}

/**
 * The bounds parseFilterBy holds a filter_by to, for a filter built another way (GraphQL's typed
 * `filter`, schema/security-search.ts): comparisons, nesting, list values, numbers. Throws a
 * BAD_REQUEST naming `argument`.
 */
export function checkFilterBounds(filter: Filter, argument: string): void {
  let comparisons = 0;
  const fail = (why: string): never => {
    throw new AppError('BAD_REQUEST', `${argument}: ${why}`);
  };
  const walk = (f: Filter, depth: number): void => {
    if ('of' in f) {
      if (depth > SEARCH_SYNTAX_LIMITS.depth) fail(`conditions nest at most ${SEARCH_SYNTAX_LIMITS.depth} deep`);
      for (const part of f.of) walk(part, depth + 1);
      return;
    }
    if (++comparisons > SEARCH_SYNTAX_LIMITS.comparisons)
      fail(`at most ${SEARCH_SYNTAX_LIMITS.comparisons} comparisons`);
    let numbers: number[];
    if ('value' in f) numbers = [f.value];
    else {
      if (f.values.length + f.ranges.length === 0) fail(`a list of values for ${f.field} needs at least one`);
      if (f.values.length + f.ranges.length > SEARCH_SYNTAX_LIMITS.listValues)
        fail(`a list holds at most ${SEARCH_SYNTAX_LIMITS.listValues} values; got ${f.values.length} for ${f.field}`);
      numbers = f.values.filter((v): v is number => typeof v === 'number');
    }
    const big = numbers.find((n) => !Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER);
    if (big !== undefined)
      fail(`${big} is out of range for ${f.field}: a number must lie within ±${Number.MAX_SAFE_INTEGER}`);
  };
  walk(filter, 0);
}
