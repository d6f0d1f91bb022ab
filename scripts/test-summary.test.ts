// The last line of `npm test` agrees with its exit code, whatever failed: checked on a real vitest run whose hook
// throws (which vitest reports as 0 failed tests while it exits 1), and on the other ways a run can fail.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asShipped, summarize, type VitestReport } from './test-summary.mjs';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))));

/** Runs vitest on one test file (in a fresh folder, outside this run) and returns its JSON report and exit status. */
async function vitestOn(source: string): Promise<{ report: VitestReport; status: number }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-summary-'));
  dirs.push(dir);
  await fs.writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
  await fs.writeFile(path.join(dir, 'fixture.test.ts'), source);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const bin = path.resolve(import.meta.dirname, '../node_modules/.bin/vitest');
  const out = path.join(dir, 'report.json');
  const r = spawnSync(bin, ['run', '--root', dir, '--reporter=json', `--outputFile.json=${out}`], {
    env,
    encoding: 'utf8',
  });
  return { report: JSON.parse(await fs.readFile(out, 'utf8')) as VitestReport, status: r.status ?? 1 };
}

describe('npm test summary line', () => {
  it('counts a suite whose hook throws as failed, so the line and the exit code agree (vitest says 0 failed)', async () => {
    const { report, status } = await vitestOn(`
      import { beforeAll, describe, expect, it } from 'vitest';
      describe('needs a browser', () => {
        beforeAll(() => { throw new Error('no browser'); });
        it('a', () => expect(1).toBe(1));
      });
      it('b', () => expect(1).toBe(1));
    `);
    expect(status).toBe(1);
    expect(report.numFailedTests).toBe(0); // what the old summary trusted
    const s = summarize(report, { tscFailed: false, vitestStatus: status });
    expect(s.line).toBe('1 passed, 1 failed, 1 skipped');
    expect(s.code).toBe(1);
    expect(s.notes.join('\n')).toContain('failed outside any test');
  }, 60_000);

  it('passes a clean run, and reports skipped tests after the counts', () => {
    const report = {
      numPassedTests: 3,
      numFailedTests: 0,
      numPendingTests: 2,
      testResults: [{ name: 'a.test.ts', status: 'passed', assertionResults: [] }],
    };
    expect(summarize(report, { tscFailed: false, vitestStatus: 0 })).toMatchObject({
      line: '3 passed, 0 failed, 2 skipped',
      code: 0,
    });
    expect(summarize({ numPassedTests: 3 }, { tscFailed: false, vitestStatus: 0 })).toMatchObject({
      line: '3 passed, 0 failed',
      code: 0,
    });
  });

  it('fails on a type error, a missing report, an unexplained vitest failure, or when nothing passed', () => {
    const ok = { numPassedTests: 5, numFailedTests: 0, testResults: [] };
    expect(summarize(ok, { tscFailed: true, vitestStatus: 0 })).toMatchObject({ line: '5 passed, 1 failed', code: 1 });
    expect(summarize(ok, { tscFailed: false, unformatted: true, vitestStatus: 0 })).toMatchObject({
      line: '5 passed, 1 failed',
      code: 1,
      notes: ['some files are not formatted (listed above): run npm run format'],
    });
    expect(summarize(null, { tscFailed: false, vitestStatus: 1 })).toMatchObject({
      line: '0 passed, 1 failed',
      code: 1,
    });
    expect(summarize(ok, { tscFailed: false, vitestStatus: 1 })).toMatchObject({ line: '5 passed, 1 failed', code: 1 });
    expect(summarize({ numPassedTests: 0, testResults: [] }, { tscFailed: false, vitestStatus: 0 })).toMatchObject({
      line: '0 passed, 1 failed',
      code: 1,
    });
  });

  it('says once, with how to get one, when the e2e tests were skipped for want of Chromium', () => {
    const report = {
      numPassedTests: 10,
      numPendingTests: 3,
      testResults: [
        {
          name: '/repo/e2e/ui.e2e.test.ts',
          status: 'skipped',
          assertionResults: [{ status: 'skipped' }, { status: 'skipped' }, { status: 'pending' }],
        },
      ],
    };
    const s = summarize(report, { tscFailed: false, vitestStatus: 0 });
    expect(s).toMatchObject({ line: '10 passed, 0 failed, 3 skipped', code: 0 });
    expect(s.notes).toHaveLength(1);
    expect(s.notes[0]).toMatch(/3 e2e tests did not run: no Chromium.*apt-get install chromium.*CHROMIUM_PATH/);
  });

  it('says why the Electron smoke tests did not run; they count as skipped, never as passed', () => {
    const report = {
      numPassedTests: 10,
      numPendingTests: 2,
      testResults: [
        {
          name: '/repo/main/electron/electron.smoke.test.ts',
          status: 'skipped',
          assertionResults: [{ status: 'skipped' }, { status: 'skipped' }],
        },
      ],
    };
    const s = summarize(report, { tscFailed: false, vitestStatus: 0 });
    expect(s).toMatchObject({ line: '10 passed, 0 failed, 2 skipped', code: 0 });
    expect(s.notes).toHaveLength(1);
    expect(s.notes[0]).toMatch(/^2 Electron smoke tests did not run: .*ELECTRON_PATH.*Xvfb/);
  });

  it("shows the as-shipped tier's counts apart, per Node, before the plain total", () => {
    const projects = {
      unit: { passed: 900, failed: 0, skipped: 0 },
      'shipped-node20': { passed: 500, failed: 0, skipped: 0 },
      'shipped-node22': { passed: 499, failed: 1, skipped: 0 },
      'shipped-node24': { passed: 500, failed: 0, skipped: 0 },
      e2e: { passed: 80, failed: 0, skipped: 0 },
    };
    expect(asShipped(projects, '20')).toBe(
      'as shipped (node 20, 22, 24): 1579 passed, 1 failed (node 20: 500 and 80 in the browser; node 22: 499, 1 failed; node 24: 500)',
    );
    const s = summarize(
      { numPassedTests: 2979, numFailedTests: 1, testResults: [] },
      { tscFailed: false, vitestStatus: 1, projects },
    );
    expect(s.notes.at(-1)).toMatch(/^as shipped \(node 20, 22, 24\)/);
    expect(s.line).toBe('2979 passed, 1 failed');
    expect(asShipped({ unit: { passed: 3, failed: 0, skipped: 0 } })).toBeNull();
    expect(asShipped(null)).toBeNull();
  });

  it('counts a Node of the tier that could not be installed as a failure, with why', () => {
    const why = 'the as-shipped tests on Node 24 did not run: could not install Node 24.22.3 …';
    const s = summarize(
      { numPassedTests: 5, testResults: [] },
      { tscFailed: false, vitestStatus: 0, setupFailures: [why] },
    );
    expect(s).toMatchObject({ line: '5 passed, 1 failed', code: 1 });
    expect(s.notes).toContain(why);
  });
});
