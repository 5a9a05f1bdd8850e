// The page at /app (web/, built into generated/app/ by scripts/build-web.mjs at `npm install`):
// index.html at /app, its hashed script and stylesheet under /app/assets/. The page's policy lets
// it load and connect to this origin alone (docs/security.md#the-page-at-app).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../config.js';
import { AppError } from '../errors.js';
import { IMMUTABLE, listFiles, staticFiles, type StaticFile } from './static-files.js';

export const WEB_APP = '/app';
const BUILT = path.join(ROOT, 'generated/app');

/**
 * Scripts and styles of this origin only (none inline), GraphQL over HTTP and WebSocket to it,
 * no frames, no plugins, no forms elsewhere. The WebSocket origin, the Host header's (checked by
 * http/node.ts before anything routes the request), is named as well as 'self': browsers before
 * CSP level 3 do not count ws: as 'self'; ws: and wss: as TLS may end at a proxy in front.
 */
export function contentSecurityPolicy(request: Request): string {
  const host = request.headers.get('host');
  return [
    "default-src 'self'",
    "img-src 'self' data:",
    host ? `connect-src 'self' ws://${host} wss://${host}` : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The URL paths of the built page: /app and /app/ its index, each asset by its hashed name. */
function builtFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const page: StaticFile = {
    file: path.join(dir, 'index.html'),
    // the page names the assets of this build: asked again each time, so a new build is picked up
    cacheControl: 'no-cache',
    headers: (request) => ({
      'content-security-policy': contentSecurityPolicy(request),
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    }),
  };
  files.set(WEB_APP, page).set(`${WEB_APP}/`, page);
  for (const [name, file] of listFiles(path.join(dir, 'assets')))
    files.set(`${WEB_APP}/assets/${name}`, { file, cacheControl: IMMUTABLE });
  return files;
}

/**
 * The handler of /app and its assets, read from `dir` at start: undefined for any other path, an
 * unknown asset or another method (the REST router's NOT_FOUND). Without a build (an install
 * without devDependencies), /app answers 503 with what to run.
 */
export function webAppFiles(dir = BUILT): (request: Request, url: URL) => Promise<Response | undefined> {
  if (!fs.existsSync(path.join(dir, 'index.html')))
    return async (_request, url) => {
      if (url.pathname !== WEB_APP && !url.pathname.startsWith(`${WEB_APP}/`)) return undefined;
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `the page at ${WEB_APP} was not built: run npm install (or npm run web) with the devDependencies installed`,
      );
    };
  return staticFiles(builtFiles(dir));
}
