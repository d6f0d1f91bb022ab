// A provider's key pool edited on the Providers page (issue 37's pools, made editable): one key → a pool of two (the
// key it had kept, one added), saved; then the first key removed (the second moves up a place, sent back masked) and
// a third added, saved; config.json holds the keys in full, the page only masked; a request through the proxy carries
// a key of the pool. A pool with no key is refused at the pool; a pool of one goes back to one key. The open pool
// form has no serious axe-core violation, light and dark, at both sizes.
import fs from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { expectEveryLook } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, serveWithUi } from './harness.ts';

const FIRST = 'sk-pooled-secret-key-123456'; // configFor's key for provider "pooled"
const SECOND = 'sk-pool-second-key-2222';
const THIRD = 'sk-pool-third-key-3333';
type Provider = { name: string; api_key?: string; api_keys?: string[] };

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;

const pooled = async (): Promise<Provider> =>
  (JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { providers: Provider[] }).providers[0]!;
const form = (page: Page) => page.getByTestId('provider-form');
const addKey = async (page: Page, key: string) => {
  await form(page).locator('input[name=new_key]').fill(key);
  await page.getByTestId('pool-key-add').click();
};
const poolShown = (page: Page) => page.getByTestId('pool-keys').locator('li .mono').allTextContents();
/** Saves the form: it closes, or the test fails at once with what the page said. */
const save = async (page: Page) => {
  await page.getByTestId('save-provider').click();
  const refused = page.getByTestId('form-error');
  await Promise.race([
    form(page).waitFor({ state: 'detached' }),
    refused.waitFor().then(async () => {
      throw new Error(`not saved: ${await refused.textContent()}`);
    }),
  ]);
};

describeWithChromium('a key pool edited on the Providers page', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'pooled' }), launchBrowser()]);
    sb = await serveWithUi({ config: configFor({ pooled: mock.baseUrl }) });
  });
  shutDownAfterAll(() => [browser, sb, mock]);

  it('one key → a pool of two, then one removed and one added: config.json holds them, requests use them', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByRole('button', { name: 'Edit pooled' }).click();
    expect(await page.getByTestId('key-mode-one').isChecked()).toBe(true);

    // One key → a pool: the key it had is the pool's first, shown masked.
    await page.getByTestId('key-mode-pool').check();
    expect(await form(page).locator('input[name=api_key]').count()).toBe(0);
    expect(await poolShown(page)).toEqual(['sk-****3456']);
    await addKey(page, SECOND);
    expect(await poolShown(page)).toEqual(['sk-****3456', 'sk-****2222']);
    // Several keys: going back to one key waits until one is left, as the form says.
    expect(await page.getByTestId('key-mode-one').isDisabled()).toBe(true);
    expect(await page.getByTestId('provider-keys').textContent()).toContain(
      'To go back to one key, remove keys until one is left.',
    );

    // The open pool form: no serious axe-core violation, light and dark, at 1280×800 and 800×600.
    await expectEveryLook(page, 'provider-key-pool');

    await save(page);
    expect(await pooled()).toMatchObject({ api_keys: [FIRST, SECOND] });
    expect((await pooled()).api_key ?? '').toBe('');
    expect(await page.getByTestId('provider-key-pooled').textContent()).toBe(
      '2 keys, sticky per session (api_keys: sk-****3456, sk-****2222)',
    );
    expect(await page.content()).not.toContain(SECOND);

    // The first key removed (the second moves up a place and goes back masked), a third added.
    await page.getByRole('button', { name: 'Edit pooled' }).click();
    expect(await page.getByTestId('key-mode-pool').isChecked()).toBe(true);
    expect(await poolShown(page)).toEqual(['sk-****3456', 'sk-****2222']);
    await page.getByRole('button', { name: 'Remove key 1 (sk-****3456)' }).click();
    expect(await poolShown(page)).toEqual(['sk-****2222']);
    await addKey(page, THIRD);
    await save(page);
    expect((await pooled()).api_keys).toEqual([SECOND, THIRD]);

    // A request through the proxy carries a key of the pool (never the removed one).
    await eventually(async () => {
      const before = mock.requests.length;
      const res = await fetch(`${sb.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi from the pool' }] }),
      });
      expect(res.status).toBe(200);
      const sent = mock.requests.slice(before).filter((r) => r.url.includes('/chat/completions'));
      expect([`Bearer ${SECOND}`, `Bearer ${THIRD}`]).toContain(sent.at(-1)!.headers.authorization);
    });
    await page.close();
  });

  it('an empty pool is refused at the pool; a pool of one key goes back to one key', async () => {
    const cfg = configFor({ pooled: mock.baseUrl }) as { providers: Provider[] };
    cfg.providers[0] = { ...cfg.providers[0]!, api_key: '', api_keys: [SECOND, THIRD] };
    await sb.writeConfig(cfg);
    await eventually(async () => {
      const read = (await (await sb.admin('/config')).json()) as { config: { providers: Provider[] } };
      expect(read.config.providers[0]!.api_keys).toEqual(['sk-****2222', 'sk-****3333']);
    });
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-key-pooled').getByText('2 keys', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Edit pooled' }).click();
    await page.getByRole('button', { name: 'Remove key 1 (sk-****2222)' }).click();
    await page.getByRole('button', { name: 'Remove key 1 (sk-****3333)' }).click();
    expect(await page.getByTestId('provider-keys').textContent()).toContain('No keys yet: add at least one.');
    await page.getByTestId('save-provider').click();
    expect(await page.getByTestId('field-error-provider-api_keys').textContent()).toBe(
      'The pool must list at least one key (or leave api_keys out and set api_key).',
    );
    expect((await pooled()).api_keys).toEqual([SECOND, THIRD]); // nothing saved

    // A key added again: the error goes; one key left, the form goes back to one key and keeps it.
    await addKey(page, THIRD);
    await page.getByTestId('field-error-provider-api_keys').waitFor({ state: 'detached' });
    await page.getByTestId('key-mode-one').check();
    expect(await form(page).locator('input[name=api_key]').inputValue()).toBe(THIRD);
    await save(page);
    expect(await pooled()).toMatchObject({ api_key: THIRD });
    expect((await pooled()).api_keys).toBeUndefined();
    expect(await page.getByTestId('provider-key-pooled').textContent()).toBe('sk-****3333');
    await page.close();
  });
});
