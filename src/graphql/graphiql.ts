// GraphiQL without a CDN: the page Yoga renders at /graphql (graphql/yoga.ts's renderGraphiQL)
// loads its script, its styles and Monaco's workers from the gateway, which serves them from the
// installed @graphql-yoga/graphiql package. Yoga's own page loads them from unpkg.com: without
// internet it stays at "Loading …".
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';

const PACKAGE_JSON = createRequire(import.meta.url).resolve('@graphql-yoga/graphiql/package.json');
const DIST = path.join(path.dirname(PACKAGE_JSON), 'dist');
const VERSION = (JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;

/** Where the assets are served; the version in the path lets browsers keep them for a year. */
export const GRAPHIQL_ASSETS = `/graphiql/assets/${VERSION}/`;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Monaco's worker of each label, the labels Yoga's own page gives them. */
const WORKERS: Record<string, string> = {
  editorWorkerService: 'monacoeditorwork/editor.worker.bundle.js',
  json: 'monacoeditorwork/json.worker.bundle.js',
  graphql: 'monacoeditorwork/graphql.worker..bundle.js',
};

/** Every file of dist/ with a type above, by its path under dist/ with forward slashes. */
function listAssets(dir: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory())
      for (const [name, abs] of listAssets(file, `${prefix}${entry.name}/`)) files.set(name, abs);
    else if (TYPES[path.extname(entry.name)]) files.set(`${prefix}${entry.name}`, file);
  }
  return files;
}

const gzipAsync = promisify(gzip);

/**
 * The handler of GET and HEAD under GRAPHIQL_ASSETS: undefined for any other path, method or
 * file, which the REST router then answers with NOT_FOUND. A file is looked up by its exact name
 * in the list made at start, never by joining the request's path to a directory: `..`, `%2e%2e`
 * or an absolute path match no name.
 */
export function graphiqlAssets(): (request: Request, url: URL) => Promise<Response | undefined> {
  const files = listAssets(DIST);
  // the bundle is 5 MB and compresses to a fifth: compressed once, kept for the process's life
  const gzipped = new Map<string, Promise<Buffer>>();
  return async (request, url) => {
    if (!url.pathname.startsWith(GRAPHIQL_ASSETS) || (request.method !== 'GET' && request.method !== 'HEAD'))
      return undefined;
    const name = url.pathname.slice(GRAPHIQL_ASSETS.length);
    const file = files.get(name);
    if (!file) return undefined;
    const headers = new Headers({
      'content-type': TYPES[path.extname(name)]!,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    });
    let body: Buffer;
    if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
      if (!gzipped.has(name))
        gzipped.set(
          name,
          fs.promises.readFile(file).then((raw) => gzipAsync(raw)),
        );
      body = await gzipped.get(name)!;
      headers.set('content-encoding', 'gzip');
    } else body = await fs.promises.readFile(file);
    headers.set('content-length', String(body.length));
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers });
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script>: a `</script>` in a string must not end the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Yoga's own GraphiQL page, with its assets from GRAPHIQL_ASSETS, a favicon that fetches nothing,
 * and the default query in the editor: Yoga's component opens with its own welcome comment unless
 * given `query` (its `defaultQuery` only seeds new tabs), and a comment alone answers "Syntax
 * Error: Unexpected <EOF>". The `query` of the page's URL, which GraphiQL keeps as it is edited,
 * wins over ours after a reload. Its two inline scripts run because the gateway sends no
 * Content-Security-Policy; one would have to allow them.
 */
export function graphiqlPage(options: GraphiQLOptions): string {
  const title = escapeHtml(options.title ?? 'GraphiQL');
  const opts = { ...options, ...(options.defaultQuery ? { query: options.defaultQuery } : {}) };
  const workers = Object.fromEntries(Object.entries(WORKERS).map(([label, file]) => [label, GRAPHIQL_ASSETS + file]));
  return `<!doctype html><html lang=en><head><meta charset=utf-8><title>${title}</title>
<link rel=icon href="data:,"><link rel=stylesheet href="${GRAPHIQL_ASSETS}graphiql.css"></head>
<body id=body class=no-focus-outline><noscript>GraphiQL needs JavaScript.</noscript><div id=root>Loading ${title}…</div>
<script>const workers=${scriptJson(workers)};self.MonacoEnvironment={globalAPI:false,getWorkerUrl:(_id,label)=>workers[label]||workers.editorWorkerService}</script>
<script src="${GRAPHIQL_ASSETS}yoga-graphiql.umd.js"></script>
<script>const opts=${scriptJson(opts)};if(new URLSearchParams(location.search).has('query'))delete opts.query;YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'),opts)</script>
</body></html>`;
}
