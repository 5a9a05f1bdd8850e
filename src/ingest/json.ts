import { randomUUID } from 'node:crypto';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../domain/json-depth.js';

/**
 * JSON.parse that keeps integers beyond 2^53 exact: they come back as `bigint` (19-digit
 * `sip_timestamp`s, sequence numbers), every other number as a `number`. Node 20's JSON.parse has
 * no access to the source text of a number, so big integer literals are first rewritten into
 * tagged strings and turned into bigints after parsing.
 *
 * The rewrite looks only at literals in value position (after `:`, `,` or `[`). A match inside a
 * string would put a bare `#` token outside it and make the text invalid, so a text that fails to
 * parse after the rewrite is rewritten again string-aware (slower, and only then).
 */
const TAG = `#bigint:${randomUUID()}:`;
const BIG_LITERAL = /([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g;
const STRING_OR_BIG_LITERAL = /("(?:[^"\\]|\\.)*")|([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g;
const TAGGED = `$1"${TAG}$2"`;

export function parseJsonExact(text: string): unknown {
  const tagged = text.replace(BIG_LITERAL, TAGGED);
  if (tagged.length === text.length) return bounded(JSON.parse(text));
  let value: unknown;
  try {
    value = JSON.parse(tagged);
  } catch {
    try {
      value = JSON.parse(
        text.replace(STRING_OR_BIG_LITERAL, (m, str: string | undefined, lead: string, digits: string) =>
          str !== undefined ? m : `${lead}"${TAG}${digits}"`,
        ),
      );
    } catch {
      JSON.parse(text); // throws the error about the text as given
      throw new SyntaxError('invalid JSON');
    }
  }
  return untag(bounded(value));
}

/** `value`, unless it nests deeper than any record does: what walks it next (untag, Prisma) recurses. */
function bounded(value: unknown): unknown {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH))
    throw new SyntaxError(`arrays and objects nest more than ${MAX_JSON_DEPTH} levels deep; no record needs more`);
  return value;
}

function untag(v: unknown): unknown {
  if (typeof v === 'string') return v.startsWith(TAG) ? exactInteger(v.slice(TAG.length)) : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'object' || typeof x === 'string') v[i] = untag(x);
    }
  } else {
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = o[k];
      if (typeof x === 'object' || typeof x === 'string') o[k] = untag(x);
    }
  }
  return v;
}

/** 16 digits may still be safe (up to 9007199254740991); 17 and more never are. */
function exactInteger(digits: string): number | bigint {
  const length = digits.charCodeAt(0) === 45 ? digits.length - 1 : digits.length;
  if (length > 16) return BigInt(digits);
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : BigInt(digits);
}
