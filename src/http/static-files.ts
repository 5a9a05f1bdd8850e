// Files the gateway serves as they are on disk: GraphiQL's assets (graphql/graphiql.ts) and the
// page at /app (http/web-app.ts). One way for both: a fixed table of URL paths made at start, each
// with its type and cache policy, gzipped once when the client takes gzip.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** The content type of each extension served; a file of another is never listed. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** For a file whose name changes with its content (a version or a hash in its path). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface StaticFile {
  /** Its absolute path on disk. */
  file: string;
  cacheControl: string;
  /** More headers of its answers (a page's Content-Security-Policy), by the request. */
  headers?: (request: Request) => Record<string, string>;
}

/** Every file under `dir` with a type of CONTENT_TYPES, by its path under `dir` with forward slashes. */
export function listFiles(dir: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [name, abs] of listFiles(file, `${prefix}${entry.name}/`)) files.set(name, abs);
    else if (CONTENT_TYPES[path.extname(entry.name)]) files.set(`${prefix}${entry.name}`, file);
  }
  return files;
}

const gzipAsync = promisify(gzip);

/**
 * The handler of GET and HEAD of the URL paths of `files`: undefined for any other path or method,
 * which the REST router then answers with NOT_FOUND. A file is found by the request's exact path
 * in the table, never by joining the path to a directory: `..`, `%2e%2e` or an absolute path match
 * no entry.
 */
export function staticFiles(
  files: ReadonlyMap<string, StaticFile>,
): (request: Request, url: URL) => Promise<Response | undefined> {
  // compressed once, kept for the process's life (GraphiQL's bundle is 5 MB, a fifth of it gzipped)
  const gzipped = new Map<string, Promise<Buffer>>();
  return async (request, url) => {
    const entry = files.get(url.pathname);
    if (!entry || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
    const headers = new Headers({
      'content-type': CONTENT_TYPES[path.extname(entry.file)]!,
      'cache-control': entry.cacheControl,
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
      ...entry.headers?.(request),
    });
    let body: Buffer;
    if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
      if (!gzipped.has(entry.file)) {
        const compressed = fs.promises.readFile(entry.file).then((raw) => gzipAsync(raw));
        // a failed read is tried again by the next request, not remembered
        compressed.catch(() => gzipped.delete(entry.file));
        gzipped.set(entry.file, compressed);
      }
      body = await gzipped.get(entry.file)!;
      headers.set('content-encoding', 'gzip');
    } else body = await fs.promises.readFile(entry.file);
    headers.set('content-length', String(body.length));
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers });
  };
}
