/** A SEC Central Index Key as a filter, a lookup or an import takes it: 1 to 10 digits, leading zeros optional. */
export const CIK_PATTERN = /^[0-9]{1,10}$/;

/** The 10 digits a CIK is stored with; `cik` matches CIK_PATTERN. */
export function padCik(cik: string): string {
  return cik.padStart(10, '0');
}
