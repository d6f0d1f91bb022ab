// A new user in a real Chromium against a `serve` started on no config at all (the first run writes its templates,
// all disabled), counting every action (issue 34, "Done when"): the /ui link, the OpenAI preset on the Overview, the
// key, Add, and "Send a test request" routes a real request to the provider, in at most 6 actions. The one action a
// real user does not need is pointing the preset's base URL at the mock provider standing in for api.openai.com.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import type { ServeProcess } from '../test/support/serve-process.ts';
import { seriousViolations, violationsText } from './axe.ts';
import { describeWithChromium, launchBrowser, screenshot, serveWithUi, uiLink } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;
let dir: string;
const KEY = 'sk-new-user-0123456789abcdef';

describeWithChromium('a new user: first run to a routed request from the UI alone', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'openai-standin' }), launchBrowser()]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-first-run-'));
    sb = await serveWithUi({ dir }); // no config.json: the first run writes the default one
  });
  shutDownAfterAll(() => [browser, sb, mock]);
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('first run → OpenAI preset → key → a routed request, in at most 6 actions', async () => {
    const actions: string[] = [];
    /** One thing the user does: a navigation, a click or one field typed. */
    const act = async (what: string, fn: () => Promise<unknown>) => {
      actions.push(what);
      await fn();
    };
    const link = uiLink(sb);
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await act('open the /ui link serve printed', () => page.goto(link));
    // The Overview says there is nothing to route to, and what to do next.
    await page.getByTestId('get-started').waitFor();
    expect(await page.getByTestId('health-line').textContent()).toContain('No provider is enabled');
    const found = await seriousViolations(page);
    expect(found, violationsText(found)).toEqual([]);
    await screenshot(page, 'first-run-overview');
    await act('pick OpenAI', () => page.getByTestId('preset-openai').click());
    await page.getByTestId('preset-form').waitFor();
    // The key field has the focus; the rules and the default are offered, ticked.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('preset-key');
    expect(await page.getByTestId('preset-default').isChecked()).toBe(true);
    await act('(test only) point the base URL at the stand-in for api.openai.com', () =>
      page.getByTestId('preset-base-url').fill(mock.baseUrl),
    );
    await act('paste the key', () => page.getByTestId('preset-key').fill(KEY));
    await screenshot(page, 'first-run-preset-form');
    await act('Set up OpenAI', () => page.getByTestId('preset-add').click());
    await page.getByTestId('preset-added').waitFor();
    await expect.poll(() => page.getByTestId('preset-test').textContent()).toMatch(/Test: ok in \d+ ms/);
    await act('Send a test request', () => page.getByTestId('preset-try').click());
    const answer = page.getByTestId('preset-try-answer');
    await answer.waitFor({ timeout: 10_000 });
    expect(await answer.textContent()).toMatch(/^Answered by openai \(gpt-4o-mini\): /);
    await screenshot(page, 'first-run-answered');

    expect(actions.length, actions.join('\n')).toBeLessThanOrEqual(6);
    // It really went to the provider, with the user's key, and config.json says what the form said.
    const chat = mock.requests.filter((r) => r.url.endsWith('/chat/completions'));
    expect(chat).toHaveLength(1);
    expect(chat[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const cfg = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
    expect(cfg.providers.find((p: { name: string }) => p.name === 'openai')).toMatchObject({
      base_url: mock.baseUrl,
      api_key: KEY,
      enabled: true,
    });
    expect(cfg.routing.default_provider).toBe('openai');
    expect(cfg.routing.rules.map((r: { pattern: string }) => r.pattern)).toContain('gpt-*');
    // The Overview no longer asks for a provider.
    await page.evaluate(() => (window.location.hash = '#/overview'));
    await expect.poll(() => page.getByTestId('health-line').textContent(), { timeout: 8000 }).toMatch(/healthy/);
    expect(await page.getByTestId('get-started').count()).toBe(0);
    // Routing: the first run's other templates are said once each, with where to set them up.
    await page.getByTestId('nav-routing').click();
    const claude = page.locator('[data-testid^=rule-warning-]').filter({ hasText: 'Provider "anthropic" is disabled' });
    await claude.waitFor();
    expect(await claude.getByRole('link').textContent()).toBe('Set up Anthropic…');
    expect(await claude.getByRole('link').getAttribute('href')).toBe('#/providers/add/anthropic');
    await page.close();
  });
});
