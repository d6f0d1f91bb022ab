// Connect in a real Chromium against `switchboard serve`, HOME in a temporary folder (issue 34): Undo after the tool's
// file changed offers Undo anyway in the page (bug 7; it offered only a CLI command), which keeps the changed file and
// puts back the bytes from before Connect. Connect checks routing: Claude Code's card says who answers its tiers and
// subagent model, warns while claude-* names a disabled provider (its requests would go to the default OpenAI-type
// provider) and offers the fix, which sets the provider up from its preset; with a key already stored the fix is one
// Enable. Connect all connects every installed tool that points nowhere yet (Zed's card among them); a manual card
// shows model names Switchboard really serves.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { type MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic.ts';
import { seriousViolations, violationsText } from './axe.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let claudeApi: MockAnthropic;
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
    [mock, claudeApi, browser] = await Promise.all([
      startMockProvider({ name: 'mock', behavior: { models: ['gpt-4o-mini', 'llama-3.3-70b'] } }),
      startMockAnthropic({ name: 'claude-standin' }),
      launchBrowser(),
    ]);
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-connect-home-'));
    await fs.mkdir(path.join(home, '.claude'));
    await fs.writeFile(settingsFile(), BEFORE);
    await fs.mkdir(path.join(home, '.codex'));
    await fs.mkdir(path.join(home, '.config', 'zed'), { recursive: true });
    // As after the first run with an OpenAI-type provider set up: claude-* still names the Anthropic template, disabled.
    const config = configFor(
      { mock: mock.baseUrl },
      {
        rules: [
          { pattern: 'gpt-*', provider: 'mock' },
          { pattern: 'claude-*', provider: 'anthropic' },
        ],
        default_provider: 'mock',
      },
    ) as { providers: unknown[] };
    config.providers.push({
      name: 'anthropic',
      type: 'anthropic',
      base_url: 'https://api.anthropic.com/v1',
      api_key: '',
      enabled: false,
    });
    sb = await serveWithUi({
      config,
      env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    });
  });
  shutDownAfterAll(() => [browser, sb, mock, claudeApi]);
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

  it('Claude Code with claude-* on a disabled provider: the card warns and offers the fix, which sets it up', async () => {
    const page = await openUi(browser, sb, 'connect');
    const routes = page.getByTestId('routes-claude-code');
    await routes.waitFor();
    const rows = await page.getByTestId('route-claude-code').allTextContents();
    // Its settings name a main model (claude-sonnet-4-5), then the tiers and the subagent model.
    expect(rows.map((r) => r.split(':')[0])).toEqual([
      'Main model',
      'Opus tier',
      'Sonnet tier',
      'Haiku tier (background tasks)',
      'Subagents',
    ]);
    for (const r of rows) expect(r).toMatch(/mock \(default\) ⚠$/);
    const warning = page.getByTestId('route-warning-claude-code');
    expect(await warning.textContent()).toContain(
      '⚠ Main model, Opus tier, Sonnet tier, Haiku tier (background tasks), Subagents: the rule claude-* names "anthropic", which is disabled, so Claude Code\'s requests go to "mock" instead.',
    );
    const found = await seriousViolations(page, ['[data-testid="tool-claude-code"]']);
    expect(found, violationsText(found)).toEqual([]);
    await screenshot(page, 'connect-routing-warning');
    // The fix: set Anthropic up (its key) from its preset, in place of the disabled template.
    const fix = page.getByTestId('route-fix-claude-code');
    expect(await fix.textContent()).toBe('Set up Anthropic (add its key)…');
    await fix.click();
    await page.getByTestId('preset-form').waitFor();
    expect(await page.getByTestId('preset-form').textContent()).toContain('Set up Anthropic');
    await page.getByTestId('preset-base-url').fill(claudeApi.baseUrl);
    await page.getByTestId('preset-key').fill('sk-ant-test-0123456789');
    await page.getByTestId('preset-add').click();
    await page.getByTestId('preset-added').waitFor();
    await page.evaluate(() => (window.location.hash = '#/connect'));
    await page.getByTestId('routes-claude-code').waitFor();
    await expect
      .poll(async () =>
        (await page.getByTestId('route-claude-code').allTextContents()).every((r) =>
          /anthropic \(rule:claude-\*\)$/.test(r),
        ),
      )
      .toBe(true);
    expect(await page.getByTestId('route-warning-claude-code').count()).toBe(0);
    // Disabled again, with its key stored: the fix is one Enable.
    const cfg = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
    cfg.providers.find((p: { name: string }) => p.name === 'anthropic').enabled = false;
    await sb.writeConfig(cfg);
    // The engine has taken the edit (its status says so) before the page reads Connect again.
    await eventually(async () => {
      const status = (await (await sb.admin('/status')).json()) as { providers: { name: string; enabled: boolean }[] };
      expect(status.providers.find((p) => p.name === 'anthropic')?.enabled).toBe(false);
    });
    await page.reload();
    await page.getByTestId('route-fix-claude-code').filter({ hasText: 'Enable "anthropic"' }).click();
    await page.getByTestId('route-fixed-claude-code').waitFor();
    await expect.poll(() => page.getByTestId('route-warning-claude-code').count()).toBe(0);
    expect(
      JSON.parse(await fs.readFile(sb.configPath, 'utf8')).providers.find(
        (p: { name: string }) => p.name === 'anthropic',
      ).enabled,
    ).toBe(true);
    await page.close();
  });

  it('Connect all connects every installed tool that points nowhere yet; Zed has a card; manual cards show real models', async () => {
    const page = await openUi(browser, sb, 'connect');
    await page.getByTestId('tool-zed').waitFor();
    expect(await page.getByTestId('tool-state-zed').textContent()).toBe('not connected');
    // Codex's card says who answers its default model.
    expect(await page.getByTestId('route-codex').first().textContent()).toMatch(/^Default model: gpt-5-codex/);
    const all = page.getByTestId('connect-all');
    expect(await all.textContent()).toMatch(/^Connect all \(\d+\)$/);
    await all.click();
    const said = page.getByTestId('connect-all-result');
    await said.waitFor();
    expect(await said.textContent()).toMatch(/^Connected .*Codex CLI.*Zed/);
    for (const id of ['codex', 'zed', 'claude-code'])
      await expect.poll(() => page.getByTestId(`tool-state-${id}`).textContent()).toBe('connected');
    const zedSettings = JSON.parse(await fs.readFile(path.join(home, '.config', 'zed', 'settings.json'), 'utf8'));
    expect(zedSettings.language_models.ollama.api_url).toBe(`http://localhost:${sb.port}`);
    // Cline's values name models the mock provider lists (GET /v1/models), not a placeholder.
    const cline = await page.getByTestId('values-cline').textContent();
    expect(cline).toContain('gpt-4o-mini');
    expect(cline).not.toContain('a model name your routing rules match');
    await page.close();
  });
});
