// `switchboard mcp import` and `switchboard mcp list`, the real CLI in a child process with a temporary HOME holding
// Cursor's real mcp.json (test/fixtures/mcp/cursor.json).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSwitchboard, startServe } from '../../../test/support/serve-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let home = '';
let configPath = '';

async function mcp(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runSwitchboard(['mcp', ...args, '--config', configPath], {
    env: {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      NODE_OPTIONS: '',
    },
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-mcp-cli-'));
  configPath = path.join(home, 'sb', 'config.json');
  await fs.mkdir(path.dirname(configPath));
  // A port nothing listens on, so `list` finds no running Switchboard.
  await fs.writeFile(configPath, JSON.stringify({ listen_port: 9, providers: [] }));
  const cursor = JSON.parse(await fs.readFile(path.join(ROOT, 'test/fixtures/mcp/cursor.json'), 'utf8')).file;
  await fs.mkdir(path.join(home, '.cursor'));
  await fs.writeFile(path.join(home, '.cursor', 'mcp.json'), JSON.stringify(cursor));
});
afterAll(() => fs.rm(home, { recursive: true, force: true }));

it('imports from Cursor, never overwrites on a second import, and lists what config.json has', async () => {
  const empty = await mcp('list');
  expect(empty.out).toMatch(/^no MCP servers in .*config\.json; import them with: switchboard mcp import/);

  const first = await mcp('import', '--from', 'cursor');
  expect(first.code).toBe(0);
  expect(first.out).toBe('imported eslint (from cursor)\nimported context7 (from cursor)\n');
  expect(first.err).toContain(`read ${path.join(home, '.cursor', 'mcp.json')}`);
  expect(first.err).toMatch(/config\.json before the import is kept as backup \S+/);
  const saved = JSON.parse(await fs.readFile(configPath, 'utf8'));
  expect(saved.mcp_servers).toEqual({
    eslint: { command: 'npx', args: ['@eslint/mcp@latest'] },
    context7: { command: 'npx', args: ['-y', '@upstash/context7-mcp'] },
  });

  const again = await mcp('import', '--from', 'cursor');
  expect(again.code).toBe(0);
  expect(again.out).toContain('skipped eslint (from cursor): a server named "eslint" is in config.json already');
  expect(again.err).toContain('nothing imported; config.json is unchanged');
  expect(JSON.parse(await fs.readFile(configPath, 'utf8'))).toEqual(saved);

  const missing = await mcp('import', '--from', path.join(home, 'nope.json'));
  expect(missing.code).toBe(2);
  expect(missing.err).toContain(`read ${path.join(home, 'nope.json')}: does not exist`);

  const list = await mcp('list');
  expect(list.out.split('\n').slice(0, 2)).toEqual([
    'eslint\tstdio\tunknown\tnpx @eslint/mcp@latest\t',
    'context7\tstdio\tunknown\tnpx -y @upstash/context7-mcp\t',
  ]);
  expect(list.out).toContain('state unknown: no Switchboard answered on this machine');
}, 60_000);

// Issue 35: `mcp list` asked config.json's listen_port only, so it never found a `serve --port N`; and it ignored
// `--port`. It now asks where the Switchboard of this config says it listens (listening.json), or `--port`.
it('finds a Switchboard started with serve --port N, takes --port, and refuses a bad one', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-mcp-port-'));
  const sb = await startServe({
    dir,
    config: { listen_port: 9, providers: [], mcp_servers: { notes: { command: 'true' } } },
  });
  try {
    const run = (...args: string[]) => runSwitchboard(['mcp', ...args, '--config', sb.configPath]);
    const found = await run('list');
    expect(found.code).toBe(0);
    expect(found.stdout).toBe('notes\tstdio\tstopped\ttrue\t\n'); // the live state, from the running serve
    const listening = JSON.parse(await fs.readFile(path.join(sb.dir, 'listening.json'), 'utf8'));
    expect(listening).toMatchObject({ port: sb.port, url: sb.url });
    expect((await run('list', '--port', String(sb.port))).stdout).toBe(found.stdout);
    const wrong = await run('list', '--port', '9');
    expect(wrong.stdout).toContain('no Switchboard answered on this machine at port 9');
    const bad = await run('list', '--port', 'eleven');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a whole number from 1 to 65535 (got "eleven")');
    expect((await run('import', '--port', '3')).code).toBe(2);
  } finally {
    await sb.stop();
  }
  // Stopped: the file goes with it.
  await expect(fs.stat(path.join(dir, 'listening.json'))).rejects.toThrow();
  await fs.rm(dir, { recursive: true, force: true });
}, 60_000);

// Issue 33, item 2: `switchboard mcp import` with no --from took ./.mcp.json of the working folder, enabled.
it("a project's .mcp.json is imported only when named, disabled; enable shows what it runs and asks first", async () => {
  const project = path.join(home, 'cloned-repo');
  await fs.mkdir(project);
  await fs.writeFile(
    path.join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { helper: { command: 'node', args: ['./tools/helper.js'] } } }),
  );
  const config = path.join(home, 'sb2', 'config.json');
  await fs.mkdir(path.dirname(config));
  await fs.writeFile(config, JSON.stringify({ listen_port: 9, providers: [] }));
  const run = async (...args: string[]) => {
    const r = await runSwitchboard(['mcp', ...args, '--config', config], {
      cwd: project,
      env: {
        ...process.env,
        HOME: path.join(home, 'empty-home'),
        USERPROFILE: path.join(home, 'empty-home'),
        NODE_OPTIONS: '',
      },
    });
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  const servers = async () => JSON.parse(await fs.readFile(config, 'utf8')).mcp_servers as Record<string, unknown>;

  const all = await run('import');
  expect(all.err).toContain('found none of the known files');
  expect(JSON.parse(await fs.readFile(config, 'utf8')).mcp_servers).toBeUndefined();

  const named = await run('import', '--from', '.mcp.json');
  expect(named.code).toBe(0);
  expect(named.out).toContain('imported helper (from');
  expect(named.out).toContain('imported disabled: it comes from a file named by path');
  expect(named.out).toContain('enabling it runs node ./tools/helper.js');
  expect(await servers()).toEqual({ helper: { command: 'node', args: ['./tools/helper.js'], enabled: false } });

  // Not a terminal: enable shows the line and refuses without --yes.
  const asked = await run('enable', 'helper');
  expect(asked.code).toBe(2);
  expect(asked.err).toContain('helper runs: node ./tools/helper.js');
  expect(asked.err).toContain('switchboard mcp enable helper --yes');
  expect((await servers()).helper).toMatchObject({ enabled: false });
  const yes = await run('enable', 'helper', '--yes');
  expect(yes).toMatchObject({ code: 0, out: 'enabled helper\n' });
  expect((await servers()).helper).toMatchObject({ enabled: true });
  expect((await run('disable', 'helper')).out).toBe('disabled helper\n');
  expect((await servers()).helper).toMatchObject({ enabled: false });
  expect((await run('enable', 'nope', '--yes')).err).toContain('no MCP server "nope"');
}, 60_000);
