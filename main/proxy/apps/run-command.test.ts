import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from './run-command.ts';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const waitFor = async (condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('runCommand', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('returns stdout of a finished command whatever its exit code', async () => {
    const script = 'process.stdout.write("hello\\nworld\\n"); process.exit(1)';
    const output = await runCommand(process.execPath, ['-e', script], new AbortController().signal);
    expect(output).toBe('hello\nworld\n');
  });

  it('returns null when the command does not exist', async () => {
    expect(await runCommand('switchboard-no-such-command', [], new AbortController().signal)).toBeNull();
  });

  it('returns null without spawning when already aborted', async () => {
    expect(await runCommand(process.execPath, ['-e', ''], AbortSignal.abort())).toBeNull();
  });

  it('kills the child when aborted, leaving nothing running', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'run-command-'));
    const pidFile = path.join(dir, 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const controller = new AbortController();
    const running = runCommand(process.execPath, ['-e', script], controller.signal);
    const pid = await new Promise<number>((resolve, reject) => {
      const poll = setInterval(async () => {
        const text = await readFile(pidFile, 'utf8').catch(() => '');
        if (text) {
          clearInterval(poll);
          resolve(Number(text));
        }
      }, 10);
      setTimeout(() => {
        clearInterval(poll);
        reject(new Error('child never started'));
      }, 10_000);
    });
    expect(isAlive(pid)).toBe(true);
    controller.abort();
    expect(await running).toBeNull();
    await waitFor(() => !isAlive(pid));
  });
});
