// Builds the browser page of /app (web/, docs/frontend.md#the-page-at-app) into generated/app/ with
// esbuild: one script and one stylesheet, named by their content's hash, and index.html naming
// them. Everything comes from node_modules; the page fetches nothing from another host.
// `npm install` runs it after codegen (scripts/generate.mjs); `npm run web` runs it alone.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const WEB_OUTPUT = 'generated/app/';

/**
 * A document of operations/ imported by the page becomes its printed text, the text the allow-list
 * of persisted-operations.json holds (src/graphql/persisted.ts): the page runs where only those
 * documents may (GRAPHQL_PERSISTED_ONLY). One copy of each, typed by generated/graphql/.
 */
const printedDocuments = {
  name: 'printed-documents',
  setup(build) {
    build.onLoad({ filter: /\.graphql$/ }, async (args) => {
      const { parse, print } = await import('graphql');
      return { contents: print(parse(fs.readFileSync(args.path, 'utf8'))), loader: 'text' };
    });
  },
};

/** Writes generated/app/ anew: index.html and assets/; answers the asset names and the build's milliseconds. */
export async function buildWeb() {
  const started = performance.now();
  const { build } = await import('esbuild');
  const out = path.join(root, WEB_OUTPUT);
  const staging = `${out.replace(/\/$/, '')}.building`;
  fs.rmSync(staging, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'web/main.tsx' },
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    plugins: [printedDocuments],
    entryNames: '[name]-[hash]',
    outdir: path.join(staging, 'assets'),
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const assets = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const script = assets.find((a) => a.endsWith('.js'));
  const style = assets.find((a) => a.endsWith('.css'));
  if (!script || !style) throw new Error(`build-web: expected one .js and one .css, got ${assets.join(', ')}`);
  const html = fs
    .readFileSync(path.join(root, 'web/index.html'), 'utf8')
    .replace('%SCRIPT%', `/app/assets/${script}`)
    .replace('%STYLE%', `/app/assets/${style}`);
  fs.writeFileSync(path.join(staging, 'index.html'), html);
  // swapped in whole: a server listing generated/app/ never sees half a build
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(staging, out);
  return { assets, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { assets, ms } = await buildWeb();
  const sizes = assets.map((a) => `${a} ${fs.statSync(path.join(root, WEB_OUTPUT, 'assets', a)).size} B`);
  console.log(`wrote ${WEB_OUTPUT} in ${ms} ms: ${sizes.join(', ')}`);
}
