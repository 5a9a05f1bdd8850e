import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker as NodeWorker } from 'node:worker_threads';
import { createWorker, OEM, PSM, type Block, type Worker } from 'tesseract.js';
import { ROOT, type OcrModel } from '../config.js';

const require = createRequire(import.meta.url);

/**
 * The English models, both read from what `npm install` put on disk, never downloaded:
 * - fast: tessdata_fast, the model the tesseract CLI installs by default (Debian tesseract-ocr-eng);
 *   unpacked by scripts/tessdata.mjs into generated/tessdata. ~1.3x faster than best at the same
 *   accuracy on the OCR benchmark's images (bench/RESULTS.md).
 * - best: the LSTM-only integer "best" model of @tesseract.js-data/eng (gzipped).
 */
export const MODELS: Record<OcrModel, { langPath: string; file: string; gzip: boolean }> = {
  fast: { langPath: path.join(ROOT, 'generated/tessdata'), file: 'eng.traineddata', gzip: false },
  best: {
    langPath: path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int'),
    file: 'eng.traineddata.gz',
    gzip: true,
  },
};
/** Our wrapper of tesseract.js's worker script: it has no network (see the file). */
export const WORKER_PATH = fileURLToPath(new URL('./worker-thread.cjs', import.meta.url));

/** createWorker never settles when the language data cannot be loaded: give up after this. */
const START_TIMEOUT_MS = 20_000;

/** Tesseract page segmentation modes we use: 3 finds the layout (columns, 90° pages); 6 reads one block. */
export type PageSegmentation = PSM.AUTO | PSM.SINGLE_BLOCK;
export { PSM };

export interface OcrWord {
  text: string;
  /** Top-left of the word box, in pixels. */
  x: number;
  y: number;
  /** 0..1 */
  confidence: number;
}

export interface OcrPage {
  words: OcrWord[];
  lines: string[];
}

/** One OCR engine, used by one job at a time. The pool's tests give it fakes. */
export interface OcrEngine {
  recognize(image: Buffer, psm: PageSegmentation): Promise<OcrPage>;
  terminate(): Promise<void>;
}

export interface EngineOptions {
  model?: OcrModel;
  /** The worker thread's script; tests pass one that records fetch attempts. */
  workerPath?: string;
}

/** What an engine answers once it was stopped or its thread died: it will never read again. */
export class EngineStoppedError extends Error {
  override name = 'EngineStoppedError';
}

/** tesseract.js rejects with plain strings. */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

function page(blocks: Block[] | null): OcrPage {
  const words: OcrWord[] = [];
  const lines: string[] = [];
  for (const block of blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const text = line.text.trim();
        if (text) lines.push(text);
        for (const word of line.words) {
          const w = word.text.trim();
          if (!w) continue;
          words.push({
            text: w,
            x: word.bbox.x0,
            y: word.bbox.y0,
            confidence: Math.min(1, Math.max(0, Math.round(word.confidence) / 100)),
          });
        }
      }
    }
  }
  return { words, lines };
}

/**
 * A tesseract.js worker thread that loads the English model from node_modules and never touches
 * the network or the working directory (cacheMethod 'none': no ./eng.traineddata is read or written).
 */
export async function createTesseractEngine(options: EngineOptions = {}): Promise<OcrEngine> {
  const model = MODELS[options.model ?? 'fast'];
  // a missing file would make createWorker hang rather than fail
  await fs.promises.access(path.join(model.langPath, model.file), fs.constants.R_OK).catch(() => {
    throw new Error(`the OCR model ${path.join(model.langPath, model.file)} is missing: run npm install`);
  });
  const starting = createWorker('eng', OEM.LSTM_ONLY, {
    langPath: model.langPath,
    gzip: model.gzip,
    cacheMethod: 'none',
    workerPath: options.workerPath ?? WORKER_PATH,
    // Without a handler, tesseract.js rethrows every failed job in its message listener, which
    // ends the process; the job's promise is rejected either way, and that is where we handle it.
    errorHandler: () => {},
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the OCR engine did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
  });
  const worker = await Promise.race([starting, timeout])
    .catch((e: unknown) => {
      starting.then(
        (w) => w.terminate(),
        () => {},
      ); // should it start after all
      throw toError(e);
    })
    .finally(() => clearTimeout(timer));
  return guard(worker);
}

/**
 * Our engine over a started tesseract.js worker. tesseract.js itself is unsafe once stopped: a call
 * after `terminate` returns a promise that never settles and rejects another that nothing handles
 * (its `send` on a null worker), and a job running at `terminate` never settles. So every call goes
 * through `call`, which refuses after a stop and rejects what is running when it stops.
 */
async function guard(worker: Worker): Promise<OcrEngine> {
  let stopped: EngineStoppedError | null = null;
  const running = new Set<(e: Error) => void>();
  const stop = (reason: EngineStoppedError) => {
    if (stopped) return;
    stopped = reason;
    for (const reject of running) reject(reason);
    running.clear();
  };
  const call = <T>(fn: () => Promise<T>): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    return new Promise<T>((resolve, reject) => {
      running.add(reject);
      fn().then(
        (value) => {
          running.delete(reject);
          resolve(value);
        },
        (e: unknown) => {
          running.delete(reject);
          reject(toError(e));
        },
      );
    });
  };
  const terminate = async () => {
    stop(new EngineStoppedError('the OCR engine was stopped'));
    // tesseract.js posts a job's message a few microtasks after the call (loadImage): let any such
    // message go before the worker is gone, or its send would reject with nobody to handle it
    await new Promise((resolve) => setImmediate(resolve));
    await worker.terminate();
  };
  // Node emits 'error' on a Worker whose thread threw past its own handler or ran out of memory;
  // tesseract.js listens for neither, so without this the process would end, and its jobs hang
  const thread = (worker as Worker & { worker?: NodeWorker }).worker;
  thread?.on('error', (e: Error) => stop(new EngineStoppedError(`the OCR worker thread failed: ${e.message}`)));
  thread?.on('exit', (code: number) => stop(new EngineStoppedError(`the OCR worker thread exited (code ${code})`)));

  // Tesseract's diagnostics ("Estimating resolution as ...") would go to our stderr per image
  await call(() => worker.setParameters({ debug_file: '/dev/null' } as Record<string, string>)).catch(
    async (e: unknown) => {
      await terminate();
      throw e;
    },
  );
  let psmSet: PageSegmentation = PSM.SINGLE_BLOCK; // tesseract.js's default
  return {
    async recognize(image, psm) {
      if (psm !== psmSet) {
        await call(() => worker.setParameters({ tessedit_pageseg_mode: psm }));
        psmSet = psm;
      }
      const { data } = await call(() => worker.recognize(image, {}, { text: false, blocks: true }));
      return page(data.blocks);
    },
    terminate,
  };
}
