// The MCP admin API of the compiled `switchboard serve` against what another program (or a cloned repository) may put
// where it reads (issue 33): FIFOs where the import sources should be (item 5).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, keysFile } from '../orchestrator/keys.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';

let tmp: TempDir;
let home = '';

beforeAll(async () => {
  tmp = await makeTempDir('sb-mcp-admin');
  home = path.join(tmp.dir, 'home');
  await fs.mkdir(home);
});
afterAll(() => tmp.cleanup());

/** A serve whose HOME (and so every import source) is `home`. */
const serveWithHome = (dir: string, config: unknown = { providers: [] }) =>
  startServe({
    dir,
    config,
    env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config'), APPDATA: home },
  });

const importBody = (sb: ServeProcess, body: unknown) =>
  sb.admin('/mcp/import', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });

describe.skipIf(process.platform === 'win32')('FIFOs where the import sources should be (item 5)', () => {
  it('each import answers at once naming the FIFO; the WAL still writes; SIGTERM still stops serve', async () => {
    await fs.mkdir(path.join(home, '.cursor'), { recursive: true });
    await fs.mkdir(path.join(home, '.config', 'Claude'), { recursive: true });
    for (const f of ['.claude.json', '.cursor/mcp.json', '.config/Claude/claude_desktop_config.json'])
      execFileSync('mkfifo', [path.join(home, f)]);
    const dir = path.join(tmp.dir, 'fifo');
    await fs.mkdir(dir);
    const { key } = await createKey(keysFile(dir), 'fifo');
    const sb = await serveWithHome(dir);
    try {
      // Four at once (the libuv pool has four threads): each used to hold one forever.
      const answers = await Promise.all([0, 1, 2, 3].map(() => importBody(sb, {})));
      for (const res of answers) {
        expect(res.status).toBe(200);
        const r = (await res.json()) as { read: { path: string; error: string | null }[] };
        expect(r.read.map((f) => f.error)).toEqual([
          'is not a regular file; not read',
          'is not a regular file; not read',
          'is not a regular file; not read',
        ]);
      }
      const overview = await sb.admin('/mcp', { signal: AbortSignal.timeout(5_000) });
      expect(overview.status).toBe(200);
      // A durable write (the WAL's fsync runs on the same thread pool).
      const agent = await fetch(`${sb.url}/api/v1/agents`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'after-fifos', model: 'm' }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(agent.status).toBe(201);
    } finally {
      const exited = new Promise<NodeJS.Signals | null>((r) => sb.child.once('exit', (_c, s) => r(s)));
      sb.child.kill('SIGTERM');
      const signal = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 5_000))]);
      if (signal === 'still running') sb.child.kill('SIGKILL');
      expect(signal, 'serve stops on SIGTERM').not.toBe('still running');
      await sb.stop();
    }
  }, 30_000);
});
