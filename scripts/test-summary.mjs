// The last line of `npm test` from vitest's JSON report, and the exit code that goes with it (test-summary.test.ts).

/**
 * @param {any} report vitest's JSON report, or null when there is none
 * @param {{ tscFailed: boolean, unformatted?: boolean, vitestStatus: number }} run
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
