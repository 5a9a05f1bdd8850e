// Derives the PostgreSQL schema from the SQLite one and generates both Prisma clients and the
// Pothos types, and unpacks the OCR model (tessdata.mjs). Runs on `npm install` (postinstall);
// needs no network: the Prisma CLI only needs *a* schema-engine path to exist for `generate`, so
// it is pointed at a stub that fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpackFastModel } from './tessdata.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sqliteSchema = path.join(root, 'prisma/schema.prisma');
const pgSchema = path.join(root, 'prisma/postgres/schema.prisma');

export function postgresSchemaFrom(source) {
  const out = source
    .replace(/generator pothos \{[^}]*\}\n*/s, '')
    .replace(/(output\s*=\s*)"\.\.\/generated\/prisma"/, '$1"../../generated/prisma-pg"')
    .replace(/provider = "sqlite"/, 'provider = "postgresql"')
    .replace(/(importFileExtension\s*=\s*"js"\n)\}/, '$1  previewFeatures     = ["relationJoins"]\n}');
  return '// GENERATED from prisma/schema.prisma by scripts/generate.mjs - do not edit\n' + out;
}

const check = process.argv.includes('--check');
const wanted = postgresSchemaFrom(fs.readFileSync(sqliteSchema, 'utf8'));
if (check) {
  const have = fs.existsSync(pgSchema) ? fs.readFileSync(pgSchema, 'utf8') : '';
  if (have !== wanted) {
    console.error('prisma/postgres/schema.prisma is stale: run npm run generate');
    process.exit(1);
  }
  process.exit(0);
}
fs.mkdirSync(path.dirname(pgSchema), { recursive: true });
fs.writeFileSync(pgSchema, wanted);

const prismaBin = path.join(root, 'node_modules/prisma/build/index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? path.join(root, 'scripts/no-schema-engine'),
  // generators such as prisma-pothos-types are found on PATH
  PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
for (const schema of [sqliteSchema, pgSchema]) {
  execFileSync(process.execPath, [prismaBin, 'generate', '--schema', schema], { cwd: root, env, stdio: 'inherit' });
}

// the OCR engine's default model (src/ocr/engine.ts)
unpackFastModel(root);

// the typed documents of operations/ for frontends and examples/ (scripts/codegen.mjs), where the
// development tools are installed (an install without devDependencies, as the Dockerfile's, has none)
const codegenInstalled = await import('@graphql-codegen/cli').then(() => true, () => false);
if (codegenInstalled) await (await import('./codegen.mjs')).codegen();
