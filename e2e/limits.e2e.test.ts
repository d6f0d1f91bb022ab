// The Settings page says which limits are in force, in words, as config.json changes: local mode with none, an app's
// own limits, then gateway mode's defaults per key.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;

describeWithChromium('Settings shows the limits in force', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'mock' }), launchBrowser()]);
    sb = await serveWithUi({ config: configFor({ mock: mock.baseUrl }) });
  });
  shutDownAfterAll(() => [browser, sb, mock]);

  /** Waits (the UI refreshes the status every 3 s) until the headline says `text`. */
  const headline = (page: Page, text: string) =>
    page.getByTestId('limits-headline').filter({ hasText: text }).waitFor({ timeout: 10_000 });

  it('local mode with no limits, an app of its own, then gateway mode per key', async () => {
    const page = await openUi(browser, sb, 'settings');
    await headline(page, 'Local mode: no limits; set limits.rpm');
    expect(await page.getByTestId('limits-in-force').textContent()).toContain(
      'Local mode because bound to 127.0.0.1 (loopback) and gateway.enabled is false.',
    );
    expect(await page.getByTestId('limits-scope').count()).toBe(0);
    await screenshot(page, 'settings-limits-local');

    await sb.writeConfig(configFor({ mock: mock.baseUrl }, { limits: { per_app: { 'claude-cli': { rpm: 30 } } } }));
    await headline(page, 'Local mode: no limits except for the apps below');
    expect(await page.getByTestId('limits-scope').textContent()).toBe(
      'app "claude-cli": 30 requests/min (limits.per_app.claude-cli.rpm)',
    );

    await sb.writeConfig(configFor({ mock: mock.baseUrl }, { gateway: { enabled: true } }));
    await headline(page, 'Gateway mode: 60 requests/min, 100,000 tokens/min, 10 in flight at once per key');
    expect(await page.getByTestId('limits-in-force').textContent()).toContain(
      'Gateway mode because gateway.enabled is true.',
    );
    await screenshot(page, 'settings-limits-gateway');
    await page.close();
  });
});
