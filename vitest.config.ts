import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql instance: Vite would otherwise load graphql's .mjs while Pothos (loaded by Node)
  // gets the .js build, and the schema would be "from another module or realm".
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    // a directory for the seeded template databases that test files copy (test/helpers.ts)
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // A worker runs file after file without importing the app's module graph (Prisma clients, the
    // schema, the routes) again for each: 1-3 s of CPU per file, ~30% of the suite's wall time on 2
    // cores (measured). The test files share no state through those modules: each makes its own
    // databases, apps and buses, and puts back what it changes in process.env.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
