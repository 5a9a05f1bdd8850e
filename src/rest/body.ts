import { AppError } from '../errors.js';

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
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the body must be application/json; got ${JSON.stringify(type || 'no Content-Type')}`);
  }
  let body: unknown;
  const text = await boundedText(request, limit);
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('BAD_REQUEST', `the body must be a JSON object ${shape}`);
  return body as Record<string, unknown>;
}
