// What a parsed filter (search/syntax.ts) means for a security's values: the one rule the engine
// (search/engine.ts) applies.
import type { Value } from './order.js';
import type { Filter } from './syntax.js';

/**
 * `filter` as a test of a position, the tree walked once and each comparison bound to its column
 * (`columnOf`). A missing value fails every comparison, `!=` included, as SQL's NULL would.
 */
export function compileFilter(filter: Filter, columnOf: (field: string) => readonly Value[]): (i: number) => boolean {
  if ('of' in filter) {
    const parts = filter.of.map((part) => compileFilter(part, columnOf));
    return filter.op === 'and' ? (i) => parts.every((p) => p(i)) : (i) => parts.some((p) => p(i));
  }
  const column = columnOf(filter.field);
  const test = comparisonTest(filter);
  return (i) => test(column[i] ?? null);
}

/** One comparison of a filter as a test of its field's value. */
function comparisonTest(filter: Exclude<Filter, { op: 'and' | 'or' }>): (v: Value) => boolean {
  switch (filter.op) {
    case '=':
    case '!=': {
      const { values, ranges } = filter;
      const equal = filter.op === '=';
      return (v) => {
        if (v === null) return false;
        const hit = values.includes(v) || (typeof v === 'number' && ranges.some((r) => v >= r.from && v <= r.to));
        return equal ? hit : !hit;
      };
    }
    case '<':
      return (v) => typeof v === 'number' && v < filter.value;
    case '<=':
      return (v) => typeof v === 'number' && v <= filter.value;
    case '>':
      return (v) => typeof v === 'number' && v > filter.value;
    case '>=':
      return (v) => typeof v === 'number' && v >= filter.value;
  }
}
