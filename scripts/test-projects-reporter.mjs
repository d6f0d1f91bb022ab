// A vitest reporter for `npm test` (scripts/test.mjs): writes each project's counts (passed, failed, skipped) to the
// file SWITCHBOARD_TEST_PROJECTS names, so the run can show the as-shipped tier apart, per Node (vitest's JSON report
// names files, not projects, and the tier runs the same files once per Node).
import { writeFileSync } from 'node:fs';

export default class ProjectCounts {
  onTestRunEnd(testModules) {
    const file = process.env.SWITCHBOARD_TEST_PROJECTS;
    if (!file) return;
    const counts = {};
    for (const mod of testModules) {
      const c = (counts[mod.project.name] ??= { passed: 0, failed: 0, skipped: 0 });
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') c.passed++;
        else if (state === 'failed') c.failed++;
        else c.skipped++;
      }
    }
    writeFileSync(file, JSON.stringify(counts));
  }
}
