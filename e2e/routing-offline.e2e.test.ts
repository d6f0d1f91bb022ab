// The offline fallback edited on the Routing page (routing.offline, docs/routing.md "Offline fallback") in a real
// Chromium against `switchboard serve`: turned on, a local provider picked (the local ones suggested first), a model
// map row and a context window; a save with no provider, a pattern twice or a window under 512 is refused with the
// error at its field; the save writes routing.offline to config.json with the rules untouched; then, the cloud mock
// closed, a request is served by the local Ollama mock through the map.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockOllama, startMockOllama } from '../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { expectEveryLook } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, serveWithUi } from './harness.ts';

let browser: Browser;
let cloud: MockProvider;
let local: MockOllama;
let sb: ServeProcess;

type Routing = { default_provider: string; rules: unknown[]; offline?: unknown };
const routing = async (): Promise<Routing> => JSON.parse(await fs.readFile(sb.configPath, 'utf8')).routing as Routing;
const RULES = [{ pattern: 'gpt-*', provider: 'cloud' }];

describeWithChromium('the offline fallback on the Routing page', () => {
  beforeAll(async () => {
    [cloud, local, browser] = await Promise.all([
      startMockProvider({ name: 'cloud' }),
      startMockOllama({ name: 'local-ollama', behavior: { tokens: ['Served', ' locally'] } }),
      launchBrowser(),
    ]);
    const config = configFor(
      { cloud: cloud.baseUrl, ollama: local.baseUrl, remote: 'https://api.example.invalid/v1' },
      { rules: RULES, default_provider: 'cloud' },
    ) as { providers: Record<string, unknown>[] };
    config.providers[1]!.type = 'ollama';
    sb = await serveWithUi({ config });
  });
  shutDownAfterAll(() => [browser, sb, cloud, local]);

  it('is turned on with a local provider and a model map row, refused at the field when wrong, saved, and serves when the cloud is gone', async () => {
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('offline-section').waitFor();
    expect(await page.getByTestId('offline-section').textContent()).toContain('offline: serving locally');
    expect(await page.getByTestId('offline-enabled').isChecked()).toBe(false);
    await page.getByTestId('offline-enabled').check();

    // On with no local provider: refused, said at the provider picker.
    await page.getByTestId('save-routing').click();
    await page.getByTestId('field-error-offline-providers').waitFor();
    expect(await page.getByTestId('field-error-offline-providers').textContent()).toBe(
      'Local providers must name at least one provider when the offline fallback is enabled.',
    );
    expect(await page.getByTestId('offline-add-provider').getAttribute('aria-invalid')).toBe('true');
    expect((await routing()).offline).toBeUndefined();

    // The providers that look local (type ollama, or on this machine) are suggested first; a remote one is not.
    const group = (label: string) =>
      page.getByTestId('offline-add-provider').locator(`optgroup[label="${label}"] option`).allTextContents();
    expect(await group('Local (suggested)')).toEqual(['cloud', 'ollama']);
    expect(await group('Other providers')).toEqual(['remote']);
    await page.getByTestId('offline-add-provider').selectOption('ollama');
    await page.getByTestId('offline-provider-0').waitFor();
    expect(await page.getByTestId('offline-provider-0').textContent()).toContain('ollama');
    // The error goes once its value is fixed.
    await page.getByTestId('field-error-offline-providers').waitFor({ state: 'detached' });

    // A model map row, and a second with the same pattern: refused at that row (config.json keys a pattern once).
    await page.getByTestId('offline-map-add').click();
    await page.getByTestId('offline-map-glob-0').fill('gpt-*');
    await page.getByTestId('offline-map-local-0').fill('qwen3:8b');
    await page.getByTestId('offline-map-add').click();
    await page.getByTestId('offline-map-glob-1').fill('gpt-*');
    await page.getByTestId('offline-map-local-1').fill('llama3:8b');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('field-error-offline-map-1-glob').waitFor();
    expect(await page.getByTestId('field-error-offline-map-1-glob').textContent()).toMatch(
      /^Row 1 has this pattern already/,
    );
    expect((await routing()).offline).toBeUndefined();
    await page.getByTestId('offline-map-remove-1').click();
    await page.getByTestId('field-error-offline-map-1-glob').waitFor({ state: 'detached' });

    // A context window under 512 tokens: the schema's error at that window.
    await page.getByTestId('offline-window-0').fill('100');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('field-error-offline-window-0').waitFor();
    expect(await page.getByTestId('field-error-offline-window-0').textContent()).toBe(
      'The context window of qwen3:8b must be at least 512 tokens.',
    );
    expect(await page.getByTestId('offline-window-0').getAttribute('aria-invalid')).toBe('true');
    expect((await routing()).offline).toBeUndefined();
    // Switched off, the section's parts stay shown while one of them is wrong: the error is not hidden.
    await page.getByTestId('offline-enabled').uncheck();
    expect(await page.getByTestId('field-error-offline-window-0').isVisible()).toBe(true);
    await page.getByTestId('offline-enabled').check();
    await page.getByTestId('offline-window-0').fill('32768');
    await page.getByTestId('field-error-offline-window-0').waitFor({ state: 'detached' });

    // The open section: no serious axe-core violation, light and dark, at 1280×800 and 800×600, nothing runs sideways.
    await expectEveryLook(page, 'routing-offline', { sideways: true });

    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect(await routing()).toEqual({
      default_provider: 'cloud',
      rules: RULES,
      offline: {
        enabled: true,
        providers: ['ollama'],
        model_map: { 'gpt-*': 'qwen3:8b' },
        context_windows: { 'qwen3:8b': 32768 },
      },
    });
    // The page shows what was saved after a reload.
    await page.reload();
    await page.getByTestId('offline-map-glob-0').waitFor();
    expect(await page.getByTestId('offline-enabled').isChecked()).toBe(true);
    expect(await page.getByTestId('offline-map-local-0').inputValue()).toBe('qwen3:8b');
    expect(await page.getByTestId('offline-window-0').inputValue()).toBe('32768');
    await page.close();

    // The cloud is gone: the request is served by the local model through the map.
    await cloud.close();
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchboard-route')).toBe('offline');
    expect(res.headers.get('x-switchboard-provider')).toBe('ollama');
    expect(body.choices[0]!.message.content).toBe('Served locally');
    expect(local.requests.at(-1)!.body.model).toBe('qwen3:8b');
  });
});
