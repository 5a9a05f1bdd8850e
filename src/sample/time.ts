/**
 * The sample's clock: every date is relative to one fixed anchor instant, so the data set does not
 * depend on when it is generated.
 */

export const DAY_MS = 86_400_000;
/** Friday 2026-11-20, 16:00 New York time (EST): the close of the last session in the data set. */
export const ANCHOR_DAY_MS = Date.UTC(2026, 10, 20);
export const ANCHOR_MS = ANCHOR_DAY_MS + 21 * 3_600_000;

export const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** Last day of a month (1-based) at 00:00 UTC. */
export const monthEndMs = (year: number, month: number): number => Date.UTC(year, month, 0);
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
export const longDate = (ms: number): string => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
};
