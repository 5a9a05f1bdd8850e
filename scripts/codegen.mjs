// GraphQL Code Generator (client preset): typed documents of operations/*.graphql over
// schema.graphql, for frontends and examples/ (docs/frontend.md). `npm run codegen` writes
// generated/graphql/ (not committed, as the Prisma clients are not); `npm install` runs it too
// (scripts/generate.mjs). test/app/clients.test.ts fails when generated/graphql/ is stale.
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
  return `npm run codegen: operations/ does not fit schema.graphql; nothing was written:\n${messages.join('\n')}`;
}

/** Writes generated/graphql/ (or, with `write` false, answers its files: [{ filename, content }]). */
export async function codegen(write = true) {
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
