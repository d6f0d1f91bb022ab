import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'bench/**/*.test.ts', 'renderer/**/*.test.ts', 'e2e/**/*.e2e.test.ts'],
    // Builds the UI once per run for the e2e tests (about a second).
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
