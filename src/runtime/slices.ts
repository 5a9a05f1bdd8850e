import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';

/**
 * Work done between two turns of the event loop by work over a whole collection (the search
 * engine's build, a search's scan, facets and sort): what a request arriving meanwhile waits behind
 * it, at most (bench/search-build.ts measures the loop's delay).
 */
export const SLICE_MS = 10;

/**
 * The pause of work over many items (search/order.ts's Pause), called between two chunks of it: it
 * returns a promise to await once `sliceMs` of work have passed since the last turn of the event
 * loop (the work then yields to I/O and timers, and goes on in a later turn), and undefined
 * otherwise. `check` runs at each call: a request's deadline, which throws to stop the work
 * (runtime/deadline.ts).
 */
export function slicer(sliceMs = SLICE_MS, check?: () => void): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    check?.();
    if (performance.now() - started < sliceMs) return undefined;
    return setImmediate().then(() => {
      started = performance.now();
    });
  };
}
