import { defineConfig } from 'vitest/config';

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' } as const;

// Two projects: `unit` (everything but the browser; needs no build) and `e2e` (Chromium against `serve`; its global
// setup builds the UI). `npx vitest run --project unit` runs the first alone.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: [
            'main/**/*.test.ts',
            'shared/**/*.test.ts',
            'bench/**/*.test.ts',
            'renderer/**/*.test.ts',
            'test/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          globalSetup: ['e2e/global-setup.ts'],
        },
      },
    ],
  },
});
