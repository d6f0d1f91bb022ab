// The admin routes the desktop UI added (pause, provider test, agent keys) and /ui without a build, through serve.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDown } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let sb: ServeProcess;
let emptyUi: string;
const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  mock = await startMockProvider({ name: 'm' });
  emptyUi = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-noui-'));
  sb = await startServe({
    config: configFor({ m: mock.baseUrl, down: 'http://127.0.0.1:9/v1' }),
    env: { SWITCHBOARD_UI_DIR: emptyUi },
    // Accepted by serve (a systemd unit may pass it); the banner is the same off a terminal without it.
    args: ['--quiet-token'],
  });
});
afterAll(async () => {
  await shutDown(sb, mock);
  await fs.rm(emptyUi, { recursive: true, force: true });
});

describe('admin routes for the UI', () => {
  it('serve prints the real /ui link; its stdout is not a terminal (as under systemd) and --quiet-token is given, so it names the token file and never prints the token', () => {
    expect(sb.stdout()).toContain(`UI: ${sb.url}/ui/ (sign in with the token in ${path.join(sb.dir, 'admin-token')};`);
    expect(sb.stdout() + sb.stderr()).not.toContain(sb.adminToken);
  });

  it('every new route needs the token', async () => {
    for (const [method, route] of [
      ['POST', '/pause'],
      ['POST', '/providers/m/test'],
      ['GET', '/agent-keys'],
      ['POST', '/agent-keys'],
    ]) {
      expect((await fetch(`${sb.url}/admin/v1${route}`, { method })).status).toBe(401);
    }
  });

  it('pauses and resumes routing', async () => {
    expect((await sb.admin('/pause', json({ paused: 'yes' }))).status).toBe(400);
    expect(await (await sb.admin('/pause', json({ paused: true }))).json()).toEqual({ paused: true });
    expect(((await (await sb.admin('/status')).json()) as { paused: boolean }).paused).toBe(true);
    await sb.admin('/pause', json({ paused: false }));
  });

  it('tests a provider now and records its state', async () => {
    const good = (await (await sb.admin('/providers/m/test', json({}))).json()) as { ok: boolean; models: number };
    expect(good).toMatchObject({ provider: 'm', ok: true, models: 1, error: null });
    const bad = (await (await sb.admin('/providers/down/test', json({}))).json()) as { ok: boolean; error: string };
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/^test: /);
    const status = (await (await sb.admin('/status')).json()) as { providers: { name: string; state: string }[] };
    expect(status.providers.find((p) => p.name === 'm')?.state).toBe('ok');
    expect(status.providers.find((p) => p.name === 'down')?.state).toBe('failed');
    expect((await sb.admin('/providers/nope/test', json({}))).status).toBe(404);
  });

  it('creates, lists and revokes agent API keys; a revoked key stops working', async () => {
    const made = (await (await sb.admin('/agent-keys', json({}))).json()) as {
      key: string;
      id: string;
      tenant: string;
    };
    expect(made.key).toMatch(/^sk-agent-[a-f0-9]{64}$/);
    expect(made.tenant).toBe('default');
    const list = (await (await sb.admin('/agent-keys')).json()) as { data: { id: string }[] };
    expect(list.data.map((k) => k.id)).toContain(made.id);
    expect(JSON.stringify(list)).not.toContain(made.key);
    expect((await fetch(`${sb.url}/api/v1/agents`, { headers: { 'x-api-key': made.key } })).status).toBe(200);
    expect((await sb.admin(`/agent-keys/${made.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${sb.url}/api/v1/agents`, { headers: { 'x-api-key': made.key } })).status).toBe(401);
    expect((await sb.admin(`/agent-keys/${made.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await sb.admin('/agent-keys', json({ tenant: 'bad tenant!' }))).status).toBe(400);
  });

  it('/ui says how to build the UI when it is not built', async () => {
    const res = await fetch(`${sb.url}/ui/`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('npm run build:ui');
    const redirect = await fetch(`${sb.url}/ui?token=abc`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/ui/?token=abc');
  });
});
