// Connect in a real Chromium against `switchboard serve`, HOME in a temporary folder (issue 34): Undo after the tool's
// file changed offers Undo anyway in the page (bug 7; it offered only a CLI command), which keeps the changed file and
// puts back the bytes from before Connect.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;
let home: string;

const BEFORE = '{\n  "model": "claude-sonnet-4-5"\n}\n';
const settingsFile = () => path.join(home, '.claude', 'settings.json');

/** Accepts the next dialog and answers its text. */
const acceptNext = (page: Page) =>
  new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.message());
      void d.accept();
    }),
  );

describeWithChromium('Connect: Undo anyway', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'mock' }), launchBrowser()]);
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-connect-home-'));
    await fs.mkdir(path.join(home, '.claude'));
    await fs.writeFile(settingsFile(), BEFORE);
    sb = await serveWithUi({
      config: configFor({ mock: mock.baseUrl }),
      env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    });
  });
  shutDownAfterAll(() => [browser, sb, mock]);
  afterAll(() => fs.rm(home, { recursive: true, force: true }));

  it('Undo after the file changed offers Undo anyway, which keeps the changed file and restores the first bytes (bug 7)', async () => {
    const page = await openUi(browser, sb, 'connect');
    await page.getByTestId('connect-claude-code').click();
    await eventually(async () =>
      expect(await page.getByTestId('tool-state-claude-code').textContent()).toBe('connected'),
    );
    // The user (or Claude Code) changes the file after Connect wrote it.
    const changed = (await fs.readFile(settingsFile(), 'utf8')).replace('"model"', '"theme": "dark",\n  "model"');
    await fs.writeFile(settingsFile(), changed);
    await page.getByTestId('undo-claude-code').click();
    const outcome = page.getByTestId('outcome-claude-code');
    await outcome.filter({ hasText: 'changed since Connect wrote it' }).waitFor();
    expect(await outcome.textContent()).not.toMatch(/switchboard connect|--force|POST \/admin/);
    expect(await fs.readFile(settingsFile(), 'utf8')).toBe(changed);
    await screenshot(page, 'connect-undo-changed');
    const question = acceptNext(page);
    await page.getByTestId('undo-anyway-claude-code').click();
    expect(await question).toContain('changed since Connect wrote it');
    await outcome.filter({ hasText: 'holds again exactly what it held before Connect' }).waitFor();
    expect(await fs.readFile(settingsFile(), 'utf8')).toBe(BEFORE);
    const kept = await fs.readdir(path.join(sb.dir, 'connect', 'claude-code'));
    const replaced = kept.find((f) => f.startsWith('replaced-'));
    expect(replaced).toBeDefined();
    expect(await fs.readFile(path.join(sb.dir, 'connect', 'claude-code', replaced!), 'utf8')).toBe(changed);
    await page.close();
  });
});
