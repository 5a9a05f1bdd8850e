// What config.ts asks of JWT_SECRET: randomness, not only length (a secret of 35 spaces is long).
import { ConfigError } from './env-values.js';

export const SECRET_RULE = 'at least 32 characters and an estimated 128 bits of entropy';

/**
 * Bits a secret carries, estimated: its length times the Shannon entropy of its characters, where
 * a run of 4 or more characters that repeats an earlier part of it counts as one character. So
 * 35 spaces carry 0, a word repeated to any length about as much as the word once, and
 * `openssl rand -base64 32` (44 characters) about 200.
 */
export function estimatedSecretBits(secret: string): number {
  const counts = new Map<string, number>();
  for (const c of secret.split('')) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / secret.length) * Math.log2(n / secret.length);
  let symbols = 0;
  for (let i = 0; i < secret.length; symbols++) {
    let repeat = 0;
    // the longest run from i that also starts before i (overlapping allowed, as in LZ77)
    for (let len = 4; i + len <= secret.length && secret.indexOf(secret.slice(i, i + len)) < i; len++) repeat = len;
    i += repeat || 1;
  }
  return symbols * perChar;
}

/** Throws the ConfigError that says what JWT_SECRET lacks, if it is short or not random. */
export function checkSecret(secret: string): void {
  if (secret.length < 32)
    throw new ConfigError(
      `JWT_SECRET must be at least 32 characters; got ${secret.length} (generate one with: openssl rand -base64 32)`,
    );
  const bits = Math.floor(estimatedSecretBits(secret));
  if (bits < 128) {
    throw new ConfigError(
      `JWT_SECRET must be random (${SECRET_RULE}); this one carries about ${bits} bits: repeated characters, words or patterns add little. Generate one with: openssl rand -base64 32`,
    );
  }
}
