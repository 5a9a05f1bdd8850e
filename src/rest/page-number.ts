import { PAGE_SIZES } from '../domain/limits.js';
import { arr, int, object, str, type JsonSchema } from './json-schema.js';
import type { ParamSpecs } from './params.js';
import { json } from './route.js';

// What the REST routes paged by page number share: page/page_size and their envelopes. The
// services answer them with `<noun>AtPage` (db/page-number.ts). (The next_url lists use next-url.ts.)

/** The `message` of every page-numbered envelope: successful legacy responses carry one (docs/rest.md#keys-and-values). */
export const OK_MESSAGE = 'OK';

/** The largest `page`: deeper offsets are refused rather than scanned. */
export const MAX_PAGE = 1_000_000;

/** `page` and `page_size` of the page-numbered endpoints: default 1 and 10, max size 100 (docs/rest.md). */
export const PAGE_PARAMS = {
  page: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: `Page number, 1-based (1 to ${MAX_PAGE}); a page past the end is empty.`,
  },
  page_size: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE_SIZES.records.max,
    default: PAGE_SIZES.records.default,
    description: `Records per page, 1 to ${PAGE_SIZES.records.max} (default ${PAGE_SIZES.records.default}).`,
  },
} as const satisfies ParamSpecs;

/** `{ data, message, pagination }` of enhanced fundamentals (also used by call summaries). */
export function pageEnvelope(item: JsonSchema): JsonSchema {
  return object({
    data: arr(item),
    message: str(`A short human-readable status; "${OK_MESSAGE}" on success.`),
    pagination: object({
      hits: int('How many records match the filters, over all pages.'),
      page: int('This page, 1-based.'),
      page_count: int('How many pages the matches fill at this page_size (0 when nothing matches).'),
      page_size: int('Records per page.'),
    }),
  });
}

export function pagination(hits: number, page: number, pageSize: number) {
  return { hits, page, page_count: Math.ceil(hits / pageSize), page_size: pageSize };
}

/**
 * The `{ data, message }` envelope of ratings and news, exactly: no total in it. A page shorter than
 * page_size (or empty) is the last one; the X-Total-Count header counts every match.
 */
export function dataEnvelope(item: JsonSchema): JsonSchema {
  return object({
    data: arr(item, 'This page, newest first. Shorter than page_size (or empty) on the last page and past it.'),
    message: { type: 'string', const: OK_MESSAGE, description: `Always "${OK_MESSAGE}" on success.` },
  });
}

/** The envelope, with the number of matches in X-Total-Count (as the logos route does). */
export function dataResponse(data: unknown[], total: number): Response {
  return json({ data, message: OK_MESSAGE }, 200, { 'x-total-count': String(total) });
}
