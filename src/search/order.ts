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
 * Called between two chunks of work over many items (CHUNK items of a scan, one security of a
 * build): a promise to await to let the event loop turn (runtime/slices.ts), or undefined to go on;
 * it may throw to stop the work (a request's deadline). A chunk runs in a plain loop: V8 runs a
 * loop with an await in it several times slower (~15 ns an item against ~1, measured on the
 * commit that made these chunks).
 */
export type Pause = () => Promise<void> | undefined;

export const noPause: Pause = () => undefined;

/** Items of a scan, a sort or a count between two pauses: ~10-50 µs of work. */
export const CHUNK = 1024;

/** `run(from, to)` over [0, n) in chunks of CHUNK, pausing after each. */
export async function inChunks(n: number, run: (from: number, to: number) => void, pause: Pause): Promise<void> {
  for (let from = 0; from < n; from += CHUNK) {
    run(from, Math.min(n, from + CHUNK));
    const turn = pause();
    if (turn) await turn;
  }
}

/**
 * The first `k` of `items` by `compare`: a sorted buffer for a page, a full sort for a deep one
 * (a deep page of a metric sort compares the whole master ~16 times), pausing between chunks.
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
  await inChunks(
    items.length,
    (from, to) => {
      for (let at = from; at < to; at++) {
        const item = items[at]!;
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
    },
    pause,
  );
  return best;
}

/** Runs sorted by insertion before the merges begin. */
const RUN = 32;

/**
 * `items` sorted by `compare` (a copy), by a merge sort that pauses between chunks of CHUNK
 * comparisons: Array.prototype.sort cannot stop halfway, and a master of 50,000 takes ~800,000
 * comparisons. Runs of RUN are sorted by insertion, then merged pairwise, each merge resumable.
 */
export async function sortedBy(
  items: readonly number[],
  compare: (a: number, b: number) => number,
  pause: Pause = noPause,
): Promise<number[]> {
  const n = items.length;
  let from = items.slice();
  let to = new Array<number>(n);
  // CHUNK is a multiple of RUN: a chunk sorts whole runs
  await inChunks(
    n,
    (first, last) => {
      for (let lo = first; lo < last; lo += RUN) insertionSort(from, lo, Math.min(last, lo + RUN), compare);
    },
    pause,
  );
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const merge = { i: lo, j: Math.min(lo + width, n), out: lo };
      const mid = merge.j;
      const hi = Math.min(lo + 2 * width, n);
      while (merge.out < hi) {
        mergeSome(from, to, merge, mid, hi, compare);
        const turn = pause();
        if (turn) await turn;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

function insertionSort(a: number[], lo: number, hi: number, compare: (a: number, b: number) => number): void {
  for (let i = lo + 1; i < hi; i++) {
    const item = a[i]!;
    let j = i - 1;
    while (j >= lo && compare(a[j]!, item) > 0) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = item;
  }
}

/** Up to CHUNK more items of the merge of [merge.i, mid) and [mid, hi) of `from` into `to`, where it left off. */
function mergeSome(
  from: readonly number[],
  to: number[],
  merge: { i: number; j: number; out: number },
  mid: number,
  hi: number,
  compare: (a: number, b: number) => number,
): void {
  let { i, j, out } = merge;
  const stop = Math.min(hi, out + CHUNK);
  while (out < stop) to[out++] = i < mid && (j >= hi || compare(from[j]!, from[i]!) >= 0) ? from[i++]! : from[j++]!;
  merge.i = i;
  merge.j = j;
  merge.out = out;
}
