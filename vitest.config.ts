import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx', 'web/test/**/*.test.ts', 'web/test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One PostgreSQL server for the PostgreSQL stores' tests and the multi-instance tests.
    globalSetup: ['test/support/postgres-setup.ts'],
  },
});
