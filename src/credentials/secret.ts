import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

/**
 * The configuration with a signing secret: JWT_SECRET if set (required in production, which
 * config.ts enforces), else one generated once and kept in `<dataDir>/jwt-secret` (mode 0600), so
 * sessions survive restarts of the embedded default.
 */
export function withSigningSecret(config: Readonly<Config>): Readonly<Config> {
  if (config.auth.jwtSecret) return config;
  const file = path.join(config.dataDir, 'jwt-secret');
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    secret = randomBytes(48).toString('base64url');
    // wx: if another process created it first, use theirs
    try {
      fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    } catch {
      secret = fs.readFileSync(file, 'utf8').trim();
    }
  }
  return Object.freeze({ ...config, auth: Object.freeze({ ...config.auth, jwtSecret: secret }) });
}
