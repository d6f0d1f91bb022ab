// Settings' Backups list in a real Chromium against `switchboard serve`: after a PUT of {} wiped every provider, the
// list shows what was kept; Restore asks first (Cancel changes nothing), then brings the providers back on disk and
// a real request routes again. A save from the page says which backup holds the config it replaced.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let sb: ServeProcess;

const ask = (model: string) =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

describeWithChromium('config backups in Settings', () => {
  beforeAll(async () => {
    [alpha, browser] = await Promise.all([startMockProvider({ name: 'alpha' }), launchBrowser()]);
    sb = await serveWithUi({
      config: configFor({ alpha: alpha.baseUrl }, { rules: [{ pattern: 'gpt-*', provider: 'alpha' }] }),
    });
  });
  shutDownAfterAll(() => [browser, sb, alpha]);

  it('Restore (after a confirm) brings back the providers a PUT of {} removed, and routing works again', async () => {
    const original = await fs.readFile(sb.configPath, 'utf8');
    const put = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { backup } = (await put.json()) as { backup: { id: string } };
    expect((await ask('gpt-4o')).status).toBe(404);

    const page = await openUi(browser, sb, 'settings');
    const row = page.getByTestId('config-backup').filter({ hasText: backup.id });
    await row.waitFor();
    expect(await row.textContent()).toContain('1 provider (alpha), 1 rule');
    expect(await row.textContent()).toContain('replaced by a save');
    expect(await page.content()).not.toContain('sk-alpha-secret-key-123456');

    // Cancel: nothing happens.
    const questions: string[] = [];
    page.once('dialog', (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await page.getByTestId(`restore-${backup.id}`).click();
    await eventually(() => expect(questions).toHaveLength(1));
    expect(questions[0]).toContain('The current config is kept as a backup first');
    expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8'))).toEqual({});

    // Accept: restored.
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId(`restore-${backup.id}`).click();
    const done = page.getByTestId('backup-restored');
    await done.waitFor();
    expect(await done.textContent()).toMatch(
      /Restored backup .*The config it replaced is kept as backup \d{8}-\d{6}-\d{3}-restore/,
    );
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(original);
    const res = await ask('gpt-4o');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchboard-provider')).toBe('alpha');
    // The list now leads with the backup of {} the restore made.
    await eventually(async () =>
      expect(await page.getByTestId('config-backup').first().textContent()).toContain('replaced by a restore'),
    );
    await screenshot(page, 'settings-backups');

    // The page's form shows the restored config, and a save from it names the backup of what it replaced.
    await eventually(async () => expect(await page.getByTestId('listen-port').inputValue()).toBe('11434'));
    await page.getByTestId('listen-port').fill('11500');
    await page.getByTestId('save-settings').click();
    const saved = page.getByTestId('settings-saved');
    await saved.waitFor();
    expect(await saved.textContent()).toMatch(/Previous config kept as backup \d{8}-\d{6}-\d{3}-save\./);
    expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8')).listen_port).toBe(11500);
    await page.close();
  });

  it('Compare shows what changed between a backup and the config in force, field by field, never a key', async () => {
    const cfg = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
    cfg.providers[0].api_key = 'sk-alpha-other-secret-999999';
    cfg.providers[0].enabled = false;
    cfg.log_requests = true;
    const put = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(cfg),
    });
    expect(put.status).toBe(200);
    const page = await openUi(browser, sb, 'settings');
    await page.getByTestId('backup-compare').waitFor();
    expect(await page.getByTestId('config-backups').textContent()).toContain(
      'kept: the newest 20, then one a day for 30 days (100 at most)',
    );
    // The newest backup (before this save) against the config in force: the defaults.
    await page.getByTestId('compare-run').click();
    const rows = page.getByTestId('compare-change');
    await rows.first().waitFor();
    const changes = await rows.evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)),
    );
    expect(changes).toEqual([
      ['log_requests', 'false', 'true'],
      ['providers "alpha".api_key', '(a key)', '(another key)'],
      ['providers "alpha".enabled', 'true', 'false'],
    ]);
    const text = (await page.getByTestId('backup-compare').textContent()) ?? '';
    expect(text).not.toMatch(/secret|9999|3456/);
    await screenshot(page, 'settings-backups-compare');
    await page.close();
  });
});
