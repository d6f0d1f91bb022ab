import { defineConfig } from 'vitest/config';
// @ts-expect-error a plain ES module script without types
import { TEST_NODES } from './scripts/test-nodes.mjs';

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' } as const;

/**
 * The as-shipped tier (issue 31): tests that start the compiled build the way users start it (`npm run serve`, the
 * `switchboard` command through its #! line) and talk to it over real sockets. They run once per supported Node
 * major, each project with its own binary (test/support/test-node.ts). Everything else is the `unit` project, which
 * runs the sources in-process; `e2e` drives the UI in Chromium against the build.
 */
export const SHIPPED = [
  '**/*.serve.test.ts',
  'test/shipped/**/*.test.ts',
  'main/connect/cli.test.ts',
  'main/orchestrator/mcp/cli.test.ts',
  'scripts/cli-loader.test.ts',
];
const NOT_HERE = ['**/node_modules/**', '**/dist/**'];

/** The Node majors the build is tested on: 20, 22, 24 (scripts/test-nodes.mjs pins their versions). */
export const NODE_MAJORS = Object.keys(TEST_NODES as Record<string, string>);

// `npx vitest run --project unit` runs the unit tests alone; `--project shipped-node22` the tier on Node 22.
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
          exclude: [...NOT_HERE, ...SHIPPED],
        },
      },
      ...NODE_MAJORS.map((major) => ({
        test: {
          ...shared,
          name: `shipped-node${major}`,
          include: SHIPPED,
          exclude: NOT_HERE,
          env: { SWITCHBOARD_TEST_NODE_MAJOR: major },
          globalSetup: ['test/support/shipped-setup.ts'],
        },
      })),
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          env: { SWITCHBOARD_TEST_NODE_MAJOR: process.versions.node.split('.')[0]! },
          globalSetup: ['test/support/shipped-setup.ts'],
        },
      },
    ],
  },
});
