import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorker, OEM, PSM, type Block } from 'tesseract.js';
import { ROOT, type OcrModel } from '../config.js';

const require = createRequire(import.meta.url);

/**
 * The English models, both read from what `npm install` put on disk, never downloaded:
 * - fast: tessdata_fast, the model the tesseract CLI installs by default (Debian tesseract-ocr-eng);
 *   unpacked by scripts/tessdata.mjs into generated/tessdata. ~1.3x faster than best at the same
 *   accuracy on ../shared/testdata/ocr (bench/RESULTS.md).
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
          words.push({ text: w, x: word.bbox.x0, y: word.bbox.y0, confidence: Math.min(1, Math.max(0, Math.round(word.confidence) / 100)) });
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
    timer = setTimeout(() => reject(new Error(`the OCR engine did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
  });
  const worker = await Promise.race([starting, timeout]).catch((e: unknown) => {
    starting.then((w) => w.terminate(), () => {}); // should it start after all
    throw toError(e);
  }).finally(() => clearTimeout(timer));

  // Tesseract's diagnostics ("Estimating resolution as ...") would go to our stderr per image
  await worker.setParameters({ debug_file: '/dev/null' } as Record<string, string>);
  let psmSet: PageSegmentation = PSM.SINGLE_BLOCK; // tesseract.js's default
  return {
    async recognize(image, psm) {
      try {
        if (psm !== psmSet) {
          await worker.setParameters({ tessedit_pageseg_mode: psm });
          psmSet = psm;
        }
        const { data } = await worker.recognize(image, {}, { text: false, blocks: true });
        return page(data.blocks);
      } catch (e) {
        throw toError(e);
      }
    },
    async terminate() {
      await worker.terminate();
    },
  };
}
