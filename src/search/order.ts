/**
 * The engine's order of values, its own and no database's: text by code point (what PostgreSQL's
 * `C` collation gives, and what no other collation can change here, since the engine sorts in
 * memory), numbers by value, `false` before `true`, a missing value last in either direction.
 */
export type Value = string | number | boolean | null;

/** Text by code point: UTF-16 code units, except that a surrogate pair (a code point past U+FFFF) sorts after U+E000–U+FFFF. */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Two values of one field, ascending or descending; a missing value is last either way. */
export function compareValues(a: Value, b: Value, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = typeof a === 'string' && typeof b === 'string' ? compareText(a, b) : a < b ? -1 : 1;
  return desc ? -c : c;
}

/**
 * Called once per step of work over many items: a promise to await to let the event loop turn
 * (runtime/slices.ts), or undefined to go on; it may throw to stop the work (a request's deadline).
 */
export type Pause = () => Promise<void> | undefined;

export const noPause: Pause = () => undefined;

/**
 * The first `k` of `items` by `compare`: a sorted buffer for a page, a full sort for a deep one,
 * pausing at every comparison (a deep page of a metric sort compares the whole master ~16 times).
 */
export async function topOf(
  items: number[],
  k: number,
  compare: (a: number, b: number) => number,
  pause: Pause = noPause,
): Promise<number[]> {
  if (k <= 0) return [];
  if (k * 16 >= items.length) return (await sortedBy(items, compare, pause)).slice(0, k);
  const best: number[] = [];
  for (const item of items) {
    const turn = pause();
    if (turn) await turn;
    if (best.length === k && compare(item, best[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, item);
    if (best.length > k) best.pop();
  }
  return best;
}

/**
 * `items` sorted by `compare` (a copy), by a bottom-up merge sort that pauses at every comparison:
 * Array.prototype.sort cannot stop halfway, and a master of 50,000 takes ~800,000 comparisons.
 */
export async function sortedBy(
  items: readonly number[],
  compare: (a: number, b: number) => number,
  pause: Pause = noPause,
): Promise<number[]> {
  const n = items.length;
  let from = items.slice();
  let to = new Array<number>(n);
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let out = lo;
      while (i < mid && j < hi) {
        to[out++] = compare(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        const turn = pause();
        if (turn) await turn;
      }
      while (i < mid) to[out++] = from[i++]!;
      while (j < hi) to[out++] = from[j++]!;
    }
    [from, to] = [to, from];
  }
  return from;
}
