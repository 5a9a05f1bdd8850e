// Writes persisted-operations.json (the allow-list of GRAPHQL_PERSISTED_ONLY) from operations/*.graphql.
// A test fails when the two disagree.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { PERSISTED_OPERATIONS_FILE, persistedOperationsJson } from '../src/graphql/persisted.js';
import { schema } from '../src/schema/index.js';

const json = persistedOperationsJson(schema);
fs.writeFileSync(PERSISTED_OPERATIONS_FILE, json);
console.log(
  `wrote ${path.relative(ROOT, PERSISTED_OPERATIONS_FILE)}: ${Object.keys(JSON.parse(json)).length} documents`,
);
