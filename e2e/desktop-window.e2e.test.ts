// The desktop window's own pages in Chromium, loaded as Electron loads them: the built UI from file:// (its
// Content-Security-Policy from the page's <meta>), with a `window.switchboard` bridge put in place before the page's
// scripts as the preload does. Issue 15, bug 10: config.json invalid at start opens the window on a problems page
// (each problem in words, where the file is) instead of a crash; the port-conflict page likewise.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppInfo } from '../shared/ipc.ts';
import { seriousViolations } from './axe.ts';
import { CHROMIUM, describeWithChromium, screenshot } from './harness.ts';

let browser: Browser;

/** Opens the built page from file:// with a bridge whose getAppInfo answers `info` (the rest: not running). */
async function openDesktopPage(info: AppInfo): Promise<{ page: Page; cspErrors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
  });
  page.on('pageerror', (err) => cspErrors.push(`page error: ${err.message}`));
  await page.addInitScript((appInfo) => {
    const down = { ok: false, failure: { status: 0, error: { code: 'unreachable', message: 'not running' } } };
    (window as unknown as Record<string, unknown>).switchboard = new Proxy(
      {},
      {
        get: (_t, name) =>
          name === 'subscribe'
            ? () => () => undefined
            : name === 'getAppInfo'
              ? async () => ({ ok: true, data: appInfo })
              : async () => down,
      },
    );
  }, info);
  await page.goto(pathToFileURL(path.join(import.meta.dirname, '../dist/renderer/index.html')).href);
  return { page, cspErrors };
}

describeWithChromium('the desktop window when the engine could not start', () => {
  beforeAll(async () => {
    // As Electron treats file:// pages: their module scripts load from the same folder.
    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
    });
  });
  afterAll(() => browser?.close());

  it('config.json invalid at start: the problems in words and where the file is (bug 10)', async () => {
    const { page, cspErrors } = await openDesktopPage({
      shell: 'electron',
      version: '0.1.0',
      port_conflict: null,
      config_problems: {
        config_path: '/home/u/.config/Switchboard/config.json',
        problems: ['listen_port (found "eleven") must be a number from 1 to 65535, e.g. 11434'],
        message:
          'Switchboard did not start: /home/u/.config/Switchboard/config.json has a problem. Fix it in the file and save it: Switchboard starts as soon as the file is valid.',
      },
    });
    await page.getByTestId('page-config-problems').waitFor();
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('config.json has problems');
    expect(await page.getByTestId('config-problem').allTextContents()).toEqual([
      'listen_port (found "eleven") must be a number from 1 to 65535, e.g. 11434',
    ]);
    expect(await page.getByTestId('page-config-problems').textContent()).toContain(
      'The file: /home/u/.config/Switchboard/config.json',
    );
    expect(cspErrors).toEqual([]); // the page runs under its own policy from file://
    // …which is in force there: an injected inline script does not run.
    const ran = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true';
      document.head.append(s);
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    expect(ran).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'desktop-config-problems');
    await page.close();
  });

  it('the port taken at start: who holds it and the fixes', async () => {
    const { page, cspErrors } = await openDesktopPage({
      shell: 'electron',
      version: '0.1.0',
      config_problems: null,
      port_conflict: {
        port: 11434,
        holder: 'Ollama 0.9.1',
        message: 'Port 11434 is in use by Ollama 0.9.1.',
        suggested_port: 11435,
        config_path: '/c.json',
        ollama: true,
      },
    });
    await page.getByTestId('page-port-conflict').waitFor();
    expect(await page.getByTestId('page-port-conflict').textContent()).toContain('"listen_port": 11435');
    expect(cspErrors).toEqual([]);
    await page.close();
  });
});
