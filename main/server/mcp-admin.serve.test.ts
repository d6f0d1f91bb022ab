// The MCP admin API of the compiled `switchboard serve` against what another program (or a cloned repository) may put
// where it reads (issue 33): `${VAR}`s naming Switchboard's own secrets (item 1), a project's .mcp.json in the working
// folder (item 2), FIFOs where the import sources should be (item 5).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
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

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEST_SERVER = path.join(ROOT, 'test/support/mcp-test-server.ts');
const OPENAI_KEY = 'sk-proj-mcpLeakCheck0123456789abcdefABCDEF';
const PROVIDER_KEY = 'sk-ant-providerLeakCheck0123456789abcdef';
const GH_TOKEN = 'ghp_passedOnPurpose0123456789abcdef';

type McpState = { name: string; state: string; error: string | null };
async function refresh(sb: ServeProcess, name: string): Promise<McpState> {
  const res = await sb.admin(`/mcp/${name}/refresh`, { method: 'POST', signal: AbortSignal.timeout(20_000) });
  expect(res.status).toBe(200);
  return (await res.json()) as McpState;
}

const importBody = (sb: ServeProcess, body: unknown) =>
  sb.admin('/mcp/import', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });

describe("${VAR}s naming Switchboard's own secrets (item 1)", () => {
  let sb: ServeProcess;
  const launchLog = () => path.join(tmp.dir, 'vars', 'launch.log');
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const http = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(404).end();
  });
  const node = process.execPath;
  const stdio = (extra: Record<string, unknown>) => ({
    command: node,
    args: ['--import', 'tsx', TEST_SERVER],
    cwd: ROOT,
    call_timeout_s: 15,
    ...extra,
    env: { MCP_TEST_LOG: launchLog(), MCP_TEST_LAUNCH: '1', ...(extra.env as object) },
  });

  beforeAll(async () => {
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as AddressInfo).port;
    const dir = path.join(tmp.dir, 'vars');
    await fs.mkdir(dir);
    sb = await startServe({
      dir,
      config: {
        providers: [
          { name: 'claude', type: 'anthropic', base_url: 'http://127.0.0.1:9', api_key: 'env:SB_TEST_PROVIDER_KEY' },
        ],
        mcp_servers: {
          // Issue 33, item 1: argv=['arg=sk-proj-…'] and env LEAK=sk-proj-… reached a stdio server.
          leaky: stdio({
            args: ['--import', 'tsx', TEST_SERVER, 'arg=${OPENAI_API_KEY}'],
            env: { LEAK: '${OPENAI_API_KEY}' },
          }),
          // The variable a provider's env: key names, even listed, and a variable not listed.
          listed: stdio({
            env: { KEY: '${SB_TEST_PROVIDER_KEY}', HOME_TOO: '${SB_TEST_UNLISTED}' },
            env_passthrough: ['SB_TEST_PROVIDER_KEY'],
          }),
          // A variable listed: expanded, and in the server's environment.
          allowed: stdio({
            args: ['--import', 'tsx', TEST_SERVER, 'token=${SB_TEST_GH_TOKEN}'],
            env_passthrough: ['SB_TEST_GH_TOKEN'],
          }),
          // An HTTP server's URL query and header carried the key to its host.
          web: {
            url: `http://127.0.0.1:${port}/mcp?key=\${OPENAI_API_KEY}`,
            headers: { 'X-Key': '${OPENAI_API_KEY}' },
          },
        },
      },
      env: {
        OPENAI_API_KEY: OPENAI_KEY,
        SB_TEST_PROVIDER_KEY: PROVIDER_KEY,
        SB_TEST_GH_TOKEN: GH_TOKEN,
        SB_TEST_UNLISTED: 'unlisted-value-0123456789',
      },
    });
  }, 30_000);
  afterAll(async () => {
    await sb?.stop();
    await new Promise((r) => http.close(r));
  });

  const launched = async () => (await fs.readFile(launchLog(), 'utf8').catch(() => '')).split('\n');

  it('a stdio server that refers to a provider key never starts; its error names the variable and the fix', async () => {
    const s = await refresh(sb, 'leaky');
    expect(s.state).toBe('failed');
    expect(s.error).toContain("${OPENAI_API_KEY} (a provider key's variable)");
    expect(s.error).toContain('Switchboard never gives its provider keys to MCP servers');
    expect((await launched()).join('\n')).not.toContain(OPENAI_KEY);
  });

  it("a variable a provider's env: key names is refused even when listed; an unlisted one says how to list it", async () => {
    const s = await refresh(sb, 'listed');
    expect(s.state).toBe('failed');
    expect(s.error).toContain("${SB_TEST_PROVIDER_KEY} (a variable config.json's env: values name)");
    expect(s.error).toContain(
      '${SB_TEST_UNLISTED} (not in its env_passthrough): add "env_passthrough": ["SB_TEST_UNLISTED"] to mcp_servers.listed',
    );
    const all = (await launched()).join('\n');
    expect(all).not.toContain(PROVIDER_KEY);
    expect(all).not.toContain('unlisted-value');
  });

  it("a listed variable is expanded and passed in the environment; nothing else of Switchboard's is", async () => {
    const s = await refresh(sb, 'allowed');
    expect(s).toMatchObject({ state: 'running', error: null });
    const line = (await launched()).find((l) => l.startsWith('launched ') && l.includes('token='));
    const got = JSON.parse(line!.slice('launched '.length)) as { argv: string[]; env: Record<string, string> };
    expect(got.argv).toEqual([`token=${GH_TOKEN}`]);
    expect(got.env.SB_TEST_GH_TOKEN).toBe(GH_TOKEN);
    expect(got.env.OPENAI_API_KEY).toBeUndefined();
    expect(got.env.SB_TEST_PROVIDER_KEY).toBeUndefined();
  });

  it('an HTTP server whose URL and header refer to a provider key is never contacted', async () => {
    const s = await refresh(sb, 'web');
    expect(s.state).toBe('failed');
    expect(s.error).toContain('${OPENAI_API_KEY}');
    expect(requests).toEqual([]);
  });
});

