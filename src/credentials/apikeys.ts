import { createHash, randomBytes } from 'node:crypto';

// API keys are long random strings, so a fast hash is enough to make a stolen table useless;
// lookups stay one indexed equality on the hash.
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function newApiKey(): string {
  return `mdg_${randomBytes(24).toString('base64url')}`;
}

/** What listings show of a key: enough to tell keys apart, useless to an attacker. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, Math.min(8, key.length));
}
