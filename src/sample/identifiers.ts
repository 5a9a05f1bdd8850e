/** Security identifiers (FIGI, CUSIP, ISIN, CIK, PermID) with valid check digits, unique per security index. */
import { rngFor } from './random.js';

/** Identifier codes are bijections of the security index; this keeps every code space far from full. */
export const MAX_SECURITIES = 1_000_000;

/** index -> index * multiplier + offset (mod modulus): a bijection when multiplier is coprime to modulus. */
const CODE_MULTIPLIER = 15_485_863; // prime, coprime to every modulus below
export const scatter = (index: number, modulus: number, offset: number): number =>
  (index * CODE_MULTIPLIER + offset) % modulus;

/** Character value used by FIGI, CUSIP and ISIN: digits as themselves, A=10 .. Z=35. */
const charValue = (ch: string): number => {
  const code = ch.charCodeAt(0);
  return code <= 57 ? code - 48 : code - 55;
};

/** FIGI (and CUSIP) check digit: every second character's value doubled, digits of all values summed. */
function modifiedLuhn(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const v = charValue(body[i]!) * (i % 2 === 1 ? 2 : 1);
    sum += Math.floor(v / 10) + (v % 10);
  }
  return String((10 - (sum % 10)) % 10);
}

/** ISIN check digit: letters expanded to two digits, then Luhn over the digit string. */
function isinCheckDigit(body: string): string {
  const digits = [...body].map((ch) => String(charValue(ch))).join('');
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let v = digits.charCodeAt(i) - 48;
    if (double) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
  }
  return String((10 - (sum % 10)) % 10);
}

const FIGI_CHARS = 'BCDFGHJKLMNPQRSTVWXYZ0123456789'; // FIGIs use consonants and digits only
const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function encode(n: number, alphabet: string, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = alphabet[n % alphabet.length] + out;
    n = Math.floor(n / alphabet.length);
  }
  return out;
}

const FIGI_SPACE = 31 ** 5;
const CUSIP_SPACE = 10 * 36 ** 5;

export interface CodeOffsets {
  figi: number;
  cusip: number;
  cik: number;
  permid: number;
}

export function codeOffsets(seed: number): CodeOffsets {
  const rng = rngFor(seed, 'codes');
  return {
    figi: rng.int(0, FIGI_SPACE - 1),
    cusip: rng.int(0, CUSIP_SPACE - 1),
    cik: rng.int(0, 8_999_999),
    permid: rng.int(0, 999_999),
  };
}

/** kind 0: listing FIGI, 1: composite FIGI, 2: share-class FIGI (its own `BBG001` prefix). */
export function figiOf(index: number, kind: 0 | 1 | 2, offsets: CodeOffsets): string {
  const body = `${kind === 2 ? 'BBG001' : 'BBG000'}${encode(scatter(index * 3 + kind, FIGI_SPACE, offsets.figi), FIGI_CHARS, 5)}`;
  return body + modifiedLuhn(body);
}

export function cusipOf(index: number, issue: string, offsets: CodeOffsets): string {
  const n = scatter(index, CUSIP_SPACE, offsets.cusip);
  const body = `${Math.floor(n / 36 ** 5)}${encode(n % 36 ** 5, BASE36, 5)}${issue}`;
  return body + modifiedLuhn(body);
}

export const isinOf = (cusip: string): string => `US${cusip}${isinCheckDigit(`US${cusip}`)}`;

export const cikOf = (index: number, offsets: CodeOffsets): string =>
  String(1_000_000 + scatter(index, 9_000_000, offsets.cik)).padStart(10, '0');
export const permidOf = (index: number, offsets: CodeOffsets): string =>
  String(4_295_000_000 + scatter(index, 1_000_000, offsets.permid));
