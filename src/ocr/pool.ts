import type { OcrConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { MetricRegistrar } from '../observability/metrics.js';
import {
  createTesseractEngine,
  EngineStoppedError,
  type OcrEngine,
  type OcrPage,
  type PageSegmentation,
} from './engine.js';

/**
 * WASM memory never shrinks: a worker that has read an image this large keeps hundreds of MB,
 * so it is replaced after the job (40 MP is the input limit; a phone photo is ~12 MP).
 */
export const RECYCLE_PIXELS = 16_000_000;

/** What Leptonica says of bytes it cannot decode: the input's fault, and the worker is fine. */
const UNREADABLE = /Error attempting to read image/;

/** Retry-After before anything was measured: ~0.5 s per megapixel, an 8.4 MP page in ~4 s (bench/RESULTS.md). */
const INITIAL_MS_PER_MEGAPIXEL = 500;
const INITIAL_MS_PER_JOB = 1000;

interface Slot {
  /** The worker, started on the slot's first job; null until then and after it is retired. */
  engine: Promise<OcrEngine> | null;
  /** The job that holds the slot; null when the slot is free. */
  job: Job | null;
}

interface Job {
  image: Buffer;
  /** Read in order on one worker until one finds words. */
  passes: readonly PageSegmentation[];
  pixels: number;
  resolve(page: OcrPage): void;
  reject(e: Error): void;
  /** The wait limit while queued, then the work limit. */
  timer: NodeJS.Timeout;
  slot: Slot | null;
  /** Whether its engine is reading it now: only then does a time-out stop the engine. */
  reading: boolean;
  done: boolean;
}

export interface OcrPoolOptions extends Omit<OcrConfig, 'model'> {
  model?: OcrConfig['model'];
  /** How a worker is made; tests pass fakes. */
  createEngine?: () => Promise<OcrEngine>;
}

export interface OcrPoolStats {
  /** Workers running or starting now. */
  workers: number;
  /** Workers started in all. */
  started: number;
  /** Workers replaced: after a large image, a failure that was not the image's, or a time-out. */
  replaced: number;
  queued: number;
  running: number;
  /** Pixels of the images queued or being read (OCR_MAX_PIXELS_IN_FLIGHT bounds it). */
  pixels: number;
}

/**
 * A fixed set of OCR workers, started on first use and reused, with a queue in front bounded by
 * jobs and by pixels, a limit on the wait for a worker and another on the work. Not tesseract.js's
 * scheduler: it cannot replace one worker (after a crash, a time-out or a huge image) nor give up
 * on a running job. A job owns its slot from `take` until `release` or its time-out; after every
 * await, `run` goes on only while it still owns the slot and the slot still holds its engine.
 */
export class OcrPool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly createEngine: () => Promise<OcrEngine>;
  private closed = false;
  private started = 0;
  private replaced = 0;
  private jobsInFlight = 0;
  private pixelsInFlight = 0;
  /** Recent means of finished jobs, for Retry-After. */
  private msPerJob = INITIAL_MS_PER_JOB;
  private msPerMegapixel = INITIAL_MS_PER_MEGAPIXEL;

  constructor(private readonly options: OcrPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, options.workers) }, () => ({ engine: null, job: null }));
    this.createEngine = options.createEngine ?? (() => createTesseractEngine({ model: options.model }));
  }

  stats(): OcrPoolStats {
    return {
      workers: this.slots.filter((s) => s.engine).length,
      started: this.started,
      replaced: this.replaced,
      queued: this.queue.length,
      running: this.slots.filter((s) => s.job).length,
      pixels: this.pixelsInFlight,
    };
  }

  /** Its gauges and its count of replaced workers on /metrics, read from `stats()` at each scrape. */
  registerMetrics(metrics: MetricRegistrar): void {
    metrics.gauge(
      { name: 'mdg_ocr_workers', help: 'OCR worker threads running or starting' },
      () => this.stats().workers,
    );
    metrics.gauge(
      { name: 'mdg_ocr_queue_depth', help: 'OCR requests waiting for a worker' },
      () => this.stats().queued,
    );
    metrics.gauge(
      { name: 'mdg_ocr_jobs_running', help: 'OCR requests being read by a worker now' },
      () => this.stats().running,
    );
    metrics.gauge(
      {
        name: 'mdg_ocr_pixels_in_flight',
        help: 'Pixels of the OCR images queued or being read (OCR_MAX_PIXELS_IN_FLIGHT bounds it)',
      },
      () => this.stats().pixels,
    );
    metrics.counter(
      {
        name: 'mdg_ocr_workers_replaced_total',
        help: 'OCR workers replaced (after a large image, a failure or a time-out)',
      },
      () => this.stats().replaced,
    );
  }

  /**
   * Reads one image with each page segmentation of `passes` in turn, on one worker, back to back,
   * and answers the first page with words (or the last page). Rejects with an AppError: 503 with
   * Retry-After when busy, past a time limit or stopping; 400 for an image that cannot be decoded.
   */
  recognize(image: Buffer, passes: readonly PageSegmentation[], pixels: number): Promise<OcrPage> {
    if (passes.length === 0) return Promise.reject(new Error('OcrPool.recognize needs at least one pass'));
    const refusal = this.admission(pixels);
    if (refusal) return Promise.reject(refusal);
    this.jobsInFlight += 1;
    this.pixelsInFlight += pixels;
    return new Promise<OcrPage>((resolve, reject) => {
      const job: Job = {
        image,
        passes,
        pixels,
        resolve,
        reject,
        slot: null,
        reading: false,
        done: false,
        timer: setTimeout(() => this.waitedTooLong(job), this.options.queueTimeoutMs),
      };
      this.queue.push(job);
      this.pump();
    });
  }

  /** Stops every worker; waiting and running requests get 503. */
  async terminate(): Promise<void> {
    this.closed = true;
    const stopping = () => this.unavailable('OCR is shutting down');
    for (const job of this.queue.splice(0)) this.finish(job, stopping());
    for (const slot of this.slots) {
      const job = slot.job;
      if (job) {
        this.finish(job, stopping());
        this.release(slot, job, false);
      }
    }
    const engines = this.slots.map((s) => s.engine).filter((e) => e !== null);
    for (const slot of this.slots) slot.engine = null;
    await Promise.allSettled(engines.map(async (e) => (await e).terminate()));
  }

  /** Why a request for `pixels` more cannot join now, or null when it can. */
  private admission(pixels: number): AppError | null {
    if (this.closed) return this.unavailable('OCR is shutting down');
    const { queueLimit, maxPixelsInFlight } = this.options;
    const idle = this.slots.some((s) => !s.job);
    if (!idle && this.queue.length >= queueLimit) {
      const n = this.queue.length;
      return this.unavailable(
        `OCR is busy: ${n} ${n === 1 ? 'request is' : 'requests are'} already waiting (OCR_QUEUE_LIMIT)`,
      );
    }
    // an image alone is always let in, so that a budget below the input limit still reads every image
    if (this.jobsInFlight > 0 && this.pixelsInFlight + pixels > maxPixelsInFlight) {
      const mp = (n: number) => `${(n / 1e6).toFixed(1)} MP`;
      return this.unavailable(
        `OCR is busy: ${mp(this.pixelsInFlight)} already queued or being read, and this image has ${mp(pixels)} (OCR_MAX_PIXELS_IN_FLIGHT is ${mp(maxPixelsInFlight)})`,
      );
    }
    return null;
  }

  /** A 503 whose Retry-After is the work ahead shared by the workers, at the speed recently measured. */
  private unavailable(reason: string, advice = 'retry in'): AppError {
    const { queueTimeoutMs, timeoutMs } = this.options;
    const aheadMs =
      Math.max(this.jobsInFlight * this.msPerJob, (this.pixelsInFlight / 1e6) * this.msPerMegapixel) /
      this.slots.length;
    const seconds = Math.min(Math.ceil((queueTimeoutMs + timeoutMs) / 1000), Math.max(1, Math.ceil(aheadMs / 1000)));
    return new AppError('SERVICE_UNAVAILABLE', `${reason}; ${advice} ${seconds} s`, { 'retry-after': String(seconds) });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.job);
      if (!slot) return;
      this.take(slot, this.queue.shift()!);
    }
  }

  private take(slot: Slot, job: Job): void {
    clearTimeout(job.timer);
    job.timer = setTimeout(() => this.workedTooLong(job), this.options.timeoutMs);
    job.slot = slot;
    slot.job = job;
    this.run(slot, job).catch((e: unknown) => {
      // a bug of ours: the job still gets its answer, and the slot its next job
      console.error(JSON.stringify({ level: 'error', msg: `OCR pool: ${String((e as Error)?.stack ?? e)}` }));
      if (slot.job !== job) return;
      this.retire(slot);
      this.finish(job, this.unavailable('OCR failed on this request'));
      this.release(slot, job);
    });
  }

  private owns(slot: Slot, job: Job): boolean {
    return !job.done && job.slot === slot && slot.job === job;
  }

  private async run(slot: Slot, job: Job): Promise<void> {
    const t0 = performance.now();
    const engine = await this.engineFor(slot, job);
    if (!engine) return;
    const { instance, starting } = engine;
    // after each await: a job that timed out (or a pool that stopped) has handed the slot on, and
    // its engine may be stopped; such a job touches neither again
    const stillMine = () => this.owns(slot, job) && slot.engine === starting;
    job.reading = true;
    let page: OcrPage | undefined;
    for (const psm of job.passes) {
      try {
        page = await instance.recognize(job.image, psm);
      } catch (e) {
        if (!stillMine()) return;
        return this.failed(slot, job, e);
      }
      if (!stillMine()) return;
      if (page.words.length > 0) break;
    }
    job.reading = false;
    this.learn(job.pixels, performance.now() - t0);
    this.finish(job, page!);
    if (job.pixels > RECYCLE_PIXELS) this.retire(slot);
    this.release(slot, job);
  }

  /** The slot's engine, started if need be; null once the job no longer owns the slot (it was answered). */
  private async engineFor(slot: Slot, job: Job): Promise<{ instance: OcrEngine; starting: Promise<OcrEngine> } | null> {
    for (;;) {
      const starting = (slot.engine ??= this.spawn());
      let instance: OcrEngine;
      try {
        instance = await starting;
      } catch (e) {
        if (slot.engine === starting) {
          slot.engine = null; // the next job tries again
          console.error(JSON.stringify({ level: 'error', msg: `OCR worker did not start: ${(e as Error).message}` }));
        }
        if (!this.owns(slot, job)) return null;
        this.finish(job, this.unavailable('the OCR engine could not start'));
        this.release(slot, job);
        return null;
      }
      // timed out while its worker started: the worker stays in the slot for the next job
      if (!this.owns(slot, job)) return null;
      if (slot.engine === starting) return { instance, starting };
    }
  }

  private failed(slot: Slot, job: Job, e: unknown): void {
    const message = (e as Error).message;
    if (e instanceof EngineStoppedError) {
      // its thread died under this job: not the image's fault as far as we can tell
      this.retire(slot);
      this.finish(job, this.unavailable('the OCR worker stopped while reading this image'));
    } else {
      // a failure other than "cannot decode" may have left the engine in a bad state
      if (!UNREADABLE.test(message)) this.retire(slot);
      this.finish(
        job,
        new AppError('BAD_REQUEST', 'frame: the image could not be decoded (damaged or truncated data)'),
      );
    }
    this.release(slot, job);
  }

  private spawn(): Promise<OcrEngine> {
    this.started += 1;
    const starting = (async () => this.createEngine())();
    starting.catch(() => {}); // handled by each job that awaits it; this one only marks it so
    return starting;
  }

  private learn(pixels: number, ms: number): void {
    this.msPerJob = 0.8 * this.msPerJob + 0.2 * ms;
    if (pixels >= 1e6) this.msPerMegapixel = 0.8 * this.msPerMegapixel + 0.2 * (ms / (pixels / 1e6));
  }

  /** Frees the slot a job held, and gives it to the next job unless the pool is stopping. */
  private release(slot: Slot, job: Job, next = true): void {
    if (slot.job !== job) return;
    job.slot = null;
    job.reading = false;
    slot.job = null;
    if (next) this.pump();
  }

  /** Stops a slot's worker; a fresh one starts on its next job. */
  private retire(slot: Slot): void {
    const engine = slot.engine;
    if (!engine) return;
    slot.engine = null;
    this.replaced += 1;
    engine
      .then(
        (e) => e.terminate(),
        () => {},
      )
      .catch(() => {});
  }

  private waitedTooLong(job: Job): void {
    const i = this.queue.indexOf(job);
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.finish(
      job,
      this.unavailable(
        `OCR is busy: no worker was free within ${this.options.queueTimeoutMs} ms (OCR_QUEUE_TIMEOUT_MS)`,
      ),
    );
  }

  private workedTooLong(job: Job): void {
    const slot = job.slot;
    if (job.done || !slot) return;
    // a recognition cannot be cancelled: stop its worker; a worker still starting stays for the next job
    if (job.reading) this.retire(slot);
    this.finish(
      job,
      this.unavailable(
        `OCR took longer than ${this.options.timeoutMs} ms (OCR_TIMEOUT_MS) on this image`,
        'send a smaller image, or retry in',
      ),
    );
    this.release(slot, job);
  }

  private finish(job: Job, result: OcrPage | Error): void {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    this.jobsInFlight -= 1;
    this.pixelsInFlight -= job.pixels;
    if (result instanceof Error) job.reject(result);
    else job.resolve(result);
  }
}
