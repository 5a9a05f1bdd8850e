import { AppError } from '../errors.js';
import { PSM, type PageSegmentation } from './engine.js';
import { parseFrame } from './image.js';
import type { OcrPool } from './pool.js';

export const OCR_MODES = ['document', 'video'] as const;
export type OcrMode = (typeof OCR_MODES)[number];

/** A body of at most 10 MiB (docs/rest.md#ocr); the GraphQL argument gets the same limit. */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

export type OcrResult = { text: string; x: number; y: number; confidence: number } | { text: string };

export interface OcrAnswer {
  timestamp: string;
  results: OcrResult[];
}

/**
 * Page segmentation per mode (measured in bench/RESULTS.md):
 * - document: automatic layout (PSM 3) reads columns and 90°-rotated pages in order, but finds
 *   nothing on a slightly skewed page; then the page is read again as one block (PSM 6), at once
 *   and on the same worker (the pool runs a request's passes back to back).
 * - video: one block (PSM 6): frames are screens and captions, read line by line, and a skewed
 *   or noisy frame still gives lines.
 */
const PASSES: Record<OcrMode, PageSegmentation[]> = {
  document: [PSM.AUTO, PSM.SINGLE_BLOCK],
  video: [PSM.SINGLE_BLOCK],
};

export function parseMode(mode: unknown): OcrMode {
  if (mode === undefined || mode === null) return 'document';
  if (typeof mode === 'string' && (OCR_MODES as readonly string[]).includes(mode)) return mode as OcrMode;
  throw new AppError('BAD_REQUEST', `mode must be one of ${OCR_MODES.join(', ')}; got ${JSON.stringify(mode)}`);
}

/** The text of a `data:` URL image: words with positions (document) or lines (video). */
export async function extractText(pool: OcrPool, frame: unknown, mode: OcrMode = 'document'): Promise<OcrAnswer> {
  if (typeof frame === 'string' && frame.length > MAX_FRAME_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `frame is too large: at most ${MAX_FRAME_BYTES} bytes; got ${frame.length}`,
    );
  }
  const image = parseFrame(frame);
  return {
    timestamp: new Date().toISOString(),
    results: await readText(pool, image.data, image.width * image.height, mode),
  };
}

/** The words (document) or lines (video) of an image already checked; bench/ocr.ts calls it too. */
/**
 * Words or lines one answer carries at most, so its size is known before it is read (the GraphQL
 * cost analysis counts `results` at this): a dense 40-megapixel page holds far fewer.
 */
export const MAX_OCR_RESULTS = 10_000;

export async function readText(pool: OcrPool, image: Buffer, pixels: number, mode: OcrMode): Promise<OcrResult[]> {
  const page = await pool.recognize(image, PASSES[mode], pixels);
  if (page.words.length === 0) return [];
  const results = mode === 'video' ? page.lines.map((text) => ({ text })) : page.words;
  return results.length > MAX_OCR_RESULTS ? results.slice(0, MAX_OCR_RESULTS) : results;
}
