import { hash, randomBytes } from 'node:crypto';

// API keys are long random strings, so a fast hash is enough to make a stolen table useless;
// lookups stay one indexed equality on the hash. Every API-key request hashes its key (the caller
// cache is keyed by it): the one-shot hash costs a third of a Hash object's (bench/RESULTS.md).
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function newApiKey(): string {
  return `mdg_${randomBytes(24).toString('base64url')}`;
}

/** What listings show of a key: enough to tell keys apart, useless to an attacker. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, Math.min(8, key.length));
}
