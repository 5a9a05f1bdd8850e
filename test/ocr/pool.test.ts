import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.js';
import { PSM, type OcrEngine, type OcrPage, type PageSegmentation } from '../../src/ocr/engine.js';
import { readText } from '../../src/ocr/extract.js';
import { OcrPool, RECYCLE_PIXELS, type OcrPoolOptions } from '../../src/ocr/pool.js';

// The pool's rules with fake engines: fast and exact. test/ocr/ocr.test.ts runs the real one.

const PAGE: OcrPage = { words: [{ text: 'ok', x: 1, y: 2, confidence: 0.9 }], lines: ['ok'] };
const IMAGE = Buffer.from('image');

interface Fake extends OcrEngine {
  id: number;
  terminated: boolean;
}

/** Engines whose recognize does what `behave` says for the n-th call overall. */
function fakes(behave: (call: number) => Promise<OcrPage> = () => Promise.resolve(PAGE)) {
  const engines: Fake[] = [];
  let calls = 0;
  let running = 0;
  let maxRunning = 0;
  const createEngine = async () => {
    const engine: Fake = {
      id: engines.length,
      terminated: false,
      async recognize() {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        try {
          return await behave(calls++);
        } finally {
          running -= 1;
        }
      },
      async terminate() {
        engine.terminated = true;
      },
    };
    engines.push(engine);
    return engine;
  };
  return { engines, createEngine, maxRunning: () => maxRunning };
}

/** Pool options with generous limits, but for those the test names. */
const options = (o: Partial<OcrPoolOptions>): OcrPoolOptions => ({
  workers: 1,
  queueLimit: 4,
  queueTimeoutMs: 60_000,
  timeoutMs: 60_000,
  maxPixelsInFlight: 1e9,
  ...o,
});

