import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A real PostgreSQL server for the PostgreSQL store's tests (JOBPROOF_TEST_PG, or a throw-away cluster).
    globalSetup: ['test/support/pg-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // 2-core CI machines: keep the pool small so child-process tests are not starved.
    maxWorkers: 2,
  },
});
