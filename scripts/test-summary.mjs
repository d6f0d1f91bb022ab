// The last line of `npm test` from vitest's JSON report, and the exit code that goes with it (test-summary.test.ts).

/**
 * @param {any} report vitest's JSON report, or null when there is none
 * @param {{ tscFailed: boolean, unformatted?: boolean, vitestStatus: number,
 *   projects?: Record<string, { passed: number, failed: number, skipped: number }> | null,
 *   setupFailures?: string[] }} run
 * @returns {{ line: string, notes: string[], code: number }}
 */
export function summarize(report, run) {
  const notes = [];
  const files = report?.testResults ?? [];
  const passed = report?.numPassedTests ?? 0;
  let failed = report?.numFailedTests ?? 0;
  const skipped = (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0);

  // A file that failed without a failed test in it (a hook threw, an import broke): one failure each, never silent.
  const brokenFiles = files.filter(
    (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
  );
  failed += brokenFiles.length;
  for (const f of brokenFiles)
    notes.push(`failed outside any test: ${f.name}${f.message ? ` (${String(f.message).split('\n')[0]})` : ''}`);
  if (!report) {
    failed += 1;
    notes.push('vitest wrote no report: it did not run');
  }
  if (run.tscFailed) {
    failed += 1;
    notes.push('the type check failed (see the tsc output above)');
  }
  // Something the run needed could not be had (a Node of the as-shipped tier): its tests did not run, which is a
  // failure (the note says why and how to run the rest), never a silent pass.
  for (const why of run.setupFailures ?? []) {
    failed += 1;
    notes.push(why);
  }
  if (run.unformatted) {
    failed += 1;
    notes.push('some files are not formatted (listed above): run npm run format');
  }
  // vitest failed for a reason no count shows (an unhandled error between tests): the line must still say so.
  if (run.vitestStatus !== 0 && failed === 0) {
    failed = 1;
    notes.push(`vitest exited with status ${run.vitestStatus} (see its output above)`);
  }
  if (passed === 0 && failed === 0) {
    failed = 1;
    notes.push('no test passed: nothing was tested');
  }

  const e2eSkipped = files
    .filter((f) => /(^|\/)e2e\//.test(f.name ?? '') && f.status !== 'failed')
    .reduce(
      (n, f) => n + (f.assertionResults ?? []).filter((a) => a.status === 'pending' || a.status === 'skipped').length,
      0,
    );
  if (e2eSkipped > 0) {
    notes.push(
      `${e2eSkipped} e2e tests did not run: no Chromium was found. Install it (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary, then run npm test again.`,
    );
  }

  // The real desktop app's smoke test needs Electron's binary and a display (main/electron/electron.smoke.test.ts).
  const smokeSkipped = skippedIn(files, /electron\.smoke\.test\.ts$/);
  if (smokeSkipped > 0) {
    notes.push(
      `${smokeSkipped} Electron smoke tests did not run: they need Electron's binary (ELECTRON_PATH, or node node_modules/electron/install.js where its download is reachable) and a display (DISPLAY, or Xvfb: apt-get install xvfb). The shell's lifecycle tests ran against a stand-in.`,
    );
  }

  const shipped = asShipped(run.projects);
  if (shipped) notes.push(shipped);

  const line = `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
  return { line, notes, code: failed > 0 ? 1 : 0 };
}

/** Tests that did not run (skipped or pending) in the report's files whose name matches `pattern`. */
function skippedIn(files, pattern) {
  return files
    .filter((f) => pattern.test(f.name ?? '') && f.status !== 'failed')
    .reduce(
      (n, f) => n + (f.assertionResults ?? []).filter((a) => a.status === 'pending' || a.status === 'skipped').length,
      0,
    );
}

/**
 * The as-shipped tier's counts apart, per Node (vitest.config.ts: the projects shipped-node<N>, and e2e, which runs
 * the build on the test runner's Node): `as shipped (node 20, 22, 24): 1510 passed, 0 failed (node 20: 590 and 88 in
 * the browser; node 22: 416; node 24: 416)`. Null when no such project ran.
 * @param {Record<string, { passed: number, failed: number, skipped: number }> | null | undefined} projects
 * @param {string} runnerMajor the test runner's Node major (where e2e runs)
 */
export function asShipped(projects, runnerMajor = process.versions.node.split('.')[0]) {
  if (!projects) return null;
  const perNode = new Map();
  for (const [name, c] of Object.entries(projects)) {
    const major = /^shipped-node(\d+)$/.exec(name)?.[1] ?? (name === 'e2e' ? runnerMajor : null);
    if (!major) continue;
    const n = perNode.get(major) ?? { passed: 0, failed: 0, skipped: 0, browser: 0 };
    n.passed += c.passed;
    n.failed += c.failed;
    n.skipped += c.skipped;
    if (name === 'e2e') n.browser += c.passed;
    perNode.set(major, n);
  }
  if (perNode.size === 0) return null;
  const majors = [...perNode.keys()].sort((a, b) => Number(a) - Number(b));
  const sum = (k) => majors.reduce((t, m) => t + perNode.get(m)[k], 0);
  const each = majors.map((m) => {
    const n = perNode.get(m);
    const parts = [`${n.passed - n.browser}${n.browser > 0 ? ` and ${n.browser} in the browser` : ''}`];
    if (n.failed > 0) parts.push(`${n.failed} failed`);
    if (n.skipped > 0) parts.push(`${n.skipped} skipped`);
    return `node ${m}: ${parts.join(', ')}`;
  });
  const skipped = sum('skipped');
  return (
    `as shipped (node ${majors.join(', ')}): ${sum('passed')} passed, ${sum('failed')} failed` +
    `${skipped > 0 ? `, ${skipped} skipped` : ''} (${each.join('; ')})`
  );
}
