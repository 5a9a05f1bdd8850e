import { builder } from '../builder.js';
import { extractText, MAX_OCR_RESULTS, type OcrResult } from '../ocr/extract.js';
import { listOf } from './common.js';

const OcrMode = builder.enumType('OcrMode', {
  description: 'What the image is, and so what comes back.',
  values: {
    DOCUMENT: {
      value: 'document' as const,
      description: 'A page or screenshot: one result per word, with its position and confidence.',
    },
    VIDEO: { value: 'video' as const, description: 'A frame grabbed from video: one result per line, text only.' },
  },
});

const OcrText = builder.objectRef<OcrResult>('OcrText').implement({
  description: 'A word (DOCUMENT mode) or a line (VIDEO mode) of text read from the image.',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The text.' }),
    x: t.int({
      nullable: true,
      description: 'Left edge of the word box in pixels; null in VIDEO mode.',
      resolve: (r) => ('x' in r ? r.x : null),
    }),
    y: t.int({
      nullable: true,
      description: 'Top edge of the word box in pixels; null in VIDEO mode.',
      resolve: (r) => ('y' in r ? r.y : null),
    }),
    confidence: t.float({
      nullable: true,
      description: 'How sure the engine is, 0..1; null in VIDEO mode.',
      resolve: (r) => ('confidence' in r ? r.confidence : null),
    }),
  }),
});

const OcrPayload = builder.objectRef<{ timestamp: string; results: OcrResult[] }>('OcrPayload').implement({
  description: 'The text read from one image.',
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', description: 'When the text was read.', resolve: (p) => p.timestamp }),
    results: t.field({
      type: [OcrText],
      extensions: listOf(MAX_OCR_RESULTS),
      description: `Words in reading order (DOCUMENT), or lines (VIDEO); at most ${MAX_OCR_RESULTS}.`,
      resolve: (p) => p.results,
    }),
  }),
});

builder.mutationField('extractText', (t) =>
  t.field({
    type: OcrPayload,
    description:
      'Reads the text in an image, like POST /ocr/v1/extract. `frame` is a data URL, data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>, ' +
      'of at most 10 MiB and 40 megapixels; nothing is fetched. A mutation only because it is expensive; it changes nothing. Enterprise tier.',
    authScopes: { entitled: 'ocr' },
    args: {
      frame: t.arg.string({
        required: true,
        description: 'The image as a data URL: data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>.',
      }),
      mode: t.arg({ type: OcrMode, description: 'DOCUMENT (default) or VIDEO.' }),
    },
    resolve: (_root, args, ctx) => extractText(ctx.ocr, args.frame, args.mode ?? 'document'),
  }),
);
