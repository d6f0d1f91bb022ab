// The UI in a real Chromium: run an agent and watch its events; pause routing; test a provider; the Apps and
// Settings pages (screenshots of each).
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import type { MockProvider } from '../test/support/mock-provider.ts';
import { eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { createAgentInUi, describeWithChromium, launchBrowser, openUi, screenshot, serveAgentsUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;

describeWithChromium('agents, apps and settings in the UI', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, sb } = await serveAgentsUi({ tokens: ['The answer', ' is 42.'] }));
  });
  shutDownAfterAll(() => [browser, sb, mock]);

  it('creates and runs an agent and shows its events live', async () => {
    const page = await openUi(browser, sb, 'agents');
    await createAgentInUi(page, 'helper');
    await page.waitForTimeout(300); // the event stream is connected
    await page.getByTestId('agent-message').fill('What is the answer?');
    await page.getByTestId('agent-run').click();
    await page
      .getByTestId('agent-event')
      .filter({ hasText: 'completed' })
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(async (err: Error) => {
        await screenshot(page, 'agents-failure');
        throw new Error(`${err.message}\npage: ${await page.getByTestId('page-agents').textContent()}`);
      });
    const events = await page.getByTestId('agent-events').textContent();
    expect(events).toContain('output');
    expect(events).toContain('The answer');
    await page.getByTestId('task-row').filter({ hasText: 'completed' }).first().waitFor({ timeout: 5000 });
    expect(await page.getByTestId('task-row').first().textContent()).toContain('The answer is 42.');
    expect(mock.chatCount()).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('wal-status').textContent()).toContain('total_entries');
    await screenshot(page, 'agents');
    await page.close();
  });

  it('pauses routing from the window; a real request then gets 503 routing_paused', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('pause-routing').click();
    await eventually(async () => expect(await page.getByTestId('pause-routing').textContent()).toBe('Resume routing'));
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('routing_paused');
    await page.getByTestId('pause-routing').click();
    await eventually(async () => expect(await page.getByTestId('pause-routing').textContent()).toBe('Pause routing'));
    // Test connection marks the provider ok with a latency.
    await page.getByTestId('provider-mock').getByText('Test').click();
    await eventually(async () =>
      expect(await page.getByTestId('provider-mock').textContent()).toMatch(/ok in \d+ ms, 1 models/),
    );
    expect(await page.getByTestId('provider-state-mock').textContent()).toBe('ok');
    await page.close();
  });

  it('lists apps seen in traffic and adds an app rule in one click; settings page renders', async () => {
    await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-app': 'my-editor' },
      body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const page = await openUi(browser, sb, 'apps');
    const seen = page.getByTestId('seen-app').filter({ hasText: 'my-editor' });
    await seen.waitFor({ timeout: 5000 });
    await seen.getByText('Add rule').click();
    expect(await page.getByTestId('app-rule-app').inputValue()).toBe('my-editor');
    await page.getByText('Add app rule').click();
    await eventually(async () => {
      const cfg = JSON.parse(await (await import('node:fs/promises')).readFile(sb.configPath, 'utf8'));
      expect(cfg.app_rules).toEqual([{ app: 'my-editor', default_provider: 'mock' }]);
    });
    await screenshot(page, 'apps');
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('page-settings').waitFor();
    await page.getByTestId('agent-key').first().waitFor({ timeout: 5000 }); // the UI's own agent key from the first test
    await screenshot(page, 'settings');
    await page.close();
  });
});
