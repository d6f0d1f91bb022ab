// The UI in a real Chromium against `switchboard serve`: providers saved to disk, rule order routes a real
// request, live logs, a bad value refused with words and nothing saved.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let beta: MockProvider;
let sb: ServeProcess;

const readConfig = async () => JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
const ask = (model: string, app = 'e2e') =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-switchboard-app': app },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

describeWithChromium('the UI served at /ui', () => {
  beforeAll(async () => {
    [alpha, beta, browser] = await Promise.all([
      startMockProvider({ name: 'alpha' }),
      startMockProvider({ name: 'beta' }),
      launchBrowser(),
    ]);
    sb = await serveWithUi({
      config: configFor(
        { alpha: alpha.baseUrl, beta: beta.baseUrl },
        {
          rules: [
            { pattern: 'gpt-*', provider: 'alpha' },
            { pattern: 'gpt-*', provider: 'beta' },
          ],
          default_provider: 'alpha',
        },
      ),
    });
  });
  shutDownAfterAll(() => [browser, sb, alpha, beta]);

  it('refuses the admin API without the token and serves the page with security headers', async () => {
    const res = await fetch(`${sb.url}/ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toContain('<div id="root">');
    expect((await fetch(`${sb.url}/admin/v1/status`)).status).toBe(401);
    expect((await fetch(`${sb.url}/ui/../config.json`)).status).toBe(404);
  });

  it('adds a provider and config.json on disk changes; stored keys are kept, never sent in full', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-alpha').waitFor();
    // Keys are shown masked.
    expect(await page.getByTestId('provider-alpha').textContent()).toContain('sk-****');
    expect(await page.content()).not.toContain('sk-alpha-secret-key-123456');
    // The token left the address bar.
    expect(page.url()).not.toContain('token=');
    await page.getByTestId('add-provider').click();
    const form = page.getByTestId('provider-form');
    await form.locator('input[name=name]').fill('gamma');
    await form.locator('input[name=base_url]').fill('http://127.0.0.1:9/v1');
    await form.locator('input[name=api_key]').fill('sk-gamma-new-key-abcdef');
    await page.getByTestId('save-provider').click();
    await page.getByTestId('provider-gamma').waitFor();
    const cfg = await readConfig();
    expect(cfg.providers.map((p: { name: string }) => p.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(cfg.providers[2]).toMatchObject({
      name: 'gamma',
      base_url: 'http://127.0.0.1:9/v1',
      api_key: 'sk-gamma-new-key-abcdef',
      enabled: true,
    });
    expect(cfg.providers[0].api_key).toBe('sk-alpha-secret-key-123456');
    await screenshot(page, 'providers');
    await page.close();
  });

  it('a bad value shows a clear error and nothing is saved', async () => {
    const before = await fs.readFile(sb.configPath, 'utf8');
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-alpha').waitFor();
    await page.getByTestId('add-provider').click();
    const form = page.getByTestId('provider-form');
    await form.locator('input[name=name]').fill('bad name!');
    await form.locator('input[name=base_url]').fill('localhost:8080');
    await page.getByTestId('save-provider').click();
    const error = page.getByTestId('form-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Not saved.Fix the 2 fields marked in red.');
    // Each problem in words beside its field.
    expect(await page.getByTestId('field-error-provider-base_url').textContent()).toMatch(
      /^Base URL must be a full http:\/\/ or https:\/\/ address/,
    );
    expect(await page.getByTestId('field-error-provider-name').textContent()).toMatch(/^Name may use letters, digits/);
    await screenshot(page, 'providers-error');
    // Settings: a port out of range (leaving the unsaved provider form asks first).
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('listen-port').fill('70000');
    await page.getByTestId('save-settings').click();
    expect(await page.getByTestId('field-error-listen-port').textContent()).toBe(
      'The port must be between 1 and 65535.',
    );
    await screenshot(page, 'settings-error');
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);
    await page.close();
  });

  it('reordering rules sends a real request to the other provider; the tester shows the chain', async () => {
    expect((await ask('gpt-4o')).headers.get('x-switchboard-provider')).toBe('alpha');
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-1').waitFor();
    expect(await page.getByTestId('rule-provider-0').inputValue()).toBe('alpha');
    await page.getByTestId('rule-up-1').click();
    expect(await page.getByTestId('rule-provider-0').inputValue()).toBe('beta');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect((await readConfig()).routing.rules.map((r: { provider: string }) => r.provider)).toEqual(['beta', 'alpha']);
    await eventually(async () => expect((await ask('gpt-4o')).headers.get('x-switchboard-provider')).toBe('beta'));
    const before = beta.chatCount();
    const res = await ask('gpt-4o-mini');
    expect(
      ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
    ).toContain('beta');
    expect(beta.chatCount()).toBe(before + 1);

    await page.getByTestId('tester-model').fill('gpt-4o');
    await page.getByTestId('tester-run').click();
    await page.getByTestId('tester-result').waitFor();
    const candidates = await page.getByTestId('tester-candidate').allTextContents();
    expect(candidates[0]).toContain('beta');
    expect(candidates[1]).toContain('alpha');
    await screenshot(page, 'routing');
    await page.close();
  });

  it('a request appears live in Logs, with its details', async () => {
    const page = await openUi(browser, sb, 'logs');
    await page.getByTestId('log-list').waitFor();
    await page.waitForTimeout(300); // the live stream is connected
    const res = await ask('gpt-live-check', 'live-tail-app');
    expect(res.status).toBe(200);
    const row = page.getByTestId('log-row').filter({ hasText: 'live-tail-app' });
    await row.first().waitFor({ timeout: 5000 });
    expect(await row.first().textContent()).toContain('gpt-live-check');
    await row.first().click();
    const detail = page.getByTestId('log-detail');
    expect(await detail.textContent()).toContain('live-tail-app');
    await screenshot(page, 'logs');
    // Pause holds new lines back.
    await page.getByTestId('logs-pause').click();
    await ask('gpt-held', 'held-app');
    await eventually(async () => expect(await page.getByTestId('logs-pause').textContent()).toContain('1 new'));
    expect(await page.getByTestId('log-row').filter({ hasText: 'held-app' }).count()).toBe(0);
    await page.getByTestId('logs-pause').click();
    await page.getByTestId('log-row').filter({ hasText: 'held-app' }).first().waitFor();
    await page.close();
  });
});
