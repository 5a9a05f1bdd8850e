import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql instance: Vite would otherwise load graphql's .mjs while Pothos (loaded by Node)
  // gets the .js build, and the schema would be "from another module or realm".
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
