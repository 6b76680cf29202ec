import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file starts its own server on 127.0.0.1 with its own SQLite file; two workers fit the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
