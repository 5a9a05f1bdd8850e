// Reading the addresses of the environment: where the service listens, where clients reach it and
// which origins' pages may call it. Pure functions, as domain/env-values.ts's, that config.ts calls once.
import { ConfigError } from './env-values.js';

export function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 4000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be an integer from 1 to 65535; got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

export function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const rule =
    'PUBLIC_URL must be an http:// or https:// origin, optionally with a path prefix and without credentials, query or fragment, like https://api.example.com or https://example.com/market';
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    /[?#]/.test(raw)
  ) {
    throw new ConfigError(`${rule}; got ${JSON.stringify(raw)}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * CORS_ORIGINS: a comma list of exact origins, as browsers send them in `Origin`. A path, a `*` or `null`
 * (sandboxed pages, file:) is refused: each would grant the user's cookies to pages nobody listed.
 */
export function corsOrigins(raw: string | undefined): readonly string[] {
  const origins = new Set<string>();
  for (const entry of (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    if (entry === '*')
      throw new ConfigError(
        "CORS_ORIGINS cannot be *: pages of every site would get the user's cookies; list the origins, like https://app.example.com,http://localhost:5173",
      );
    const match = /^(https?):\/\/([^/?#@\s]+)$/i.exec(entry);
    let url: URL | undefined;
    try {
      url = match ? new URL(entry) : undefined;
    } catch {
      url = undefined;
    }
    if (!url)
      throw new ConfigError(
        `CORS_ORIGINS must be a comma list of origins, each scheme://host[:port] with http or https and no path, like https://app.example.com; got ${JSON.stringify(entry)}`,
      );
    origins.add(url.origin); // as browsers write it: lower case, no default port
  }
  return Object.freeze([...origins]);
}
