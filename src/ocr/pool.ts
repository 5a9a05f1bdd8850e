import type { OcrConfig } from '../config.js';
import { AppError } from '../errors.js';
import { createTesseractEngine, type OcrEngine, type OcrPage, type PageSegmentation } from './engine.js';

/**
 * WASM memory never shrinks: a worker that has read an image this large keeps hundreds of MB,
 * so it is replaced after the job (40 MP is the input limit; a phone photo is ~12 MP).
 */
export const RECYCLE_PIXELS = 16_000_000;

/** What Leptonica says of bytes it cannot decode: the input's fault, and the worker is fine. */
const UNREADABLE = /Error attempting to read image/;

interface Slot {
  engine: Promise<OcrEngine> | null;
  busy: boolean;
  job: Job | null;
}

interface Job {
  image: Buffer;
  psm: PageSegmentation;
  pixels: number;
  resolve(page: OcrPage): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  slot: Slot | null;
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
}

/**
 * A fixed set of OCR workers, started on first use and reused, with a bounded queue in front and
 * a time limit per request. Not tesseract.js's scheduler: it cannot replace one worker (after a
 * crash, a time-out or a huge image) nor give up on a running job.
 */
export class OcrPool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly createEngine: () => Promise<OcrEngine>;
  private closed = false;
  private started = 0;
  private replaced = 0;
  /** Recent mean job time, for Retry-After. */
  private meanJobMs = 1000;

  constructor(private readonly options: OcrPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, options.workers) }, () => ({ engine: null, busy: false, job: null }));
    this.createEngine = options.createEngine ?? (() => createTesseractEngine({ model: options.model }));
  }

  stats(): OcrPoolStats {
    return {
      workers: this.slots.filter((s) => s.engine).length,
      started: this.started,
      replaced: this.replaced,
      queued: this.queue.length,
      running: this.slots.filter((s) => s.busy).length,
    };
  }

  /** When a request starting now must be answered by (ms since the epoch): pass it to each of its jobs. */
  deadline(): number {
    return Date.now() + this.options.timeoutMs;
  }

  /**
   * Recognizes one image; rejects with an AppError (503 when busy, past the deadline or stopping;
   * 400 for an image that cannot be decoded).
   */
  recognize(image: Buffer, psm: PageSegmentation, pixels: number, deadline = this.deadline()): Promise<OcrPage> {
    if (this.closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'OCR is shutting down'));
    const idle = this.slots.some((s) => !s.busy);
    if (!idle && this.queue.length >= this.options.queueLimit) {
      const seconds = Math.max(1, Math.ceil(((this.queue.length / this.slots.length) * this.meanJobMs) / 1000));
      return Promise.reject(
        new AppError('SERVICE_UNAVAILABLE', `OCR is busy: ${this.queue.length} ${this.queue.length === 1 ? 'request is' : 'requests are'} already waiting (OCR_QUEUE_LIMIT); retry in ${seconds} s`, { 'retry-after': String(seconds) }),
      );
    }
    return new Promise<OcrPage>((resolve, reject) => {
      const job: Job = { image, psm, pixels, resolve, reject, slot: null, done: false, timer: setTimeout(() => this.timeOut(job), Math.max(0, deadline - Date.now())) };
      this.queue.push(job);
      this.pump();
    });
  }

  /** Stops every worker; waiting and running requests get 503. */
  async terminate(): Promise<void> {
    this.closed = true;
    const stopping = new AppError('SERVICE_UNAVAILABLE', 'OCR is shutting down');
    for (const job of this.queue.splice(0)) this.finish(job, stopping);
    for (const slot of this.slots) if (slot.job) this.finish(slot.job, stopping);
    const engines = this.slots.map((s) => s.engine).filter((e) => e !== null);
    for (const slot of this.slots) slot.engine = null;
    await Promise.allSettled(engines.map(async (e) => (await e).terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy);
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.busy = true;
      slot.job = job;
      job.slot = slot;
      void this.run(slot, job);
    }
  }

  private spawn(): Promise<OcrEngine> {
    this.started += 1;
    return this.createEngine();
  }

  private async run(slot: Slot, job: Job): Promise<void> {
    const t0 = performance.now();
    let engine: OcrEngine;
    try {
      engine = await (slot.engine ??= this.spawn());
    } catch (e) {
      if (job.slot !== slot) return; // timed out meanwhile
      slot.engine = null; // the next job tries again
      console.error(JSON.stringify({ level: 'error', msg: `OCR worker did not start: ${(e as Error).message}` }));
      this.finish(job, new AppError('SERVICE_UNAVAILABLE', 'the OCR engine could not start; try again later'));
      return this.release(slot, job);
    }
    try {
      const page = await engine.recognize(job.image, job.psm);
      if (job.slot !== slot) return; // timed out: the slot has moved on
      this.meanJobMs = 0.8 * this.meanJobMs + 0.2 * (performance.now() - t0);
      this.finish(job, page);
      if (job.pixels > RECYCLE_PIXELS) this.retire(slot);
    } catch (e) {
      if (job.slot !== slot) return;
      const message = (e as Error).message;
      // a failure other than "cannot decode" may have left the engine in a bad state
      if (!UNREADABLE.test(message)) this.retire(slot);
      this.finish(job, new AppError('BAD_REQUEST', 'frame: the image could not be decoded (damaged or truncated data)'));
    }
    this.release(slot, job);
  }

  private release(slot: Slot, job: Job): void {
    if (job.slot !== slot) return; // timed out: the slot was given up already
    job.slot = null;
    slot.job = null;
    slot.busy = false;
    this.pump();
  }

  /** Replaces a slot's worker with a fresh one, started on its next job. */
  private retire(slot: Slot): void {
    const engine = slot.engine;
    if (!engine) return;
    slot.engine = null;
    this.replaced += 1;
    engine.then((e) => e.terminate()).catch(() => {});
  }

  private timeOut(job: Job): void {
    if (job.done) return;
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    this.finish(job, new AppError('SERVICE_UNAVAILABLE', `OCR took longer than ${this.options.timeoutMs} ms (OCR_TIMEOUT_MS), waiting included; try again later or send a smaller image`));
    const slot = job.slot;
    if (slot) {
      // a running recognition cannot be cancelled: stop its worker and free the slot
      job.slot = null;
      slot.job = null;
      this.retire(slot);
      slot.busy = false;
      this.pump();
    }
  }

  private finish(job: Job, result: OcrPage | Error): void {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    if (result instanceof Error) job.reject(result);
    else job.resolve(result);
  }
}
