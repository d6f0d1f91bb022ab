// Failover chains per rule (issue 34) in a real Chromium against `switchboard serve`: a rule's providers as an ordered
// list, a backup added, reordered with the buttons and by dragging, saved as routing.rules[].providers; real requests
// then go to the new primary, and fail over to the backup when the primary fails.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { seriousViolations, violationsText } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let beta: MockProvider;
let sb: ServeProcess;

const ask = async () => {
  const res = await fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  return {
    status: res.status,
    provider: res.headers.get('x-switchboard-provider'),
    attempts: res.headers.get('x-switchboard-attempts'),
  };
};
const rules = async () => JSON.parse(await fs.readFile(sb.configPath, 'utf8')).routing.rules;

describeWithChromium('failover chains per rule', () => {
  beforeAll(async () => {
    [alpha, beta, browser] = await Promise.all([
      startMockProvider({ name: 'alpha' }),
      startMockProvider({ name: 'beta' }),
      launchBrowser(),
    ]);
    sb = await serveWithUi({
      config: configFor(
        { alpha: alpha.baseUrl, beta: beta.baseUrl },
        { rules: [{ pattern: 'gpt-*', provider: 'alpha' }], default_provider: '' },
      ),
    });
  });
  shutDownAfterAll(() => [browser, sb, alpha, beta]);

  it('adds a backup, reorders by buttons and by drag; requests follow the order and fail over to the backup', async () => {
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-0').waitFor();
    expect((await ask()).provider).toBe('alpha');
    // A backup for gpt-*: beta.
    await page.getByTestId('rule-add-backup-0').selectOption('beta');
    await page.getByTestId('rule-provider-0-1').waitFor();
    expect(await page.getByTestId('chain-item-0-1').textContent()).toContain('backup 1');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect(await rules()).toEqual([{ pattern: 'gpt-*', providers: ['alpha', 'beta'] }]);
    // The primary fails: the backup answers.
    alpha.setBehavior({ status: 500 });
    expect(await ask()).toEqual({ status: 200, provider: 'beta', attempts: '2' });
    alpha.setBehavior({});
    // ↑ makes beta the primary.
    await page.getByTestId('chain-up-0-1').click();
    expect(await page.getByTestId('rule-provider-0').inputValue()).toBe('beta');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect(await rules()).toEqual([{ pattern: 'gpt-*', providers: ['beta', 'alpha'] }]);
    expect((await ask()).provider).toBe('beta');
    const found = await seriousViolations(page);
    expect(found, violationsText(found)).toEqual([]);
    await screenshot(page, 'routing-chain');
    // Dragging alpha (second) onto the first place.
    await page.getByTestId('chain-item-0-1').locator('.drag-handle').dragTo(page.getByTestId('chain-item-0-0'));
    await expect.poll(() => page.getByTestId('rule-provider-0').inputValue()).toBe('alpha');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect(await rules()).toEqual([{ pattern: 'gpt-*', providers: ['alpha', 'beta'] }]);
    expect((await ask()).provider).toBe('alpha');
    // ✕ takes beta out: a rule of one is written as provider.
    await page.getByTestId('chain-remove-0-1').click();
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect(await rules()).toEqual([{ pattern: 'gpt-*', provider: 'alpha' }]);
    await page.close();
  });
});
