import { describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.js';
import { PSM, type OcrEngine, type OcrPage } from '../src/ocr/engine.js';
import { OcrPool, RECYCLE_PIXELS } from '../src/ocr/pool.js';

// The pool's rules with fake engines: fast and exact. test/ocr.test.ts runs the real one.

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

const never = () => new Promise<OcrPage>(() => {});
const after = (ms: number) => new Promise<OcrPage>((r) => setTimeout(() => r(PAGE), ms));

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('the OCR pool', () => {
  it('starts no worker until the first job, then reuses it', async () => {
    const f = fakes();
    const pool = new OcrPool({ workers: 2, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine });
    expect(pool.stats().started).toBe(0);
    for (let i = 0; i < 5; i++) expect(await pool.recognize(IMAGE, PSM.AUTO, 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 1, workers: 1, replaced: 0 });
    await pool.terminate();
  });

  it('runs at most `workers` jobs at once and answers every queued job', async () => {
    const f = fakes(() => after(20));
    const pool = new OcrPool({ workers: 2, queueLimit: 10, timeoutMs: 5000, createEngine: f.createEngine });
    const pages = await Promise.all(Array.from({ length: 8 }, () => pool.recognize(IMAGE, PSM.AUTO, 100)));
    expect(pages).toHaveLength(8);
    expect(f.maxRunning()).toBe(2);
    expect(pool.stats()).toMatchObject({ started: 2, queued: 0, running: 0 });
    await pool.terminate();
  });

  it('answers 503 with Retry-After past the queue limit, and still serves the queued jobs', async () => {
    const f = fakes(() => after(30));
    const pool = new OcrPool({ workers: 1, queueLimit: 2, timeoutMs: 5000, createEngine: f.createEngine });
    const accepted = [pool.recognize(IMAGE, PSM.AUTO, 100), pool.recognize(IMAGE, PSM.AUTO, 100), pool.recognize(IMAGE, PSM.AUTO, 100)];
    const e = await rejection(pool.recognize(IMAGE, PSM.AUTO, 100));
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toMatch(/OCR is busy: 2 requests are already waiting \(OCR_QUEUE_LIMIT\)/);
    expect(Number(e.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await Promise.all(accepted)).toHaveLength(3);
    await pool.terminate();
  });

  it('gives up on a job past the time limit, replaces its worker, and serves the next job on a new one', async () => {
    const f = fakes((call) => (call === 0 ? never() : Promise.resolve(PAGE)));
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 50, createEngine: f.createEngine });
    const e = await rejection(pool.recognize(IMAGE, PSM.AUTO, 100));
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toMatch(/longer than 50 ms \(OCR_TIMEOUT_MS\)/);
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    expect(await pool.recognize(IMAGE, PSM.AUTO, 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1, workers: 1 });
    await pool.terminate();
  });

  it('counts the time a job waited in the queue against its limit', async () => {
    const f = fakes(() => after(70));
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 100, createEngine: f.createEngine });
    const first = pool.recognize(IMAGE, PSM.AUTO, 100);
    const second = pool.recognize(IMAGE, PSM.AUTO, 100); // runs from 70 ms to 140 ms
    expect(await first).toEqual(PAGE);
    expect((await rejection(second)).code).toBe('SERVICE_UNAVAILABLE');
    await pool.terminate();
  });

  it('answers 400 for an image the engine cannot decode and keeps the worker', async () => {
    const f = fakes((call) => (call === 0 ? Promise.reject(new Error('Error: Error attempting to read image.')) : Promise.resolve(PAGE)));
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine });
    const e = await rejection(pool.recognize(IMAGE, PSM.AUTO, 100));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/^frame: the image could not be decoded/);
    expect(await pool.recognize(IMAGE, PSM.AUTO, 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 1, replaced: 0 });
    await pool.terminate();
  });

  it('replaces a worker after any other failure (a crash in the engine)', async () => {
    const f = fakes((call) => (call === 0 ? Promise.reject(new Error('RuntimeError: abort(OOM)')) : Promise.resolve(PAGE)));
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine });
    expect((await rejection(pool.recognize(IMAGE, PSM.AUTO, 100))).code).toBe('BAD_REQUEST');
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    expect(await pool.recognize(IMAGE, PSM.AUTO, 100)).toEqual(PAGE);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1 });
    await pool.terminate();
  });

  it('recycles a worker after a very large image (its memory never shrinks)', async () => {
    const f = fakes();
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 1000, createEngine: f.createEngine });
    expect(await pool.recognize(IMAGE, PSM.AUTO, RECYCLE_PIXELS + 1)).toEqual(PAGE);
    await new Promise((r) => setImmediate(r));
    expect(f.engines[0]!.terminated).toBe(true);
    await pool.recognize(IMAGE, PSM.AUTO, 100);
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1 });
    await pool.terminate();
  });

  it('answers 503 when a worker cannot start, and tries again on the next job', async () => {
    let attempts = 0;
    const f = fakes();
    const pool = new OcrPool({
      workers: 1, queueLimit: 4, timeoutMs: 1000,
      createEngine: () => (++attempts === 1 ? Promise.reject(new Error('no language data')) : f.createEngine()),
    });
    const e = await rejection(pool.recognize(IMAGE, PSM.AUTO, 100));
    expect(e.code).toBe('SERVICE_UNAVAILABLE');
    expect(e.message).toBe('the OCR engine could not start; try again later');
    expect(await pool.recognize(IMAGE, PSM.AUTO, 100)).toEqual(PAGE);
    await pool.terminate();
  });

  it('stops every worker at shutdown; running, waiting and later jobs get 503', async () => {
    const f = fakes(() => never());
    const pool = new OcrPool({ workers: 1, queueLimit: 4, timeoutMs: 60_000, createEngine: f.createEngine });
    const running = pool.recognize(IMAGE, PSM.AUTO, 100);
    const waiting = pool.recognize(IMAGE, PSM.AUTO, 100);
    await new Promise((r) => setTimeout(r, 10));
    await pool.terminate();
    expect((await rejection(running)).message).toBe('OCR is shutting down');
    expect((await rejection(waiting)).message).toBe('OCR is shutting down');
    expect((await rejection(pool.recognize(IMAGE, PSM.AUTO, 100))).code).toBe('SERVICE_UNAVAILABLE');
    expect(f.engines.every((e) => e.terminated)).toBe(true);
  });
});
