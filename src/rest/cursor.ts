import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/**
 * The `cursor` of a `next_url`: the request's own parameters plus the keyset position, sealed with
 * an HMAC so that a client can follow it but not alter it (a changed or corrupted cursor is a 400).
 * Its parameters go through the same validation as a first request.
 */
export interface CursorState {
  /** The route it belongs to, so a trades cursor is refused on quotes. */
  route: string;
  params: Record<string, string>;
  /** The keyset cursor of the last row served. */
  after: string;
}

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', `${secret}:rest-cursor`).update(body).digest().subarray(0, 16);
}

export function sealCursor(secret: string, state: CursorState): string {
  const body = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

export function openCursor(secret: string, route: string, token: string): CursorState {
  const bad = new AppError('BAD_REQUEST', 'parameter cursor is not valid: follow next_url exactly as it was given');
  const [body, sig] = token.split('.');
  if (!body || !sig || token.length > 8_192) throw bad;
  const expected = mac(secret, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad;
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState;
  } catch {
    throw bad;
  }
  if (state.route !== route || typeof state.after !== 'string' || typeof state.params !== 'object' || state.params === null) throw bad;
  return state;
}
