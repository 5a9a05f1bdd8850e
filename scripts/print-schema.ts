// Writes schema.graphql from the Pothos schema (sorted SDL). A test fails when it is stale.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { printedSchema } from '../src/schema/index.js';

fs.writeFileSync(path.join(ROOT, 'schema.graphql'), printedSchema());
console.log('wrote schema.graphql');
