import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../src/search/filter.js';
import { parseFacetBy, parseFilterBy, parseSortBy, type Filter, type SearchField } from '../../src/search/syntax.js';
import { AppError } from '../../src/errors.js';

const FIELDS: ReadonlyMap<string, SearchField> = new Map(
  (
    [
      { name: 'name', kind: 'string', sort: true },
      { name: 'exchange_info.mic_code', kind: 'string', facet: true },
      { name: 'classification.gics', kind: 'string', facet: true },
      { name: 'ticker_meta.active', kind: 'boolean', facet: true },
      { name: 'financials.market_cap', kind: 'number', facet: true, sort: true },
      { name: 'company_info.total_employees', kind: 'number', sort: true },
    ] satisfies SearchField[]
  ).map((f) => [f.name, f]),
);

const filter = (text: string) => parseFilterBy(text, FIELDS);
const mic = (...values: string[]): Filter => ({ op: '=', field: 'exchange_info.mic_code', values, ranges: [] });
const cap = (op: '<' | '<=' | '>' | '>=', value: number): Filter => ({ op, field: 'financials.market_cap', value });

/** The message of the BAD_REQUEST `fn` throws (and fails the test if it throws anything else). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('BAD_REQUEST');
    return (e as AppError).message;
  }
  throw new Error('expected a BAD_REQUEST, and nothing was thrown');
}

describe('parseFilterBy: the grammar', () => {
  it('reads every operator; `:` alone is an exact match, as `:=` is', () => {
    expect(filter('exchange_info.mic_code:XNAS')).toEqual(mic('XNAS'));
    expect(filter('exchange_info.mic_code:=XNAS')).toEqual(mic('XNAS'));
    expect(filter('exchange_info.mic_code:!=XNAS')).toEqual({ ...mic('XNAS'), op: '!=' });
    expect(filter('financials.market_cap:>10')).toEqual(cap('>', 10));
    expect(filter('financials.market_cap:>=10')).toEqual(cap('>=', 10));
    expect(filter('financials.market_cap:<10')).toEqual(cap('<', 10));
    expect(filter('financials.market_cap:<=10')).toEqual(cap('<=', 10));
    expect(filter('financials.market_cap:=10')).toEqual({
      op: '=',
      field: 'financials.market_cap',
      values: [10],
      ranges: [],
    });
  });

  it('reads integers, decimals and negatives, and spaces around every token', () => {
    expect(filter('financials.market_cap:>-2.5')).toEqual(cap('>', -2.5));
    expect(filter('  financials.market_cap : >=  0.125  ')).toEqual(cap('>=', 0.125));
    expect(filter('financials.market_cap:-0')).toEqual({
      op: '=',
      field: 'financials.market_cap',
      values: [0],
      ranges: [],
    });
  });

  it('reads lists after `:`, `:=`, `:!=` and `:!`, and ranges (inclusive, several, mixed with numbers)', () => {
    expect(filter('exchange_info.mic_code:[XNAS, XNYS]')).toEqual(mic('XNAS', 'XNYS'));
    expect(filter('exchange_info.mic_code:=[XNAS,XNYS]')).toEqual(mic('XNAS', 'XNYS'));
    expect(filter('exchange_info.mic_code:!=[XNAS, XNYS]')).toEqual({ ...mic('XNAS', 'XNYS'), op: '!=' });
    expect(filter('exchange_info.mic_code:![XNAS]')).toEqual({ ...mic('XNAS'), op: '!=' });
    expect(filter('financials.market_cap:[1..5]')).toEqual({
      op: '=',
      field: 'financials.market_cap',
      values: [],
      ranges: [{ from: 1, to: 5 }],
    });
    expect(filter('financials.market_cap:[-1.5 .. 5, 10..20, 42]')).toEqual({
      op: '=',
      field: 'financials.market_cap',
      values: [42],
      ranges: [
        { from: -1.5, to: 5 },
        { from: 10, to: 20 },
      ],
    });
    expect(filter('financials.market_cap:!=[1..5]')).toEqual({
      op: '!=',
      field: 'financials.market_cap',
      values: [],
      ranges: [{ from: 1, to: 5 }],
    });
  });

  it('reads backtick-quoted strings with spaces, commas and syntax in them; booleans as true and false', () => {
    expect(filter('classification.gics:`Health Care`')).toEqual({
      op: '=',
      field: 'classification.gics',
      values: ['Health Care'],
      ranges: [],
    });
    expect(filter('name:[`a, b`, `(x && y)`, ``]')).toEqual({
      op: '=',
      field: 'name',
      values: ['a, b', '(x && y)', ''],
      ranges: [],
    });
    expect(filter('ticker_meta.active:true')).toEqual({
      op: '=',
      field: 'ticker_meta.active',
      values: [true],
      ranges: [],
    });
    expect(filter('ticker_meta.active:!=false')).toEqual({
      op: '!=',
      field: 'ticker_meta.active',
      values: [false],
      ranges: [],
    });
    expect(filter('ticker_meta.active:[true, false]')).toEqual({
      op: '=',
      field: 'ticker_meta.active',
      values: [true, false],
      ranges: [],
    });
  });

  it('binds && tighter than ||, groups with parentheses, and flattens chains', () => {
    const [a, b, c] = [mic('A'), mic('B'), mic('C')];
    expect(filter('exchange_info.mic_code:A || exchange_info.mic_code:B && exchange_info.mic_code:C')).toEqual({
      op: 'or',
      of: [a, { op: 'and', of: [b, c] }],
    });
    expect(filter('exchange_info.mic_code:A && exchange_info.mic_code:B || exchange_info.mic_code:C')).toEqual({
      op: 'or',
      of: [{ op: 'and', of: [a, b] }, c],
    });
    expect(filter('(exchange_info.mic_code:A || exchange_info.mic_code:B) && exchange_info.mic_code:C')).toEqual({
      op: 'and',
      of: [{ op: 'or', of: [a, b] }, c],
    });
    expect(filter('exchange_info.mic_code:A&&exchange_info.mic_code:B&&exchange_info.mic_code:C')).toEqual({
      op: 'and',
      of: [a, b, c],
    });
    expect(filter('((exchange_info.mic_code:A))')).toEqual(a);
  });

  it('takes a string that looks like a number as a string on a string field', () => {
    expect(filter('exchange_info.mic_code:45')).toEqual(mic('45'));
  });
});

describe('parseFilterBy: refusals name filter_by, the 1-based position, and what was expected and found', () => {
  const cases: [string, string, string][] = [
    ['empty', '', 'filter_by at position 1: expected a field name, found end of input'],
    ['blank', '   ', 'filter_by at position 4: expected a field name, found end of input'],
    ['dangling &&', 'name:A && ', 'filter_by at position 11: expected a field name, found end of input'],
    ['dangling || before )', '(name:A ||)', 'filter_by at position 11: expected a field name, found ")"'],
    [
      'unclosed (',
      '(name:A && name:B',
      'filter_by at position 18: expected "&&", "||" or ")" to close the "(" at position 1, found end of input',
    ],
    ['stray )', 'name:A)', 'filter_by at position 7: expected "&&", "||" or the end of filter_by, found ")"'],
    [
      'unclosed [',
      'exchange_info.mic_code:[XNAS, XNYS',
      'filter_by at position 35: expected "," or "]" to close the "[" at position 24, found end of input',
    ],
    ['empty list', 'name:[]', 'filter_by at position 7: expected a value after "[", found "]"'],
    ['dangling comma', 'name:[A,]', 'filter_by at position 9: expected a value after ",", found "]"'],
    [
      'unclosed backtick',
      'name:`Health Care',
      'filter_by at position 6: unclosed backtick: the value it opens has no closing "`"',
    ],
    [
      'unknown field',
      'sector:Energy',
      'filter_by at position 1: unknown field "sector"; the fields are name, exchange_info.mic_code, classification.gics, ticker_meta.active, financials.market_cap, company_info.total_employees',
    ],
    ['no colon', 'name=A', 'filter_by at position 5: expected ":" after the field name name, found "=A"'],
    [':> on a string field', 'name:>A', 'filter_by at position 6: ":>" compares numbers, and name is a string field'],
    [
      ':<= on a boolean field',
      'ticker_meta.active:<=1',
      'filter_by at position 20: ":<=" compares numbers, and ticker_meta.active is a boolean field',
    ],
    [
      'no value after :>',
      'financials.market_cap:>',
      'filter_by at position 24: expected a value after ":>", found end of input',
    ],
    [
      'a word for a number',
      'financials.market_cap:>abc',
      'filter_by at position 24: financials.market_cap is a number field: expected a number, found "abc"',
    ],
    [
      'a number with a tail',
      'financials.market_cap:10M',
      'filter_by at position 23: financials.market_cap is a number field: expected a number, found "10M"',
    ],
    [
      'a backtick string for a number',
      'financials.market_cap:`10`',
      'filter_by at position 23: financials.market_cap is a number field: expected a number, found a backtick-quoted string',
    ],
    [
      'not a boolean',
      'ticker_meta.active:yes',
      'filter_by at position 20: ticker_meta.active is a boolean field: expected true or false, found "yes"',
    ],
    ['a list after :>', 'financials.market_cap:>[1, 2]', 'filter_by at position 24: ":>" takes one number, not a list'],
    [
      'an empty range',
      'financials.market_cap:[5..1]',
      'filter_by at position 24: the range [5..1] is empty: its start must not exceed its end',
    ],
    [
      'a range of strings',
      'name:[a..b]',
      'filter_by at position 7: ranges compare numbers, and name is a string field (a value with ".." goes in backticks)',
    ],
    [
      'a number past 2^53',
      'financials.market_cap:>9007199254740993',
      'filter_by at position 24: 9007199254740993 is out of range: a number must lie within ±9007199254740991',
    ],
    [
      'a value with a space',
      'classification.gics:Health Care',
      'filter_by at position 28: expected "&&", "||" or the end of filter_by, found "Care" (a value with spaces goes in backticks: `Health Care`)',
    ],
    [
      'a single &',
      'name:A & name:B',
      'filter_by at position 8: expected "&&", "||" or the end of filter_by, found "&"',
    ],
  ];
  it.each(cases)('%s', (_, text, message) => {
    expect(refusal(() => filter(text))).toBe(message);
  });

  it('bounds the text to 1,000 characters', () => {
    const ok = `name:${'x'.repeat(995)}`;
    expect(filter(ok)).toEqual({ op: '=', field: 'name', values: ['x'.repeat(995)], ranges: [] });
    expect(refusal(() => filter(`${ok}x`))).toBe('filter_by must be at most 1000 characters; got 1001');
  });

  it('bounds nesting to 10 parentheses deep', () => {
    expect(filter(`${'('.repeat(10)}name:A${')'.repeat(10)}`)).toEqual({
      op: '=',
      field: 'name',
      values: ['A'],
      ranges: [],
    });
    expect(refusal(() => filter(`${'('.repeat(11)}name:A${')'.repeat(11)}`))).toBe(
      'filter_by at position 11: parentheses nest at most 10 deep',
    );
  });

  it('bounds a list to 100 values', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
    expect(filter(`financials.market_cap:[${values(100)}]`)).toMatchObject({
      values: Array.from({ length: 100 }, (_, i) => i),
    });
    const text = `financials.market_cap:[${values(101)}]`;
    expect(refusal(() => filter(text))).toBe(
      `filter_by at position ${text.lastIndexOf(',') + 2}: a list holds at most 100 values`,
    );
  });

  it('bounds a filter to 50 comparisons', () => {
    const of = (n: number) => Array.from({ length: n }, () => 'name:A').join('||');
    expect(filter(of(50))).toMatchObject({ op: 'or' });
    expect(refusal(() => filter(of(51)))).toBe(`filter_by at position ${50 * 8 + 1}: at most 50 comparisons`);
  });
});

describe('parseSortBy and parseFacetBy', () => {
  it('sort_by: up to 3 sortable fields or _text_match, each with its direction', () => {
    expect(parseSortBy('financials.market_cap:desc, _text_match:asc,name:ASC', FIELDS)).toEqual([
      { field: 'financials.market_cap', order: 'desc' },
      { field: '_text_match', order: 'asc' },
      { field: 'name', order: 'asc' },
    ]);
  });

  it.each([
    ['empty', '', 'sort_by at position 1: expected a field name, found end of input'],
    ['a bad direction', 'name:up', 'sort_by at position 6: expected "asc" or "desc" after "name:", found "up"'],
    ['no direction', 'name', 'sort_by at position 5: expected ":asc" or ":desc" after name, found end of input'],
    [
      '4 fields',
      'name:asc,financials.market_cap:asc,company_info.total_employees:asc,_text_match:desc',
      'sort_by at position 69: at most 3 fields; this is field 4',
    ],
    [
      'an unsortable field',
      'exchange_info.mic_code:asc',
      'sort_by at position 1: cannot sort by "exchange_info.mic_code"; sort_by takes name, financials.market_cap, company_info.total_employees, _text_match',
    ],
    [
      'an unknown field',
      'name:asc, price:desc',
      'sort_by at position 11: unknown field "price"; sort_by takes name, financials.market_cap, company_info.total_employees, _text_match',
    ],
    ['a field twice', 'name:asc,name:desc', 'sort_by at position 10: name is named twice'],
    ['a trailing comma', 'name:asc,', 'sort_by at position 10: expected a field name, found end of input'],
    [
      'Typesense options we lack',
      'name(missing_values: first):asc',
      'sort_by at position 5: expected ":asc" or ":desc" after name, found "("',
    ],
  ])('sort_by refuses %s', (_, text, message) => {
    expect(refusal(() => parseSortBy(text, FIELDS))).toBe(message);
  });

  it('facet_by: a comma list of facetable fields', () => {
    expect(parseFacetBy('exchange_info.mic_code, financials.market_cap,ticker_meta.active', FIELDS)).toEqual([
      'exchange_info.mic_code',
      'financials.market_cap',
      'ticker_meta.active',
    ]);
  });

  it.each([
    [
      'a field that is not a facet',
      'exchange_info.mic_code,name',
      'facet_by at position 24: cannot facet by "name"; facet_by takes exchange_info.mic_code, classification.gics, ticker_meta.active, financials.market_cap',
    ],
    [
      'a field twice',
      'ticker_meta.active, ticker_meta.active',
      'facet_by at position 21: ticker_meta.active is named twice',
    ],
    ['empty', ' ', 'facet_by at position 2: expected a field name, found end of input'],
  ])('facet_by refuses %s', (_, text, message) => {
    expect(refusal(() => parseFacetBy(text, FIELDS))).toBe(message);
  });

  it('facet_by takes at most 10 fields', () => {
    const many: ReadonlyMap<string, SearchField> = new Map(
      Array.from({ length: 11 }, (_, i) => [`f${i}`, { name: `f${i}`, kind: 'string', facet: true }]),
    );
    const names = [...many.keys()];
    expect(parseFacetBy(names.slice(0, 10).join(','), many)).toEqual(names.slice(0, 10));
    expect(refusal(() => parseFacetBy(names.join(','), many))).toBe(
      `facet_by at position ${names.slice(0, 10).join(',').length + 2}: at most 10 fields; this is field 11`,
    );
  });
});

describe('compileFilter', () => {
  const row = (values: Record<string, string | number | boolean | null>) => (field: string) => values[field] ?? null;
  const listed = row({
    'exchange_info.mic_code': 'XNAS',
    'financials.market_cap': 5,
    'ticker_meta.active': true,
    name: 'Acme',
  });
  const bare = row({ 'exchange_info.mic_code': 'XNYS' });
  const matches = (text: string, valueOf = listed) => compileFilter(filter(text), (field) => [valueOf(field)])(0);

  it('compares, lists and ranges (inclusive at both ends)', () => {
    expect(matches('exchange_info.mic_code:[XNYS, XNAS]')).toBe(true);
    expect(matches('exchange_info.mic_code:!=[XNYS, XNAS]')).toBe(false);
    expect(matches('exchange_info.mic_code:xnas')).toBe(false); // exact: case and all
    expect(matches('financials.market_cap:[5..6]')).toBe(true);
    expect(matches('financials.market_cap:[1..5]')).toBe(true);
    expect(matches('financials.market_cap:[1..4.99, 6]')).toBe(false);
    expect(matches('financials.market_cap:>5')).toBe(false);
    expect(matches('financials.market_cap:>=5')).toBe(true);
    expect(matches('financials.market_cap:<5.5')).toBe(true);
    expect(matches('ticker_meta.active:false || name:Acme && financials.market_cap:<=5')).toBe(true);
    expect(matches('(ticker_meta.active:false || name:Acme) && financials.market_cap:<5')).toBe(false);
  });

  it('a null field matches no comparison, != included (as SQL would decide it)', () => {
    for (const text of [
      'financials.market_cap:!=1',
      'financials.market_cap:!=[1..9]',
      'financials.market_cap:<100',
      'ticker_meta.active:!=true',
      'name:!=Acme',
    ]) {
      expect(matches(text, bare), text).toBe(false);
    }
    expect(matches('financials.market_cap:!=1 || exchange_info.mic_code:XNYS', bare)).toBe(true);
  });
});
