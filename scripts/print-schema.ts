// Writes schema.graphql from the Pothos schema (sorted SDL); a test fails when it is stale.
// `--subgraph` prints the same graph as an Apollo Federation 2 subgraph to stdout instead
// (docs/federation.md): what `_service { sdl }` answers, sorted, for a composition check elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { printedSchema, printedSubgraph } from '../src/schema/index.js';

if (process.argv.includes('--subgraph')) {
  process.stdout.write(printedSubgraph());
} else {
  fs.writeFileSync(path.join(ROOT, 'schema.graphql'), printedSchema());
  console.log('wrote schema.graphql');
}
