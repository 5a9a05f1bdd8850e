// npm run bench -- <name> [args]: runs bench/<name>.ts (names: the .ts files here but this one).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const names = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- <${names.join('|')}> [options]`);
  process.exit(2);
}
process.argv.splice(2, 1);
await import(`./${name}.ts`);
