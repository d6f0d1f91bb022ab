// Issue 15's Agents bugs in a real Chromium against `switchboard serve`: the error banner goes once the engine
// answers again (bug 1: it stayed until a reload), and ten page loads in ten new browser profiles leave one agent
// key, labelled "Switchboard UI" (bug 8: each made another, unlabelled).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentKeyInfo } from '../shared/ipc.ts';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let dir: string;
let sb: ServeProcess;
const config = () => configFor({ mock: mock.baseUrl }, { orchestrator: { sse_heartbeat_ms: 500 } });

describeWithChromium('the Agents area when the engine goes away, and its agent key', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'mock' }), launchBrowser()]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-agents-'));
    sb = await serveWithUi({ dir, config: config() });
  });
  shutDownAfterAll(() => [browser, sb, mock]);
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('the error banner shows while the engine is away and goes when it answers again, without a reload', async () => {
    const page = await openUi(browser, sb, 'agents');
    await page.getByTestId('agents-list').waitFor();
    await page.getByText('No agents yet').waitFor({ timeout: 5000 });
    const banner = page.getByTestId('agents-error');
    expect(await banner.count()).toBe(0);

    const port = sb.port;
    await sb.stop(); // the folder (config, admin token, keys, WAL) stays
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.textContent()).toMatch(/did not answer/);
    await screenshot(page, 'agents-engine-away');

    sb = await serveWithUi({ dir, config: config(), port });
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByText('No agents yet').waitFor();
    await page.close();
  });

  it('ten page loads in ten new browser profiles leave one agent key, labelled "Switchboard UI"', async () => {
    for (let i = 0; i < 10; i++) {
      const page = await openUi(browser, sb, 'agents'); // a new context: no storage of its own
      await page.getByText('No agents yet').waitFor({ timeout: 10_000 }); // the agent API answered it
      await page.close();
    }
    const keys = await eventually(async () => {
      const list = ((await (await sb.admin('/agent-keys')).json()) as { data: AgentKeyInfo[] }).data;
      expect(list).toHaveLength(1);
      return list;
    });
    expect(keys[0]).toMatchObject({ tenant: 'default', label: 'Switchboard UI', ui: true });
  });
});
