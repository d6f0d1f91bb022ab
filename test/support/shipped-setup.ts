// vitest globalSetup of the as-shipped projects (vitest.config.ts): the build they start is made first, once (the
// runtime, the UI and the preload, when a source is newer than the last build: what `npm ci` and `npm run serve`
// do), the project's Node binary is installed from the npm registry when it is not the running one, and that Node
// writes the build's V8 code cache.
import type { TestProject } from 'vitest/node';
// @ts-expect-error a plain ES module script without types
import { build, warmCodeCache } from '../../scripts/build.mjs';
// @ts-expect-error a plain ES module script without types
import { testNodeBinary } from '../../scripts/test-nodes.mjs';

let built: Promise<unknown> | null = null;

export default async function setup(project: TestProject): Promise<void> {
  built ??= (build as (o: object) => Promise<string[]>)({
    ifStale: true,
    log: (m: string) => process.stderr.write(`[build] ${m}\n`),
  });
  await built;
  const major = (project.config.env as Record<string, string> | undefined)?.SWITCHBOARD_TEST_NODE_MAJOR;
  if (!major) return;
  // The project's Node writes the build's code cache first, as a user's first start does: every start of the tier
  // then runs from an accepted cache, the way users' starts run (issue 31's failures showed only then).
  (warmCodeCache as (cli?: string, node?: string) => void)(undefined, (testNodeBinary as (m: string) => string)(major));
}