const never = () => new Promise<OcrPage>(() => {});
const after = (ms: number) => new Promise<OcrPage>((r) => setTimeout(() => r(PAGE), ms));

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('the OCR pool', () => {
  it('starts no worker until the first job, then reuses it', async () => {
    const f = fakes();
    const pool = new OcrPool(options({ workers: 2, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine }));
    expect(pool.stats().started).toBe(0);
    for (let i = 0; i < 5; i++) expect(await pool.recognize(IMAGE, [PSM.AUTO], 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 1, workers: 1, replaced: 0 });
    await pool.terminate();
  });

  it('runs at most `workers` jobs at once and answers every queued job', async () => {
    const f = fakes(() => after(20));
    const pool = new OcrPool(options({ workers: 2, queueLimit: 10, timeoutMs: 5000, createEngine: f.createEngine }));
    const pages = await Promise.all(Array.from({ length: 8 }, () => pool.recognize(IMAGE, [PSM.AUTO], 100)));
    expect(pages).toHaveLength(8);
    expect(f.maxRunning()).toBe(2);
    expect(pool.stats()).toMatchObject({ started: 2, queued: 0, running: 0 });
    await pool.terminate();
  });

  it('answers 503 with Retry-After past the queue limit, and still serves the queued jobs', async () => {
    const f = fakes(() => after(30));
    const pool = new OcrPool(options({ workers: 1, queueLimit: 2, timeoutMs: 5000, createEngine: f.createEngine }));
    const accepted = [
      pool.recognize(IMAGE, [PSM.AUTO], 100),
      pool.recognize(IMAGE, [PSM.AUTO], 100),
      pool.recognize(IMAGE, [PSM.AUTO], 100),
    ];
    const e = await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100));
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toMatch(/^OCR is busy: 2 requests are already waiting \(OCR_QUEUE_LIMIT\); retry in \d+ s$/);
    expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await Promise.all(accepted)).toHaveLength(3);
    await pool.terminate();
  });

  it('gives up on a job past the time limit, replaces its worker, and serves the next job on a new one', async () => {
    const f = fakes((call) => (call === 0 ? never() : Promise.resolve(PAGE)));
    const pool = new OcrPool(options({ workers: 1, queueLimit: 4, timeoutMs: 50, createEngine: f.createEngine }));
    const e = await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100));
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toMatch(
      /^OCR took longer than 50 ms \(OCR_TIMEOUT_MS\) on this image; send a smaller image, or retry in \d+ s$/,
    );
    expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    expect(await pool.recognize(IMAGE, [PSM.AUTO], 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1, workers: 1 });
    await pool.terminate();
  });

  it('answers 400 for an image the engine cannot decode and keeps the worker', async () => {
    const f = fakes((call) =>
      call === 0 ? Promise.reject(new Error('Error: Error attempting to read image.')) : Promise.resolve(PAGE),
    );
    const pool = new OcrPool(options({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine }));
    const e = await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/^frame: the image could not be decoded/);
    expect(await pool.recognize(IMAGE, [PSM.AUTO], 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 1, replaced: 0 });
    await pool.terminate();
  });

  it('replaces a worker after any other failure (a crash in the engine)', async () => {
    const f = fakes((call) =>
      call === 0 ? Promise.reject(new Error('RuntimeError: abort(OOM)')) : Promise.resolve(PAGE),
    );
    const pool = new OcrPool(options({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine }));
    expect((await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100))).code).toBe('BAD_REQUEST');
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    expect(await pool.recognize(IMAGE, [PSM.AUTO], 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1 });
    await pool.terminate();
  });

  it('recycles a worker after a very large image (its memory never shrinks)', async () => {
    const f = fakes();
    const pool = new OcrPool(options({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine }));
    expect(await pool.recognize(IMAGE, [PSM.AUTO], RECYCLE_PIXELS + 1)).toEqual(PAGE);
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    await pool.recognize(IMAGE, [PSM.AUTO], 100);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1 });
    await pool.terminate();
  });

  it('answers 503 when a worker cannot start, and tries again on the next job', async () => {
    let attempts = 0;
    const f = fakes();
    const pool = new OcrPool(
      options({
        workers: 1,
        queueLimit: 4,
        timeoutMs: 1000,
        createEngine: () => (++attempts === 1 ? Promise.reject(new Error('no language data')) : f.createEngine()),
      }),
    );
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const e = await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100));
    expect(errors).toHaveBeenCalledWith(
      JSON.stringify({ level: 'error', msg: 'OCR worker did not start: no language data' }),
    );
    errors.mockRestore();
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toMatch(/^the OCR engine could not start; retry in \d+ s$/);
    expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await pool.recognize(IMAGE, [PSM.AUTO], 100)).toEqual(PAGE);
    await pool.terminate();
  });

  it('stops every worker at shutdown; running, waiting and later jobs get 503', async () => {
    const f = fakes(() => never());
    const pool = new OcrPool(options({ workers: 1, queueLimit: 4, timeoutMs: 60_000, createEngine: f.createEngine }));
    const running = pool.recognize(IMAGE, [PSM.AUTO], 100);
    const waiting = pool.recognize(IMAGE, [PSM.AUTO], 100);
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ running: 1, queued: 1 }));
    await pool.terminate();
    expect((await rejection(running)).message).toMatch(/^OCR is shutting down; retry in \d+ s$/);
    expect((await rejection(waiting)).message).toMatch(/^OCR is shutting down; retry in \d+ s$/);
    expect((await rejection(pool.recognize(IMAGE, [PSM.AUTO], 100))).code).toBe('SERVICE_UNAVAILABLE');
    expect(f.engines.every((e) => e.terminated)).toBe(true);
  });
});

/**
 * Engines that fail as tesseract.js 7 workers do once terminated (node_modules/tesseract.js/src/
 * createWorker.js): `recognize` posts its message a microtask after the call, and on a terminated
 * worker that post throws inside an async `send` nobody awaits (an unhandled rejection, which ends
 * a process) while the job's promise never settles; a job running at `terminate` never settles.
 */
