import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';

/**
 * Work done between two turns of the event loop by work over a whole collection (the search
 * engine's build, a search's scan, facets and sort): what a request arriving meanwhile waits behind
 * it, at most (bench/search-build.ts measures the loop's delay).
 */
export const SLICE_MS = 10;

/** Calls between two reads of the clock: a loop's step is far shorter than a slice. */
const CALLS_PER_CLOCK_READ = 16;

/**
 * The pause of a loop over many items (search/engine.ts's Pause): called once per item, it returns
 * a promise to await once `sliceMs` of work have passed since the last turn of the event loop (the
 * loop then yields to I/O and timers, and goes on in a later turn), and undefined otherwise, so an
 * item costs no await. `check` runs at each read of the clock: a request's deadline, which throws to
 * stop the work (runtime/deadline.ts).
 */
export function slicer(sliceMs = SLICE_MS, check?: () => void): () => Promise<void> | undefined {
  let started = performance.now();
  let calls = 0;
  return () => {
    if (++calls < CALLS_PER_CLOCK_READ) return undefined;
    calls = 0;
    check?.();
    if (performance.now() - started < sliceMs) return undefined;
    return setImmediate().then(() => {
      started = performance.now();
    });
  };
}
