// The fuzz suite of test/attack/fuzz.test.ts at a larger count, and its replay in production mode
// (test/attack/production.test.ts): npm run bench -- fuzz [--scale 10] (--scale 10 = 100,000
// generated requests per database, twice; PostgreSQL too when TEST_DATABASE_URL is set).
import { spawnSync } from 'node:child_process';
import { ROOT } from '../src/config.js';

const at = process.argv.indexOf('--scale');
const scale = at > 0 ? Number(process.argv[at + 1]) : 10;
if (!(scale > 0)) {
  console.error(`--scale must be a positive number, got ${process.argv[at + 1]}`);
  process.exit(2);
}
const r = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', 'test/attack/fuzz.test.ts', 'test/attack/production.test.ts'],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, FUZZ_SCALE: String(scale) } },
);
process.exit(r.status ?? 1);
