import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests run the real command, which runs dist/: build it from the sources under test first.
    globalSetup: ['test/helpers/build.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file starts its own server on 127.0.0.1 with its own SQLite file; two workers fit the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    // After the summary, every skipped test with the reason it gives (test/helpers/skip-reporter.ts).
    reporters: ['default', './test/helpers/skip-reporter.ts'],
  },
});
