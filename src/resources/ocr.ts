// OCR: text in images (rest/ocr.ts, schema/ocr.ts). A capability a tier buys, with no table of its own.
import { defineResource } from './manifest.js';

export const ocr = defineResource({
  singular: 'ocr',
  plural: 'ocr',
  access: [{ tier: 'enterprise', listed: 11, words: 'OCR', types: [] }],
});
