// Connect follows the port (issue 34, "Done when"), against the real `serve` with HOME in a temporary folder: with
// Claude Code connected, a listen_port change rewrites its settings to the new port before the save is answered (the
// answer lists it), Connect then reads it as connected, and Undo still puts back the bytes from before Connect. A tool
// whose file was pointed elsewhere since is left alone, and said so.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigSaveResultSchema } from '../../shared/admin.ts';
import type { ConnectOverview } from '../../shared/connect.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort } from '../../test/support/ports.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let sb: ServeProcess;
let home: string;
const BEFORE = '{\n  // mine\n  "model": "claude-sonnet-4-5"\n}\n';
const claude = () => path.join(home, '.claude', 'settings.json');
const zed = () => path.join(home, '.config', 'zed', 'settings.json');

const adminAt = (port: number, route: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}/admin/v1${route}`, {
    ...init,
    headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
  });

beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock' });
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-follow-home-'));
  await fs.mkdir(path.dirname(claude()), { recursive: true });
  await fs.writeFile(claude(), BEFORE);
  await fs.mkdir(path.dirname(zed()), { recursive: true });
  await fs.writeFile(zed(), '{}\n');
  const port = await freePort();
  sb = await startServe({
    config: { ...configFor({ mock: mock.baseUrl }), listen_port: port },
    portFromConfig: true,
    env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') },
  });
}, 30_000);
shutDownAfterAll(() => [sb, mock]);
afterAll(() => fs.rm(home, { recursive: true, force: true }));

it('a port change rewrites connected tools to the new port, with the same Undo; one pointed elsewhere is left', async () => {
  const port1 = sb.port;
  for (const tool of ['claude-code', 'zed'])
    expect((await adminAt(port1, `/connect/${tool}`, { method: 'POST', body: '{}' })).status).toBe(200);
  expect(JSON.parse((await fs.readFile(claude(), 'utf8')).replace('// mine', '')).env.ANTHROPIC_BASE_URL).toBe(
    `http://localhost:${port1}`,
  );
  // Zed is pointed elsewhere by hand since.
  await fs.writeFile(zed(), '{"language_models": {"ollama": {"api_url": "http://127.0.0.1:11434"}}}\n');

  const port2 = await freePort();
  const cfg = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
  const res = await adminAt(port1, '/config', { method: 'PUT', body: JSON.stringify({ ...cfg, listen_port: port2 }) });
  const saved = ConfigSaveResultSchema.parse(await res.json());
  expect(saved.listen?.outcome).toBe('moved');
  expect(saved.listen?.tools).toEqual([
    {
      tool: 'claude-code',
      name: 'Claude Code',
      path: claude(),
      outcome: 'moved',
      message: `Claude Code now points at port ${port2} (${claude()}).`,
    },
    {
      tool: 'zed',
      name: 'Zed',
      path: zed(),
      outcome: 'left',
      message: `Zed was left as it is: ${zed()} no longer points at port ${port1}.`,
    },
  ]);
  expect(saved.listen?.message).toContain('Claude Code was pointed at the new port');
  const text = await fs.readFile(claude(), 'utf8');
  expect(text).toContain('// mine');
  expect(text).toContain(`"ANTHROPIC_BASE_URL": "http://localhost:${port2}"`);
  const overview = (await (await adminAt(port2, '/connect')).json()) as ConnectOverview;
  expect(overview.tools.find((t) => t.id === 'claude-code')?.state).toBe('connected');
  // Undo goes back to the file as it was before Connect, not to the old port.
  expect((await adminAt(port2, '/connect/claude-code/undo', { method: 'POST', body: '{}' })).status).toBe(200);
  expect(await fs.readFile(claude(), 'utf8')).toBe(BEFORE);
});
