// Request bodies read within bounds, below both GraphQL over HTTP and the REST routes: each reads
// its bodies here, so neither imports the other.
import { LARGEST_BODY_BYTES } from '../config.js';
import { AppError } from '../errors.js';
import type { InFlightBudget } from '../runtime/in-flight.js';

/** The body as text, refusing (413) past `limit` bytes without reading the rest. */
export async function boundedText(request: Request, limit: number): Promise<string> {
  return (await boundedBytes(request, limit)).toString('utf8');
}

/** The body's bytes, refusing (413) past `limit` bytes without reading the rest, with or without Content-Length. */
export async function boundedBytes(request: Request, limit: number): Promise<Buffer> {
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `the body is too large: at most ${limit} bytes`);
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The request body as a JSON object: application/json (415 otherwise), at most `limit` bytes
 * (413), valid JSON (400), an object (400 with `shape`, which says what is expected).
 */
export async function jsonObjectBody(request: Request, limit: number, shape: string): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the body must be application/json; got ${JSON.stringify(type || 'no Content-Type')}`,
    );
  }
  let body: unknown;
  const text = await boundedText(request, limit);
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('BAD_REQUEST', `the body must be a JSON object ${shape}`);
  return body as Record<string, unknown>;
}

/**
 * The request with its body bounded, refusing (413) past `limit` bytes, chunked bodies included.
 * A Content-Length within the limit bounds the body already (Node's HTTP parser delivers exactly
 * that many bytes and refuses a request that also says chunked), so such a request goes on as it
 * is, its body unread; copying every GraphQL body into a new Request cost ~4% of a request's
 * time (bench/RESULTS.md, third pass). Otherwise the body is read up to the limit into a new
 * request of `RequestClass`, Yoga's own (its fetch API's ponyfill): Node's global Request (undici)
 * cost ~5% of a GraphQL request's time to construct.
 */
export async function boundedRequest(
  request: Request,
  limit: number,
  RequestClass: typeof Request = Request,
): Promise<Request> {
  // the declared length first: a body given as text (http/direct.ts) would be made a stream to be tested
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= limit) return request;
  if (!request.body) return request;
  const body = await boundedBytes(request, limit);
  return new RequestClass(request.url, {
    method: request.method,
    headers: request.headers,
    body: new Uint8Array(body),
    signal: request.signal,
  });
}

/** Bodies up to this many bytes are not counted: every JSON request but an OCR frame. */
export const SMALL_BODY_BYTES = 64 * 1024;

/**
 * Holds a large body's bytes in the budget of bodies in flight until its request is answered
 * (read, a JSON string, a decoded image: several copies live meanwhile), so that many concurrent
 * OCR uploads wait or are refused (503) instead of filling the heap. A chunked body, of unknown
 * length, counts as the largest any request may send; the readers refuse more (413). (HTTP/1.1
 * has a body only with one of those two headers; the stream is not touched here.)
 */
export async function holdLargeBody(request: Request, bodies: InFlightBudget): Promise<(() => void) | undefined> {
  const declared = request.headers.get('content-length');
  const chunked = /chunked/i.test(request.headers.get('transfer-encoding') ?? '');
  const bytes = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : chunked ? LARGEST_BODY_BYTES : 0;
  if (bytes <= SMALL_BODY_BYTES) return undefined;
  return bodies.acquire(Math.min(bytes, LARGEST_BODY_BYTES));
}
