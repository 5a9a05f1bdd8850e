// GraphQL Code Generator (client preset): typed documents of operations/*.graphql over
// schema.graphql, for frontends and examples/ (docs/frontend.md). `npm run codegen` writes
// generated/graphql/ (not committed, as the Prisma clients are not); `npm install` runs it too
// (scripts/generate.mjs). test/app/clients.test.ts fails when generated/graphql/ is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How the schema's scalars reach TypeScript: as JSON carries them (BigInt is always a decimal string). */
const SCALARS = {
  BigInt: { input: 'string | number', output: 'string' },
  Date: 'string',
  DateTime: 'string',
  JSON: 'unknown',
  URL: 'string',
  UUID: 'string',
};

export const CODEGEN_OUTPUT = 'generated/graphql/';

export const codegenConfig = {
  cwd: root,
  schema: path.join(root, 'schema.graphql'),
  documents: [path.join(root, 'operations/*.graphql')],
  // codegen's own progress lines and its failure banner: the error is printed once, below
  silent: true,
  errorsOnly: true,
  generates: {
    [path.join(root, CODEGEN_OUTPUT)]: {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { scalars: SCALARS, enumsAsTypes: true, useTypeImports: true, strictScalars: true },
    },
  },
};

/**
 * What went wrong, once: codegen rejects with an AggregateError whose errors repeat its message, and
 * each message already names the document, line and column (a stack adds only codegen's own files).
 */
export function codegenFailure(e) {
  const messages = [...new Set((e?.errors?.length ? e.errors : [e]).map((x) => String(x?.message ?? x).trim()))];
  return `npm run codegen: nothing was written:\n${messages.join('\n')}`;
}

/**
 * A syntax error of a document in operations/, with its file, line and column: codegen says only
 * that it found no definitions, without the file (graphql's parse says where).
 */
export async function checkSyntax(dir = path.join(root, 'operations')) {
  const { parse } = await import('graphql');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.graphql'))) {
    try {
      parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (e) {
      const at = e.locations?.[0];
      throw new Error(
        `${path.relative(root, path.join(dir, file))}${at ? `:${at.line}:${at.column}` : ''}: ${e.message}`,
      );
    }
  }
}

/** Writes generated/graphql/ (or, with `write` false, answers its files: [{ filename, content }]). */
export async function codegen(write = true) {
  await checkSyntax();
  const { generate } = await import('@graphql-codegen/cli');
  return generate(codegenConfig, write);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await codegen();
  } catch (e) {
    console.error(codegenFailure(e));
    process.exit(1);
  }
  console.log(`wrote ${CODEGEN_OUTPUT} from schema.graphql and operations/`);
}
