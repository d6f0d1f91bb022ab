// Issue 15, bug 2, in a real Chromium against `switchboard serve`: saving a new listen_port in Settings moves the
// server, and the open page follows it to the new port (token and page kept) and keeps working there; with
// `serve --port` the port is pinned for the run and the page says the new one applies at the next start.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { freePort } from '../test/support/ports.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
const serves: ServeProcess[] = [];
const readConfig = async (sb: ServeProcess) =>
  JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { listen_port: number; log_requests: boolean };

describeWithChromium('a listen_port change moves the UI with it (bug 2)', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'alpha' }), launchBrowser()]);
  });
  shutDownAfterAll(() => [browser, ...serves, mock]);

  it('the page follows the server to the new port, with its token, and keeps working there', async () => {
    const [port1, port2] = [await freePort(), await freePort()];
    const sb = await serveWithUi({
      config: { ...configFor({ alpha: mock.baseUrl }), listen_port: port1 },
      portFromConfig: true,
    });
    serves.push(sb);
    const page = await openUi(browser, sb, 'settings');
    await eventually(async () => expect(await page.getByTestId('listen-port').inputValue()).toBe(String(port1)));
    // The footer's port comes from its own status request, not the settings form's: awaited the same way.
    await eventually(async () => expect(await page.locator('nav .nav-foot').textContent()).toContain(`port ${port1}`));

    await page.getByTestId('listen-port').fill(String(port2));
    await eventually(async () => expect(await page.getByTestId('save-settings').isEnabled()).toBe(true));
    await page.getByTestId('save-settings').click();

    // At the new port, on Settings, the token taken out of the address bar again and kept for this origin.
    await page.waitForURL(`http://127.0.0.1:${port2}/ui/#/settings`, { timeout: 10_000 });
    expect(await page.evaluate(() => sessionStorage.getItem('switchboard.adminToken'))).toBe(sb.adminToken);
    await eventually(async () => expect(await page.locator('nav .nav-foot').textContent()).toContain(`port ${port2}`));
    await eventually(async () => expect(await page.getByTestId('listen-port').inputValue()).toBe(String(port2)));
    expect((await readConfig(sb)).listen_port).toBe(port2);
    await eventually(async () =>
      expect(
        await fetch(`http://127.0.0.1:${port1}/`).then(
          () => 'open',
          () => 'closed',
        ),
      ).toBe('closed'),
    );

    // It keeps working: the admin API answers with the token (no token asked), a save goes through.
    const logRequests = (await readConfig(sb)).log_requests;
    await page.getByTestId('log-requests').click();
    await page.getByTestId('save-settings').click();
    await page.getByTestId('settings-saved').waitFor();
    expect((await readConfig(sb)).log_requests).toBe(!logRequests);
    expect(page.url()).toBe(`http://127.0.0.1:${port2}/ui/#/settings`);
    expect(await page.locator('.error').count()).toBe(0);
    await screenshot(page, 'settings-port-moved');
    await page.close();
  });

  it('with serve --port the port stays for this run, and the page says when the new one applies', async () => {
    const pinned = await freePort();
    const wanted = await freePort();
    const sb = await serveWithUi({ config: configFor({ alpha: mock.baseUrl }), port: pinned });
    serves.push(sb);
    const page = await openUi(browser, sb, 'settings');
    await eventually(async () => expect(await page.getByTestId('listen-port').inputValue()).toBe('11434'));
    // The port actually served, and that --port overrides the saved one (issue 34, bug 10: it showed only 11434).
    const served = page.getByTestId('port-served');
    await served.waitFor();
    expect(await served.textContent()).toBe(
      `Switchboard is listening on port ${pinned} for this run: it was started with --port ${pinned}, which overrides the port saved in config.json (11434). The saved port applies at the next start without --port.`,
    );
    expect(await page.getByTestId('page-settings').textContent()).not.toContain('listen_port');
    await page.getByTestId('listen-port').fill(String(wanted));
    await eventually(async () => expect(await page.getByTestId('save-settings').isEnabled()).toBe(true));
    await page.getByTestId('save-settings').click();
    const said = page.getByTestId('listen-change');
    await said.waitFor();
    expect(await page.getByTestId('settings-saved').textContent()).toMatch(/^Settings saved\./);
    expect(await said.textContent()).toBe(
      `Saved: the port in config.json is now ${wanted}, but this run keeps port ${pinned}, which was given with --port. The new port applies at the next start without --port.`,
    );
    expect(await page.getByTestId('page-settings').textContent()).not.toContain('rebinds at once');
    expect(page.url()).toBe(`http://127.0.0.1:${pinned}/ui/#/settings`);
    expect((await readConfig(sb)).listen_port).toBe(wanted);
    await screenshot(page, 'settings-port-pinned');
    await page.close();
  });

  it('with Claude Code connected, a port change leaves its settings pointing at the new port (issue 34)', async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-port-home-'));
    const settings = path.join(home, '.claude', 'settings.json');
    const before = '{\n  "model": "claude-sonnet-4-5"\n}\n';
    await fs.mkdir(path.dirname(settings));
    await fs.writeFile(settings, before);
    try {
      const [port1, port2] = [await freePort(), await freePort()];
      const sb = await serveWithUi({
        config: { ...configFor({ alpha: mock.baseUrl }), listen_port: port1 },
        portFromConfig: true,
        env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') },
      });
      serves.push(sb);
      const page = await openUi(browser, sb, 'connect');
      await page.getByTestId('connect-claude-code').click();
      await eventually(async () =>
        expect(await page.getByTestId('tool-state-claude-code').textContent()).toBe('connected'),
      );
      expect(JSON.parse(await fs.readFile(settings, 'utf8')).env.ANTHROPIC_BASE_URL).toBe(`http://localhost:${port1}`);
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('listen-port').fill(String(port2));
      await eventually(async () => expect(await page.getByTestId('save-settings').isEnabled()).toBe(true));
      await page.getByTestId('save-settings').click();
      await page.waitForURL(`http://127.0.0.1:${port2}/ui/#/settings`, { timeout: 10_000 });
      // Claude Code's settings point at the new port (rewritten before the save was answered).
      expect(JSON.parse(await fs.readFile(settings, 'utf8')).env.ANTHROPIC_BASE_URL).toBe(`http://localhost:${port2}`);
      await page.getByTestId('nav-connect').click();
      await eventually(async () =>
        expect(await page.getByTestId('tool-state-claude-code').textContent()).toBe('connected'),
      );
      await screenshot(page, 'connect-after-port-change');
      // The same Undo: the file as it was before Connect.
      await page.getByTestId('undo-claude-code').click();
      await eventually(async () => expect(await fs.readFile(settings, 'utf8')).toBe(before));
      await page.close();
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});
