// Request bodies read within bounds, below both GraphQL over HTTP and the REST routes: each reads
// its bodies here, so neither imports the other.
import { AppError } from '../errors.js';
import type { BodyBudget } from '../runtime/bodies.js';
import type { Deadline } from '../runtime/deadline.js';
import { PaceMeter, type Pace } from './pace.js';

/**
 * A body past its limit. The rest is not read: the connection closes after the answer (reading on
 * would take the whole body at the client's pace; cancelling the stream would cut the connection
 * before the answer).
 */
const tooLarge = (limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `the body is too large: at most ${limit} bytes`, { connection: 'close' });

/** The body as text, refusing (413) past `limit` bytes without reading the rest. */
export async function boundedText(request: Request, limit: number): Promise<string> {
  return (await boundedBytes(request, limit)).toString('utf8');
}

/** The body's bytes, refusing (413) past `limit` bytes without reading the rest, with or without Content-Length. */
export async function boundedBytes(request: Request, limit: number): Promise<Buffer> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge(limit);
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
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Refuses (415) a body that does not say it is application/json: from its headers, before a byte of it is read. */
export function checkJsonType(request: Request): void {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the body must be application/json; got ${JSON.stringify(type || 'no Content-Type')}`,
    );
  }
}

/**
 * The request body as a JSON object: application/json (415 otherwise), at most `limit` bytes
 * (413), valid JSON (400), an object (400 with `shape`, which says what is expected).
 */
export async function jsonObjectBody(request: Request, limit: number, shape: string): Promise<Record<string, unknown>> {
  checkJsonType(request);
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

/** Bodies declared at up to this many bytes are not counted (every JSON request but an OCR frame): they go on unread. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** What reading a body takes from its app: the budget of bodies in flight and the slowest pace. */
export interface BodyReading {
  budget: BodyBudget;
  pace: Pace;
}

export interface BodyToRead {
  /** The caller's own largest body (its tier's, its route's): past it 413, before reading when declared. */
  limit: number;
  /** The client address of a caller without a credential: its bytes count against that address's part too. */
  anonymous: string | undefined;
  /** The request's deadline: a wait for room in the bodies in flight ends there too (TIMEOUT). */
  deadline?: Deadline;
  /** The class of the request made with the body read: Yoga's own for GraphQL (graphql/http.ts), else the request's own (the adapter's, whose signal it carries). */
  RequestClass?: typeof Request;
}

/**
 * The request with its body read, called once the caller is known (docs/security.md, "Bodies in
 * flight"). A body declared within SMALL_BODY_BYTES goes on unread and uncharged: Node's
 * requestTimeout bounds its time (server.ts). Any other is read here: charged to the bodies in flight
 * before it is read when its length is declared, else as it arrives, in steps, never past the
 * caller's own limit (413 beyond it), and cut with 408 when it falls behind the pace. The charge is
 * held until `release` (the answer sent); on a refusal nothing stays held.
 */
export async function readBody(
  request: Request,
  reading: BodyReading,
  { limit, anonymous, deadline, RequestClass = request.constructor as typeof Request }: BodyToRead,
): Promise<{ request: Request; release?: () => void }> {
  const header = request.headers.get('content-length');
  const declared = header !== null && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  if (!request.body || (declared !== undefined && declared <= SMALL_BODY_BYTES)) return { request };
  const hold = reading.budget.hold(limit, anonymous, deadline);
  try {
    if (declared !== undefined) await hold.grow(declared);
    const body = await pacedBytes(request.body, limit, reading.pace, (size) => hold.grow(size));
    const read = new RequestClass(request.url, {
      method: request.method,
      headers: request.headers,
      body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength),
      signal: request.signal,
    });
    return { request: read, release: () => hold.release() };
  } catch (e) {
    hold.release();
    // the body is left unread: the connection closes after the answer, else Node would read it to its end
    throw e instanceof AppError && !e.headers.connection
      ? new AppError(e.code, e.message, { ...e.headers, connection: 'close' })
      : e;
  }
}

/**
 * The stream's bytes, at most `limit` (413), each chunk charged by `charge` before the next is read,
 * failing with 408 once they fall behind `pace` (a wait for the charge is the server's, not counted).
 * Neither refusal cancels the stream: that would cut the connection before the answer.
 */
async function pacedBytes(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  pace: Pace,
  charge: (size: number) => Promise<void>,
): Promise<Buffer> {
  const reader = stream.getReader();
  let late: AppError | undefined;
  let fail: (e: AppError) => void = () => {};
  const meter = new PaceMeter(pace, (e) => fail((late = e)));
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      // the read is left pending when the pace fails: the connection closes after the 408
      const { done, value } = await new Promise<ReadableStreamReadResult<Uint8Array>>((resolve, reject) => {
        if (late) return reject(late); // found when the meter resumed
        fail = reject;
        reader.read().then(resolve, reject);
      });
      if (done) break;
      size += value.byteLength;
      meter.arrived(value.byteLength);
      if (size > limit) throw tooLarge(limit);
      chunks.push(value);
      meter.pause();
      await charge(size);
      meter.resume();
    }
  } finally {
    meter.stop();
  }
  return Buffer.concat(chunks, size);
}
