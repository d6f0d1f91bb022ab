// Issue 15, bug 8: the UI's agent key is made once, labelled "Switchboard UI" and handed back to every page load,
// browser profile and desktop launch, through the real `serve` and the UI's own data client (shared/http-client.ts,
// the one the browser page and the desktop shell's IPC handlers both use). Agent key labels in the CLI and admin API.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../../shared/http-client.ts';
import type { AgentKeyInfo } from '../../shared/ipc.ts';
import { cli } from '../../test/support/agent-api.ts';
import { shutDown } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let dir: string;
let sb: ServeProcess;
const start = async () => (sb = await startServe({ dir, config: configFor({ mock: mock.baseUrl }) }));

/** A fresh UI client, as a new browser profile or a new desktop launch has: no key of its own. */
const freshUi = () => httpTransport({ base: sb.url, token: sb.adminToken });
const keys = async (): Promise<AgentKeyInfo[]> =>
  ((await (await sb.admin('/agent-keys')).json()) as { data: AgentKeyInfo[] }).data;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-uikey-'));
  await start();
});
afterAll(async () => {
  await shutDown(sb, mock);
  await fs.rm(dir, { recursive: true, force: true });
});

describe("the UI's agent key", () => {
  it('ten page loads at once and ten more one after another leave one key, labelled "Switchboard UI"', async () => {
    const first = await Promise.all(
      Array.from({ length: 10 }, () => freshUi().agentApi({ method: 'GET', path: '/agents' })),
    );
    expect(first.map((r) => r.ok)).toEqual(Array(10).fill(true));
    for (let i = 0; i < 10; i++) expect((await freshUi().agentApi({ method: 'GET', path: '/agents' })).ok).toBe(true);
    const list = await keys();
    expect(list).toEqual([
      {
        id: expect.stringMatching(/^key_/),
        tenant: 'default',
        label: 'Switchboard UI',
        ui: true,
        created_at: expect.any(String),
      },
    ]);
    // `switchboard keys list` shows the label; the key itself is never listed.
    const out = await cli(['keys', 'list', '--config', sb.configPath]);
    expect(out).toMatch(new RegExp(`^${list[0]!.id}\\tdefault\\t\\S+\\tSwitchboard UI$`, 'm'));
  });

  it('desktop launches (serve restarted on the same folder) reuse the same key', async () => {
    const before = await keys();
    for (let launch = 0; launch < 2; launch++) {
      await sb.stop();
      await start();
      expect((await freshUi().agentApi({ method: 'GET', path: '/agents' })).ok).toBe(true);
    }
    expect(await keys()).toEqual(before);
  });

  it('is handed back only with the admin token, the same key each time', async () => {
    expect((await fetch(`${sb.url}/admin/v1/agent-keys/ui`, { method: 'POST' })).status).toBe(401);
    const a = await sb.admin('/agent-keys/ui', { method: 'POST' });
    const b = await sb.admin('/agent-keys/ui', { method: 'POST' });
    expect(a.status).toBe(200); // it existed already (201 only when made now)
    const [ka, kb] = [(await a.json()) as { key: string; created: boolean }, (await b.json()) as { key: string }];
    expect(ka.key).toMatch(/^sk-agent-[a-f0-9]{64}$/);
    expect(ka).toMatchObject({ created: false, label: 'Switchboard UI', ui: true });
    expect(kb.key).toBe(ka.key);
    expect(await fs.readFile(path.join(dir, 'agent-keys.json'), 'utf8')).not.toContain(ka.key.slice(9));
  });

  it('revoked in Settings, it is replaced by one new UI key: an open page goes on, still one key', async () => {
    const page = freshUi();
    expect((await page.agentApi({ method: 'GET', path: '/agents' })).ok).toBe(true);
    const [old] = await keys();
    expect((await sb.admin(`/agent-keys/${old!.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await page.agentApi({ method: 'GET', path: '/agents' })).ok).toBe(true); // 401, asks again, goes on
    for (let i = 0; i < 3; i++) expect((await freshUi().agentApi({ method: 'GET', path: '/agents' })).ok).toBe(true);
    const now = await keys();
    expect(now).toHaveLength(1);
    expect(now[0]).toMatchObject({ label: 'Switchboard UI', ui: true });
    expect(now[0]!.id).not.toBe(old!.id);
  });
});

describe('agent key labels', () => {
  it('keys made with a label show it in the admin API and `keys list`; a bad label is refused naming the field', async () => {
    const made = await sb.admin('/agent-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'acme', label: '  CI runner ' }),
    });
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ tenant: 'acme', label: 'CI runner', ui: false });
    const bad = await sb.admin('/agent-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'x'.repeat(101) }),
    });
    expect(bad.status).toBe(400);
    const error = ((await bad.json()) as { error: { code: string; details: { field: string; message: string }[] } })
      .error;
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ field: 'label', message: expect.stringContaining('1-100 characters') }]);

    await cli(['keys', 'create', '--label', 'nightly report', '--config', sb.configPath]);
    const unlabelled = await cli(['keys', 'create', '--config', sb.configPath]);
    expect(unlabelled).toMatch(/^sk-agent-/);
    const labels = (await keys()).map((k) => k.label);
    expect(labels).toEqual(['Switchboard UI', 'CI runner', 'nightly report', null]);
    expect(await cli(['keys', 'list', '--config', sb.configPath])).toMatch(/\tacme\t\S+\tCI runner\n/);
  });
});
