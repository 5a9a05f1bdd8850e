// GraphiQL without a CDN: the page Yoga renders at /graphql (graphql/yoga.ts's renderGraphiQL)
// loads its script, its styles and Monaco's workers from the gateway, which serves them from the
// installed @graphql-yoga/graphiql package. Yoga's own page loads them from unpkg.com: without
// internet it stays at "Loading …".
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { GraphiQLOptions } from 'graphql-yoga';
import { IMMUTABLE, listFiles, staticFiles, type StaticFile } from '../http/static-files.js';

const PACKAGE_JSON = createRequire(import.meta.url).resolve('@graphql-yoga/graphiql/package.json');
const DIST = path.join(path.dirname(PACKAGE_JSON), 'dist');
const VERSION = (JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;

/** Where the assets are served; the version in the path lets browsers keep them for a year. */
export const GRAPHIQL_ASSETS = `/graphiql/assets/${VERSION}/`;

/** Monaco's worker of each label, the labels Yoga's own page gives them. */
const WORKERS: Record<string, string> = {
  editorWorkerService: 'monacoeditorwork/editor.worker.bundle.js',
  json: 'monacoeditorwork/json.worker.bundle.js',
  graphql: 'monacoeditorwork/graphql.worker..bundle.js',
};

/**
 * The handler of GET and HEAD of the files of dist/ (scripts and styles) under GRAPHIQL_ASSETS:
 * undefined for any other path, method or file (http/static-files.ts).
 */
export function graphiqlAssets(): (request: Request, url: URL) => Promise<Response | undefined> {
  const files = new Map<string, StaticFile>();
  for (const [name, file] of listFiles(DIST))
    if (!name.endsWith('.html')) files.set(GRAPHIQL_ASSETS + name, { file, cacheControl: IMMUTABLE });
  return staticFiles(files);
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
