/** A SEC Central Index Key as a filter, a lookup or an import takes it: 1 to 10 digits, leading zeros optional. */
export const CIK_PATTERN = /^[0-9]{1,10}$/;

const CIK_DIGITS = 10;

/** The 10 digits a CIK is stored with; `cik` matches CIK_PATTERN. */
export function padCik(cik: string): string {
  return cik.padStart(CIK_DIGITS, '0');
}

/** How a CIK search matches, as the REST parameter and the GraphQL enum value describe it (cikPrefixes). */
export const CIK_SEARCH_RULE =
  'A CIK matches by prefix: a query with a leading zero is the beginning of the 10-digit zero-padded CIK (`0004` finds 0004000000 to 0004999999); one without is the beginning of the CIK as a number, without its leading zeros (`42` finds 42, 420 to 429, 4200 to 4299, and so on, and 4200000000 to 4299999999). A query that is not 1 to 10 digits finds nothing.';

/**
 * The beginnings of a stored (zero-padded) CIK that the CIK search `query` matches, any one of
 * them (CIK_SEARCH_RULE): the query itself when it has a leading zero; else the query behind each
 * number of zeros that keeps it within 10 digits, one beginning per length of the CIK. These are
 * disjoint (each has its first non-zero digit at a different place), so their counts add up.
 */
export function cikPrefixes(query: string): string[] {
  if (!CIK_PATTERN.test(query)) return [];
  if (query.startsWith('0')) return [query];
  return Array.from({ length: CIK_DIGITS - query.length + 1 }, (_, zeros) => '0'.repeat(zeros) + query);
}
