import type { Context } from '../context.js';
import { MAX_FRAME_BYTES, extractText, parseMode } from '../ocr/extract.js';
import { MAX_PIXELS } from '../ocr/image.js';
import { jsonObjectBody } from '../http/body.js';
import { arr, int, num, object, str, timestamp } from './json-schema.js';
import { json, type Route } from './route.js';

/** The body, frame included, is at most 10 MiB (docs/rest.md#ocr). */
const MAX_BODY_BYTES = MAX_FRAME_BYTES;

/** The legacy OCR path, with our `mode` (docs/rest.md#ocr). */
export const routes: Route[] = [
  {
    method: 'POST',
    path: '/ocr/v1/extract',
    access: 'ocr',
    maxBodyBytes: MAX_BODY_BYTES,
    doc: {
      summary: 'Text in an image',
      description:
        'Send `{"frame": "data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>", "mode": "document" | "video"}` as application/json. ' +
        '`document` (default) answers one result per word with the top-left of its box (x, y in pixels) and a confidence in 0..1; ' +
        '`video` answers one `{text}` per line. Only data URLs are read: nothing is fetched. ' +
        `Limits: body ${MAX_FRAME_BYTES / 1024 / 1024} MiB (413), image ${MAX_PIXELS / 1e6} megapixels (413), an unsupported image type 415, a queue bounded by requests and by pixels, a limit on the wait for a worker and one on the work (503 with Retry-After). Enterprise tier.`,
      body: object(
        {
          frame: {
            type: 'string',
            pattern: '^data:',
            description: 'A data URL: data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>.',
          },
          mode: {
            type: 'string',
            enum: ['document', 'video'],
            default: 'document',
            description: 'document: words with positions; video: lines of text.',
          },
        },
        ['frame'],
      ),
      response: object({
        timestamp: timestamp('When the text was read.'),
        results: arr({
          anyOf: [
            object(
              {
                text: str('One word.'),
                x: int('Left edge of the word box, in pixels.'),
                y: int('Top edge of the word box, in pixels.'),
                confidence: num('0..1.'),
              },
              undefined,
              'document mode: a word',
            ),
            object({ text: str('One line.') }, undefined, 'video mode: a line'),
          ],
        }),
      }),
      errors: {
        '413': 'The body is over 10 MiB, or the image over 40 megapixels.',
        '415': 'The body is not application/json, or the image type is not png, jpeg, webp, bmp or gif.',
        '503':
          'OCR is busy (too many requests or pixels in flight, or no worker free in time), took longer than its time limit, or is shutting down; always with Retry-After.',
      },
    },
    async handle(ctx: Context) {
      const body = await jsonObjectBody(
        ctx.request,
        MAX_BODY_BYTES,
        '{"frame": "data:image/png;base64,...", "mode"?: "document" | "video"}',
      );
      return json(await extractText(ctx.ocr, body.frame, parseMode(body.mode)));
    },
  },
];
