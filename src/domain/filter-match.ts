// What a parsed filter (domain/search-syntax.ts) means for a row's values: the rule the search in
// memory applies (services/security-index.ts) and the SQL of db/search-filter.ts is held to.
import type { Filter } from './search-syntax.js';

/**
 * Whether a row whose fields `valueOf` gives passes `filter`, as the SQL of db/search-filter.ts
 * decides it: a null field fails every comparison, `!=` included.
 */
export function matchesFilter(filter: Filter, valueOf: (field: string) => string | number | boolean | null): boolean {
  switch (filter.op) {
    case 'and':
      return filter.of.every((f) => matchesFilter(f, valueOf));
    case 'or':
      return filter.of.some((f) => matchesFilter(f, valueOf));
    default:
      return comparisonTest(filter)(valueOf(filter.field));
  }
}

/** One comparison of a filter as a test of its field's value: the rule matchesFilter applies, for a caller that tests many values. */
export function comparisonTest(
  filter: Exclude<Filter, { op: 'and' | 'or' }>,
): (v: string | number | boolean | null) => boolean {
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
