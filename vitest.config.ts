import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);
const env = process.env;

/**
 * What parts of the suite need from the machine, each provided by a variable that .ci/run sets.
 * A test names what it needs as a tag (`it('…', { tags: ['redis'] }, …)`) and is skipped without
 * it; test/skip-reporter.ts prints the description of each such need, and what it skipped, at the
 * end of the run. Every database test runs on PostgreSQL: TEST_DATABASE_URL's server, or an embedded
 * cluster the run starts (test/global-setup.ts).
 */
const needs = [
  {
    name: 'redis',
    skip: !env.TEST_REDIS_URL,
    description: 'tests that need Redis: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379',
  },
  {
    name: 'browser',
    skip: env.TEST_BROWSER !== '1',
    description:
      "the browser tests (GraphiQL, the page at /app): set TEST_BROWSER=1 (with Debian's chromium at /usr/bin/chromium: apt-get install chromium)",
  },
];

export default defineConfig({
  // One graphql instance: Vite would otherwise load graphql's .mjs while Pothos (loaded by Node)
  // gets the .js build, and the schema would be "from another module or realm".
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    tags: needs,
    reporters: ['default', './test/skip-reporter.ts'],
    // a directory for the seeded template databases that test files copy (test/helpers.ts)
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // A worker runs file after file without importing the app's module graph (Prisma clients, the
    // schema, the routes) again for each: 1-3 s of CPU per file, ~30% of the suite's wall time on 2
    // cores (measured). The test files share no state through those modules: each makes its own
    // databases, apps and buses, and puts back what it changes in process.env.
    isolate: false,
    // Two files at a time whatever the cores (vitest's default is one fewer than the cores: one on
    // a 2-core machine): most of a file's time is spent waiting on PostgreSQL, child processes and
    // timers, so a second file fills the gaps. Each file has databases, ports and keys of its own.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
