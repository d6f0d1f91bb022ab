// Settings' "Desktop app" section (renderer/pages/DesktopAppSettings.tsx) in Chromium, loaded as Electron loads the
// window: the built UI from file:// with a `window.switchboard` bridge put in place before the page's scripts, as the
// preload does. The bridge answers the two desktop calls as the shell does (main/electron/shell.ts: the switch kept
// and applied, the login item read back) and records what the page sent; everything else reports Switchboard down.
// In the browser (`serve`'s /ui) the same calls answer 501 desktop_only and the section is not there.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DesktopSettings } from '../shared/desktop.ts';
import { seriousViolations } from './axe.ts';
import { CHROMIUM, describeWithChromium, screenshot } from './harness.ts';

let browser: Browser;

/** Opens Settings from file://; `settings` null answers desktop_only (the browser's transport). */
async function openSettings(settings: DesktopSettings | null): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.addInitScript((initial) => {
    const down = { ok: false, failure: { status: 0, error: { code: 'unreachable', message: 'not running' } } };
    const desktopOnly = {
      ok: false,
      failure: { status: 501, error: { code: 'desktop_only', message: 'This setting belongs to the desktop app.' } },
    };
    const w = window as unknown as Record<string, unknown>;
    let current = initial;
    const sent: unknown[] = [];
    w.__sent = sent;
    const calls: Record<string, (req?: unknown) => Promise<unknown>> = {
      getAppInfo: async () => ({
        ok: true,
        data: { shell: 'electron', version: '0.1.0', port_conflict: null, config_problems: null },
      }),
      getDesktopSettings: async () => (current ? { ok: true, data: current } : desktopOnly),
      setAutoUpdate: async (req) => {
        sent.push(req);
        if (!current) return desktopOnly;
        current = { ...current, auto_update: (req as { mode: DesktopSettings['auto_update'] }).mode };
        return { ok: true, data: current };
      },
    };
    w.switchboard = new Proxy(
      {},
      {
        get: (_t, name: string) => (name === 'subscribe' ? () => () => undefined : (calls[name] ?? (async () => down))),
      },
    );
  }, settings);
  await page.goto(`${pathToFileURL(path.join(import.meta.dirname, '../dist/renderer/index.html')).href}#/settings`);
  await page.getByRole('heading', { name: 'Settings', level: 2 }).waitFor();
  return page;
}

describeWithChromium("Settings' desktop app section", () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
    });
  });
  afterAll(() => browser?.close());

  it('switches auto-update (kept by the shell, said at once) and says what the system does with start on login', async () => {
    const page = await openSettings({
      auto_update: 'download',
      updates_supported: true,
      login_item: {
        state: 'requires-approval',
        wanted: true,
        message:
          'Start on login waits for your approval: allow Switchboard in System Settings › General › Login Items.',
        settings_url: 'x-apple.systempreferences:com.apple.LoginItems-Settings.extension',
      },
    });
    const section = page.getByTestId('desktop-settings');
    await section.waitFor();
    expect(await page.getByTestId('auto-update-download').isChecked()).toBe(true);
    expect(await page.getByTestId('login-item').textContent()).toBe(
      'Start on login waits for your approval: allow Switchboard in System Settings › General › Login Items.',
    );
    await page.getByLabel('Only check for updates, and say when one is available').check();
    await page.getByTestId('auto-update-saved').filter({ hasText: 'Updates: only check for updates' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent)).toEqual([{ mode: 'check' }]);
    expect(await page.getByTestId('auto-update-check').isChecked()).toBe(true);
    expect(await page.getByTestId('updates-not-here').count()).toBe(0);
    expect(await seriousViolations(page, ['[data-testid="desktop-settings"]'])).toEqual([]);
    await screenshot(page, 'settings-desktop-app');
    await page.close();
  });

  it('says when this copy does not update itself (not installed), and is absent in the browser', async () => {
    const dev = await openSettings({ auto_update: 'off', updates_supported: false, login_item: null });
    await dev.getByTestId('desktop-settings').waitFor();
    expect(await dev.getByTestId('auto-update-off').isChecked()).toBe(true);
    expect(await dev.getByTestId('updates-not-here').textContent()).toContain('does not update itself');
    await dev.close();
    const web = await openSettings(null);
    await web.getByTestId('config-backups').waitFor();
    expect(await web.getByTestId('desktop-settings').count()).toBe(0);
    expect(await web.getByTestId('desktop-settings-error').count()).toBe(0);
    await web.close();
  });
});
