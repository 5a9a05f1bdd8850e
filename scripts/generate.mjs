// Generates the Prisma client and the Pothos types from prisma/schema.prisma, unpacks the OCR
// model (tessdata.mjs), and, with the development tools, the typed documents and the page at /app.
// Runs on `npm install` (postinstall); needs no network: the Prisma CLI only needs *a*
// schema-engine path to exist for `generate`, so it is pointed at a stub that fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpackFastModel } from './tessdata.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schema = path.join(root, 'prisma/schema.prisma');
// an install from before PostgreSQL became the only database left a second client behind
fs.rmSync(path.join(root, 'generated/prisma-pg'), { recursive: true, force: true });

const prismaBin = path.join(root, 'node_modules/prisma/build/index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? path.join(root, 'scripts/no-schema-engine'),
  // generators such as prisma-pothos-types are found on PATH
  PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
execFileSync(process.execPath, [prismaBin, 'generate', '--schema', schema], { cwd: root, env, stdio: 'inherit' });

// the OCR engine's default model (src/ocr/engine.ts)
unpackFastModel(root);

// the typed documents of operations/ for frontends and examples/ (scripts/codegen.mjs), where the
// development tools are installed (an install without devDependencies, as the Dockerfile's, has none)
const codegenInstalled = await import('@graphql-codegen/cli').then(
  () => true,
  () => false,
);
if (codegenInstalled) {
  const { codegen, codegenFailure } = await import('./codegen.mjs');
  try {
    await codegen();
  } catch (e) {
    console.error(codegenFailure(e));
    process.exit(1);
  }
  // the page at /app from web/, over the documents just generated (scripts/build-web.mjs); the
  // runtime image copies generated/app/ from the build stage, which has the devDependencies
  const { buildWeb, WEB_OUTPUT } = await import('./build-web.mjs');
  const { ms } = await buildWeb();
  console.log(`wrote ${WEB_OUTPUT} in ${ms} ms`);
}