function tesseractLike(o: {
  start?: (n: number) => Promise<void>;
  read?: (image: string, psm: PageSegmentation) => Promise<OcrPage>;
}) {
  const log = { starts: 0, calls: [] as string[], sentAfterTerminate: 0, terminated: 0 };
  const createEngine = async (): Promise<OcrEngine> => {
    const n = log.starts++;
    await o.start?.(n);
    let worker: { postMessage(): void } | null = { postMessage() {} };
    const send = async () => {
      if (worker === null) log.sentAfterTerminate += 1;
      worker!.postMessage(); // TypeError: Cannot read properties of null (reading 'postMessage')
    };
    return {
      async recognize(image, psm) {
        log.calls.push(`${image.toString()}:${psm}`);
        await Promise.resolve(); // loadImage
        return new Promise<OcrPage>((resolve, reject) => {
          void send();
          if (worker === null) return;
          (o.read?.(image.toString(), psm) ?? Promise.resolve(PAGE)).then(
            (page) => worker && resolve(page),
            (e: unknown) => worker && reject(e),
          );
        });
      },
      async terminate() {
        if (worker) log.terminated += 1;
        worker = null;
      },
    };
  };
  return { log, createEngine };
}

/** Records every 'unhandledRejection' of the process until `stop`. */
function unhandledRejections() {
  const seen: unknown[] = [];
  const listener = (e: unknown) => seen.push(e);
  process.on('unhandledRejection', listener);
  return { seen, stop: () => process.off('unhandledRejection', listener) };
}

/** A promise's outcome once settled, for polling without awaiting a promise that may never settle. */
function track<T>(p: Promise<T>) {
  const t: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(t, { settled: true, value }),
    (error: unknown) => Object.assign(t, { settled: true, error }),
  );
  return t;
}

const flush = () => new Promise((r) => setImmediate(r));
const gate = () => {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
};

