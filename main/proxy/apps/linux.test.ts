import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeProcess } from './linux.ts';

// Reads /proc directly, so it can only run on Linux; the cross-platform behaviour is in os-process.test.ts.
describe.runIf(process.platform === 'linux')('describeProcess (Linux /proc)', () => {
  it('names a process by its comm and reports its executable', async () => {
    expect(await describeProcess(process.pid)).toEqual({ pid: process.pid, name: 'node', exe: process.execPath });
  });

  it('uses the executable file name when comm was cut at 15 characters', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'describe-process-'));
    const exe = path.join(dir, 'switchboard-test-sleeper');
    await copyFile('/bin/sleep', exe);
    const child = spawn(exe, ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
      await waitForComm(child.pid!, 'switchboard-tes');
      expect(await describeProcess(child.pid!)).toEqual({ pid: child.pid, name: 'switchboard-test-sleeper', exe });
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('returns null for a process that does not exist', async () => {
    expect(await describeProcess(2 ** 22 + 1)).toBeNull();
  });
});

/** Right after spawn, the child may still be the forked node process; wait for its exec. */
async function waitForComm(pid: number, comm: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() === comm) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`process ${pid} never became ${comm}`);
}