describe("a project's .mcp.json in serve's working folder (item 2)", () => {
  it('POST /mcp/import {} leaves it alone; named by path it is imported disabled; enable is a step of its own', async () => {
    const project = path.join(tmp.dir, 'cloned-repo');
    await fs.mkdir(project);
    await fs.writeFile(
      path.join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { helper: { command: 'node', args: ['./helper.js'], env: { MODE: 'x' } } } }),
    );
    const dir = path.join(tmp.dir, 'project-serve');
    await fs.mkdir(dir);
    const sb = await startServe({
      dir,
      cwd: project,
      config: { providers: [] },
      env: { HOME: path.join(tmp.dir, 'nohome') },
    });
    try {
      const all = await importBody(sb, {});
      expect(await all.json()).toMatchObject({ read: [], imported: [] });
      expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8')).mcp_servers).toBeUndefined();

      const named = (await (await importBody(sb, { path: '.mcp.json' })).json()) as {
        imported: { name: string; notes: string[] }[];
      };
      expect(named.imported.map((i) => i.name)).toEqual(['helper']);
      expect(named.imported[0]!.notes[0]).toContain('enabling it runs node ./helper.js (env MODE=x)');
      const overview = (await (await sb.admin('/mcp')).json()) as {
        servers: (McpState & { launch: string; enabled: boolean })[];
      };
      expect(overview.servers).toMatchObject([
        { name: 'helper', enabled: false, state: 'disabled', launch: 'node ./helper.js (env MODE=x)' },
      ]);
      const enabled = await sb.admin('/mcp/helper/enable', { method: 'POST' });
      expect(enabled.status).toBe(200);
      expect(await enabled.json()).toMatchObject({ name: 'helper', enabled: true, state: 'stopped' });
      expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8')).mcp_servers.helper.enabled).toBe(true);
      const disabled = await sb.admin('/mcp/helper/disable', { method: 'POST' });
      expect(await disabled.json()).toMatchObject({ enabled: false, state: 'disabled' });
      const unknown = await sb.admin('/mcp/nope/enable', { method: 'POST' });
      expect(unknown.status).toBe(404);
    } finally {
      await sb.stop();
    }
  }, 30_000);
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