describe('the OCR pool under load (issue 16, finding 2)', () => {
  it('never uses a worker it stopped: a job that times out while its worker starts leaves the worker to the next job', async () => {
    const starting = gate();
    const f = tesseractLike({ start: () => starting.opened });
    const unhandled = unhandledRejections();
    const pool = new OcrPool(options({ workers: 1, timeoutMs: 50, createEngine: f.createEngine }));
    try {
      const first = await rejection(readText(pool, Buffer.from('a'), 100, 'video'));
      expect(first.message).toMatch(/\(OCR_TIMEOUT_MS\)/);
      starting.open();
      await flush();
      await flush();
      expect(await readText(pool, Buffer.from('b'), 100, 'video')).toEqual([{ text: 'ok' }]);
      await flush();
      expect(f.log.sentAfterTerminate).toBe(0);
      expect(f.log.calls).toEqual([`b:${PSM.SINGLE_BLOCK}`]);
      expect(unhandled.seen).toEqual([]);
    } finally {
      unhandled.stop();
      await pool.terminate();
    }
  });

  it('stops the worker of a job past its work limit and never asks it again; the slot serves the next job', async () => {
    const f = tesseractLike({ read: (image) => (image === 'slow' ? never() : Promise.resolve(PAGE)) });
    const unhandled = unhandledRejections();
    const pool = new OcrPool(options({ workers: 1, timeoutMs: 50, createEngine: f.createEngine }));
    try {
      expect((await rejection(readText(pool, Buffer.from('slow'), 100, 'document'))).message).toMatch(
        /\(OCR_TIMEOUT_MS\)/,
      );
      expect(await readText(pool, Buffer.from('fast'), 100, 'document')).toEqual(PAGE.words);
      await flush();
      expect(f.log).toMatchObject({ starts: 2, terminated: 1, sentAfterTerminate: 0 });
      expect(unhandled.seen).toEqual([]);
    } finally {
      unhandled.stop();
      await pool.terminate();
    }
  });

  it('limits the wait for a worker (OCR_QUEUE_TIMEOUT_MS) apart from the work, which may take longer', async () => {
    const reading = gate();
    const f = tesseractLike({
      read: (image) => (image === 'first' ? reading.opened.then(() => PAGE) : Promise.resolve(PAGE)),
    });
    const pool = new OcrPool(
      options({ workers: 1, queueTimeoutMs: 50, timeoutMs: 60_000, createEngine: f.createEngine }),
    );
    try {
      const first = track(readText(pool, Buffer.from('first'), 100, 'video'));
      const second = track(readText(pool, Buffer.from('second'), 100, 'video'));
      await vi.waitFor(() => expect(second.settled).toBe(true), { timeout: 2000 });
      const e = second.error as AppError;
      expect(e).toBeInstanceOf(AppError);
      expect(e.message).toMatch(
        /^OCR is busy: no worker was free within 50 ms \(OCR_QUEUE_TIMEOUT_MS\); retry in \d+ s$/,
      );
      expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(first.settled).toBe(false); // still being read, past the wait limit: its work limit is its own
      reading.open();
      await vi.waitFor(() => expect(first.settled).toBe(true), { timeout: 2000 });
      expect(first.value).toEqual([{ text: 'ok' }]);
    } finally {
      await pool.terminate();
    }
  });

  it('starts the work limit when the job gets its worker, not when it arrives', async () => {
    const f = tesseractLike({ read: () => after(140) });
    const pool = new OcrPool(options({ workers: 1, timeoutMs: 200, createEngine: f.createEngine }));
    try {
      // the second waits ~140 ms, then works ~140 ms: 280 ms since it arrived, within 200 ms of work
      const answers = await Promise.all([readText(pool, IMAGE, 100, 'video'), readText(pool, IMAGE, 100, 'video')]);
      expect(answers).toEqual([[{ text: 'ok' }], [{ text: 'ok' }]]);
    } finally {
      await pool.terminate();
    }
  });

  it('answers 503 with Retry-After at once past OCR_MAX_PIXELS_IN_FLIGHT, and still reads one image over the budget alone', async () => {
    const reading = gate();
    const f = tesseractLike({ read: () => reading.opened.then(() => PAGE) });
    const pool = new OcrPool(
      options({ workers: 1, queueLimit: 10, maxPixelsInFlight: 100, createEngine: f.createEngine }),
    );
    try {
      const running = readText(pool, IMAGE, 60, 'video');
      const waiting = readText(pool, IMAGE, 30, 'video');
      const refused = track(readText(pool, IMAGE, 20, 'video'));
      await flush();
      expect(refused.settled).toBe(true);
      const e = refused.error as AppError;
      expect(e).toBeInstanceOf(AppError);
      expect(e.code).toBe('SERVICE_UNAVAILABLE');
      expect(e.message).toMatch(
        /^OCR is busy: 0\.0 MP already queued or being read, and this image has 0\.0 MP \(OCR_MAX_PIXELS_IN_FLIGHT is 0\.0 MP\); retry in \d+ s$/,
      );
      expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(pool.stats()).toMatchObject({ running: 1, queued: 1, pixels: 90 });
      reading.open();
      expect(await Promise.all([running, waiting])).toHaveLength(2);
      expect(await readText(pool, IMAGE, 150, 'video')).toEqual([{ text: 'ok' }]); // alone, over the budget
      expect(pool.stats()).toMatchObject({ running: 0, queued: 0, pixels: 0 });
    } finally {
      await pool.terminate();
    }
  });

  it('runs the second pass of a document right after its first, before any job queued after it', async () => {
    // the first pass (PSM 3) of "doc" finds nothing, the second (PSM 6) finds a word
    const f = tesseractLike({
      read: (image, psm) => Promise.resolve(image === 'doc' && psm === PSM.AUTO ? { words: [], lines: [] } : PAGE),
    });
    const pool = new OcrPool(options({ workers: 1, createEngine: f.createEngine }));
    try {
      const answers = await Promise.all([
        readText(pool, Buffer.from('doc'), 100, 'document'),
        readText(pool, Buffer.from('next'), 100, 'video'),
      ]);
      expect(answers).toEqual([PAGE.words, [{ text: 'ok' }]]);
      expect(f.log.calls).toEqual([`doc:${PSM.AUTO}`, `doc:${PSM.SINGLE_BLOCK}`, `next:${PSM.SINGLE_BLOCK}`]);
    } finally {
      await pool.terminate();
    }
  });

  it('in a burst answers every job with a page or a 503 with Retry-After, and keeps serving after replacing workers', async () => {
    // slow starts (past the work limit), failed starts, reads past the work limit, large images
    // (each replaces its worker) and document jobs that need both passes, all at once
    let burst = true;
    const f = tesseractLike({
      start: (n) =>
        burst && n % 5 === 1
          ? Promise.reject(new Error('no language data'))
          : new Promise((r) => setTimeout(r, burst && n % 3 === 0 ? 120 : 5)),
      read: (image, psm) => {
        if (image.startsWith('stuck')) return never();
        if (image.startsWith('blank') && psm === PSM.AUTO) return after(5).then(() => ({ words: [], lines: [] }));
        return after(10);
      },
    });
    const unhandled = unhandledRejections();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const pool = new OcrPool(
      options({
        workers: 2,
        queueLimit: 8,
        queueTimeoutMs: 300,
        timeoutMs: 80,
        maxPixelsInFlight: 6 * (RECYCLE_PIXELS + 1),
        createEngine: f.createEngine,
      }),
    );
    try {
      const kinds = ['stuck', 'blank', 'plain', 'blank', 'plain', 'plain'];
      const jobs: Promise<PromiseSettledResult<unknown>>[] = [];
      // four waves of ten, each sent once the queue has room again
      for (let wave = 0; wave < 4; wave++) {
        await vi.waitFor(() => expect(pool.stats().queued).toBeLessThanOrEqual(2), { timeout: 5000, interval: 5 });
        const sent = Array.from({ length: 10 }, (_, j) => {
          const i = wave * 10 + j;
          const kind = kinds[i % kinds.length]!;
          return readText(
            pool,
            Buffer.from(`${kind}${i}`),
            i % 2 ? RECYCLE_PIXELS + 1 : 1000,
            kind === 'plain' ? 'video' : 'document',
          );
        });
        jobs.push(...sent.map((p) => Promise.allSettled([p]).then(([o]) => o!)));
      }
      const outcomes = await Promise.all(jobs);
      burst = false;
      let pages = 0;
      for (const o of outcomes) {
        if (o.status === 'fulfilled') {
          pages += 1;
          continue;
        }
        expect(o.reason).toBeInstanceOf(AppError);
        expect((o.reason as AppError).code).toBe('SERVICE_UNAVAILABLE');
        expect(Number((o.reason as AppError).headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect(pages).toBeGreaterThan(0);
      expect(pool.stats()).toMatchObject({ running: 0, queued: 0, pixels: 0 });
      expect(pool.stats().replaced).toBeGreaterThan(0);
      expect(errors).toHaveBeenCalledWith(expect.stringMatching(/OCR worker did not start: no language data/));
      // afterwards every slot still serves, on fresh workers or kept ones
      for (let i = 0; i < 6; i++)
        expect(await readText(pool, Buffer.from(`later${i}`), RECYCLE_PIXELS + 1, 'video')).toEqual([{ text: 'ok' }]);
      await flush();
      expect(f.log.sentAfterTerminate).toBe(0);
      expect(unhandled.seen).toEqual([]);
    } finally {
      unhandled.stop();
      errors.mockRestore();
      await pool.terminate();
    }
  });
});
