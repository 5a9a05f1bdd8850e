/**
 * Money is generated in whole thousands of dollars, so every amount is an integer below 2^53 and
 * every sum (balance-sheet identities, statement subtotals, fiscal-year totals) is exact in
 * floating point.
 */

/** Whole thousands of dollars (`+ 0` turns -0 into 0). */
export const k = (x: number): number => Math.round(x / 1000) * 1000 + 0;
export const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0;
};
export const neg = (x: number): number => 0 - x;
export const money = (x: number): string => x.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
export const billions = (x: number): string =>
  Math.abs(x) >= 1e9 ? `$${(x / 1e9).toFixed(2)} billion` : `$${(x / 1e6).toFixed(1)} million`;
