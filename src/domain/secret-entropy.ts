// What config.ts asks of JWT_SECRET: randomness, not only length (a secret of 35 spaces is long).

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
