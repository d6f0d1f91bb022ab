// The config pages in a real Chromium against `switchboard serve` (issue 15): the route tester explains the edits on
// screen (bug 5); error panels go after Cancel or once the value is fixed (bug 6); a second app rule for the same app
// and rules naming a disabled provider are said next to the rule (bug 3's UI); field errors in words; rules edited in
// place, an empty rule refused; unsaved marks and the guard on leaving; an app rule with only a model override; a new
// provider checked at once; renaming or deleting a provider that rules use; the circuit breaker's cool-down.
import fs from 'node:fs/promises';
import type { Browser, Dialog, Page } from 'playwright-core';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let beta: MockProvider;
let broken: MockProvider;
let sb: ServeProcess;

type Cfg = Record<string, unknown> & {
  providers: { name: string; base_url: string; enabled?: boolean }[];
  routing: { default_provider: string; rules: { pattern: string; provider: string }[] };
  app_rules: { app: string; default_provider?: string; model_override?: string }[];
};
/** The config every test starts from: alpha, beta, a disabled "off", and a breaker that opens at the first failure. */
const base = (): Cfg => {
  const cfg = configFor(
    { alpha: alpha.baseUrl, beta: beta.baseUrl, broken: broken.baseUrl },
    {
      rules: [
        { pattern: 'gpt-*', provider: 'alpha' },
        { pattern: 'broken-*', provider: 'broken' },
      ],
      default_provider: 'alpha',
      app_rules: [{ app: 'cursor', default_provider: 'alpha' }],
      circuit_breaker: { failure_threshold: 1, cooldown_ms: 60_000 },
    },
  ) as Cfg;
  cfg.providers.push({ name: 'off', base_url: 'http://127.0.0.1:9/v1', enabled: false });
  return cfg;
};
const readConfig = async (): Promise<Cfg> => JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as Cfg;
/** Answers the next dialog (accept or dismiss) and keeps its text. */
const nextDialog = (page: Page, accept: boolean): Promise<string> =>
  new Promise((resolve) =>
    page.once('dialog', (d: Dialog) => {
      resolve(d.message());
      void (accept ? d.accept() : d.dismiss());
    }),
  );
const fieldErrors = (page: Page) => page.locator('[data-testid^=field-error-]');

describeWithChromium('the config pages explain themselves', () => {
  beforeAll(async () => {
    [alpha, beta, broken, browser] = await Promise.all([
      startMockProvider({ name: 'alpha' }),
      startMockProvider({ name: 'beta' }),
      startMockProvider({ name: 'broken', behavior: { status: 500 } }),
      launchBrowser(),
    ]);
    sb = await serveWithUi({ config: base() });
  });
  shutDownAfterAll(() => [browser, sb, alpha, beta, broken]);
  beforeEach(async () => {
    const cfg = base();
    if (JSON.stringify(await readConfig()) === JSON.stringify(cfg)) return;
    await sb.writeConfig(cfg);
    // The engine has taken it (the status is the running config's).
    await eventually(async () => {
      const r = (await (await sb.admin('/status')).json()) as Omit<Cfg, 'providers'> & {
        providers: { name: string }[];
      };
      expect(r.providers.map((p) => p.name).sort()).toEqual(cfg.providers.map((p) => p.name).sort());
      expect(r.routing).toEqual(cfg.routing);
      expect(r.app_rules).toEqual(cfg.app_rules);
    });
  });

  it('the route tester explains the rules on screen, not the saved ones (bug 5); edits are marked unsaved', async () => {
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-provider-0').waitFor();
    expect(await page.getByTestId('unsaved').count()).toBe(0);
    await page.getByTestId('rule-provider-0').selectOption('beta'); // not saved
    await page.getByTestId('unsaved').waitFor();
    expect(await page.getByTestId('nav-routing').textContent()).toContain('unsaved changes');
    await page.getByTestId('tester-model').fill('gpt-4o');
    await page.getByTestId('tester-run').click();
    await page.getByTestId('tester-result').filter({ hasText: 'not saved yet' }).waitFor();
    expect(await page.getByTestId('tester-candidate').allTextContents()).toEqual([
      'beta — rule:gpt-*',
      'alpha — default',
    ]);
    expect(await page.getByTestId('announcer').textContent()).toBe('Route for gpt-4o: beta, then alpha.');
    expect((await readConfig()).routing.rules[0]!.provider).toBe('alpha');
    await screenshot(page, 'routing-unsaved-tester');
    // Saved: the answer on screen is of the saved rules now, and says so (issue 34, bug 8).
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    await eventually(async () =>
      expect(await page.getByTestId('tester-result').textContent()).not.toContain('not saved yet'),
    );
    expect(await page.getByTestId('tester-result').textContent()).toContain('with the rules as saved');
    expect(await page.getByTestId('routing-saved').textContent()).toBe('Routing saved.');
    await page.close();
  });

  it("a rule's strategy and continue_on_cut and routing.offline survive a save; the strategy is chosen on the page (issue 37)", async () => {
    const cfg = base() as Cfg & { routing: Record<string, unknown> };
    const rules = cfg.routing.rules as unknown as Record<string, unknown>[];
    rules[0] = { pattern: 'gpt-*', providers: ['alpha', 'beta'], strategy: 'cheapest', continue_on_cut: true };
    cfg.routing.offline = { enabled: true, providers: ['beta'], model_map: { '*': 'local-model' } };
    await sb.writeConfig(cfg);
    await eventually(async () => {
      const r = (await (await sb.admin('/status')).json()) as { routing: { rules: { strategy?: string }[] } };
      expect(r.routing.rules[0]!.strategy).toBe('cheapest');
    });
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-strategy-0').waitFor();
    expect(await page.getByTestId('rule-strategy-0').inputValue()).toBe('cheapest');
    expect(await page.getByTestId('rule-continue-0').isChecked()).toBe(true);
    await page.getByTestId('rule-strategy-1').selectOption('fastest');
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    const saved = (await readConfig()) as unknown as { routing: { rules: unknown[]; offline: unknown } };
    expect(saved.routing.rules[0]).toEqual({
      pattern: 'gpt-*',
      providers: ['alpha', 'beta'],
      strategy: 'cheapest',
      continue_on_cut: true,
    });
    expect(saved.routing.rules[1]).toEqual({ pattern: 'broken-*', provider: 'broken', strategy: 'fastest' });
    expect(saved.routing.offline).toEqual({ enabled: true, providers: ['beta'], model_map: { '*': 'local-model' } });
    // The tester says why each provider is where it is.
    await page.getByTestId('tester-model').fill('gpt-4o');
    await page.getByTestId('tester-run').click();
    await page.getByTestId('tester-result').waitFor();
    const lines = await page.getByTestId('tester-candidate').allTextContents();
    expect(lines[0]).toMatch(/^alpha — called first: rule "gpt-\*" \(cheapest\)/);
    expect(lines[1]).toMatch(/^beta — backup if the ones before fail/);
    await page.close();
  });

  it('an empty rule is refused; a rule edited in place to empty shows its error beside it until fixed (bug 6)', async () => {
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-0').waitFor();
    await page.getByTestId('add-rule').click();
    expect(await page.getByTestId('field-error-new-pattern').textContent()).toBe(
      'Type a model pattern, e.g. gpt-* (or * for every model).',
    );
    expect(await page.getByTestId('field-error-new-provider').textContent()).toBe(
      'Pick the provider this rule sends to.',
    );
    expect(await page.locator('[data-testid^=rule-pattern-]').count()).toBe(2);
    // Edited in place: the second rule's pattern emptied, then saved.
    await page.getByTestId('rule-pattern-1').fill('');
    await page.getByTestId('save-routing').click();
    const error = page.getByTestId('field-error-rule-1-pattern');
    expect(await error.textContent()).toBe('Pattern must not be empty (use "*" to match every model).');
    expect(await page.getByTestId('rule-pattern-1').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('form-error').textContent()).toContain('Not saved.');
    expect(await page.content()).not.toContain('routing.rules[1]');
    await screenshot(page, 'routing-error');
    // Fixed: the error and the panel go at once, before any save.
    await page.getByTestId('rule-pattern-1').fill('claude-*');
    await error.waitFor({ state: 'detached' });
    expect(await page.getByTestId('form-error').count()).toBe(0);
    await page.getByTestId('save-routing').click();
    await page.getByTestId('routing-saved').waitFor();
    expect((await readConfig()).routing.rules[1]).toEqual({ pattern: 'claude-*', provider: 'broken' });
    expect(await page.getByTestId('announcer').textContent()).toBe('Routing saved.');
    expect(await page.getByTestId('routing-saved').textContent()).toBe('Routing saved.');
    await page.close();
  });

  it('leaving a page with unsaved edits asks first (Cancel stays); closing the window asks too', async () => {
    const page = await openUi(browser, sb, 'routing');
    await page.getByTestId('rule-pattern-0').fill('gpt-4*');
    let question = nextDialog(page, false);
    await page.getByTestId('nav-apps').click();
    expect(await question).toBe('Routing has unsaved changes. Leave and discard them? (Cancel stays on the page.)');
    await eventually(async () => expect(new URL(page.url()).hash).toBe('#/routing'));
    expect(await page.getByTestId('rule-pattern-0').inputValue()).toBe('gpt-4*');
    // Leaving the page itself (closing the window, reloading, another address) with edits: the browser's own
    // question (beforeunload); dismissed, the page and its edits stay.
    const unload = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.type());
        void d.dismiss();
      }),
    );
    await page.goto('about:blank').catch(() => undefined); // aborted: the page stays
    expect(await unload).toBe('beforeunload');
    expect(await page.getByTestId('rule-pattern-0').inputValue()).toBe('gpt-4*');
    question = nextDialog(page, true);
    await page.getByTestId('nav-apps').click();
    await question;
    await page.getByTestId('page-apps').waitFor();
    expect(await page.getByTestId('nav-routing').getAttribute('aria-current')).toBeNull();
    expect(await page.getByTestId('nav-apps').getAttribute('aria-current')).toBe('page');
    await page.close();
  });

  it('a second rule for the same app, and rules naming a disabled provider, are said beside the rule (bug 3)', async () => {
    const page = await openUi(browser, sb, 'apps');
    await page.getByTestId('app-rule-0').waitFor();
    // Added as "Cursor": refused before it reaches the list.
    await page.getByTestId('app-rule-app').fill('Cursor');
    await page.getByTestId('app-rule-provider').selectOption('beta');
    await page.getByTestId('add-app-rule').click();
    expect(await page.getByTestId('field-error-new-app').textContent()).toBe(
      'There is already a rule for "cursor" (app names ignore case): edit it in the list above.',
    );
    // Two rules, the second renamed in place to the same app: the schema's refusal, in words, beside it.
    await page.getByTestId('app-rule-app').fill('zed');
    await page.getByTestId('add-app-rule').click();
    await page.getByTestId('app-rule-app-1').fill('CURSOR');
    await page.getByTestId('save-apps').click();
    expect(await page.getByTestId('field-error-app-1-app').textContent()).toBe(
      '"CURSOR" is the same app as the rule for "cursor" (app names ignore case): edit that rule instead.',
    );
    expect((await readConfig()).app_rules).toEqual([{ app: 'cursor', default_provider: 'alpha' }]);
    // A rule naming the disabled provider is taken, with a warning beside it.
    await page.getByTestId('app-rule-app-1').fill('zed');
    await page.getByTestId('app-rule-provider-1').selectOption('off');
    await page.getByTestId('app-rule-warning-1').waitFor();
    expect(await page.getByTestId('app-rule-warning-1').textContent()).toContain('Provider "off" is disabled');
    await page.getByTestId('save-apps').click();
    await page.getByTestId('apps-saved').waitFor();
    // The page says what the live region says: what was saved, and the warning in words (issue 34, bug 11).
    const said =
      'App rules saved, with a warning: the app rule for zed: provider "off" is disabled: requests of "zed" that no routing rule matches skip it, to the default provider; enable it or pick another provider.';
    expect(await page.getByTestId('announcer').textContent()).toBe(said);
    expect(await page.getByTestId('apps-saved').textContent()).toBe(said);
    expect((await readConfig()).app_rules[1]).toEqual({ app: 'zed', default_provider: 'off' });
    await screenshot(page, 'apps-warning');
    // The Routing page says it of its rules too.
    await page.getByTestId('nav-routing').click();
    await page.getByTestId('rule-provider-1').selectOption('off');
    expect(await page.getByTestId('rule-warning-1').textContent()).toContain('Provider "off" is disabled');
    await page.close();
  });

  it('an app rule may set only a model override; one that sets neither is refused', async () => {
    const page = await openUi(browser, sb, 'apps');
    await page.getByTestId('app-rule-0').waitFor();
    await page.getByTestId('app-rule-app').fill('zed');
    await page.getByTestId('add-app-rule').click();
    expect(await page.getByTestId('field-error-new-provider').textContent()).toBe(
      'Pick a provider or type a model override: a rule with neither would do nothing.',
    );
    await page.getByTestId('app-rule-override').fill('gpt-4o-mini');
    await page.getByTestId('add-app-rule').click();
    await page.getByTestId('save-apps').click();
    await page.getByTestId('apps-saved').waitFor();
    expect((await readConfig()).app_rules[1]).toEqual({ app: 'zed', model_override: 'gpt-4o-mini' });
    // A real request of that app: the override, then the rules (gpt-* → alpha).
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-app': 'zed' },
      body: JSON.stringify({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.headers.get('x-switchboard-provider')).toBe('alpha');
    expect(alpha.requests.at(-1)!.body.model).toBe('gpt-4o-mini');
    await page.close();
  });

  it('provider errors are in words beside the field, and go after Cancel or once the value is fixed (bug 6)', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-alpha').waitFor();
    await page.getByTestId('add-provider').click();
    const form = page.getByTestId('provider-form');
    await form.locator('input[name=name]').fill('alpha');
    await form.locator('input[name=base_url]').fill('localhost:8080');
    await page.getByTestId('save-provider').click();
    expect(await page.getByTestId('field-error-provider-name').textContent()).toBe(
      'Name is already used by another provider.',
    );
    expect(await page.getByTestId('field-error-provider-base_url').textContent()).toMatch(
      /^Base URL must be a full http:\/\/ or https:\/\/ address/,
    );
    const text = await page.getByTestId('page-providers').textContent();
    expect(text).not.toContain('providers[');
    expect(text).toContain('Not saved.');
    await screenshot(page, 'providers-field-errors');
    // Cancel: no error panel stays behind.
    await page.getByTestId('cancel-provider').click();
    expect(await page.getByTestId('form-error').count()).toBe(0);
    expect(await fieldErrors(page).count()).toBe(0);
    // Again, then fixed value by value: each error goes as its value is fixed.
    await page.getByTestId('add-provider').click();
    await form.locator('input[name=name]').fill('alpha');
    await form.locator('input[name=base_url]').fill('localhost:8080');
    await page.getByTestId('save-provider').click();
    await page.getByTestId('field-error-provider-base_url').waitFor();
    await form.locator('input[name=base_url]').fill('http://127.0.0.1:9/v1');
    await page.getByTestId('field-error-provider-base_url').waitFor({ state: 'detached' });
    expect(await page.getByTestId('field-error-provider-name').count()).toBe(1);
    await form.locator('input[name=name]').fill('gamma');
    await page.getByTestId('form-error').waitFor({ state: 'detached' });
    expect(await fieldErrors(page).count()).toBe(0);
    await page.close();
  });

  it('a new provider is checked at once after its save, not at the next health check', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('add-provider').click();
    const form = page.getByTestId('provider-form');
    await form.locator('input[name=name]').fill('fresh');
    await form.locator('input[name=base_url]').fill(beta.baseUrl);
    await page.getByTestId('save-provider').click();
    // Health checks are off in this config (interval_ms 0): only the check after the save can make it "ok".
    await eventually(async () => expect(await page.getByTestId('provider-state-fresh').textContent()).toBe('ok'));
    expect(await page.getByTestId('provider-test-fresh').textContent()).toMatch(/^ok in \d+ ms, 1 model$/);
    expect(await page.getByTestId('announcer').textContent()).toMatch(/^Provider fresh: ok in \d+ ms, 1 model\.$/);
    await page.close();
  });

  it('renaming a provider that rules use offers to rename it there; deleting offers to remove those rules', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-alpha').waitFor();
    await page.getByRole('button', { name: 'Edit alpha' }).click();
    await page.getByTestId('provider-form').locator('input[name=name]').fill('omega');
    const asked = nextDialog(page, true);
    await page.getByTestId('save-provider').click();
    expect(await asked).toBe(
      '"alpha" is used by routing rule 1 (gpt-*), the default provider, the app rule for cursor. Rename it there too, to "omega"? (Cancel: nothing is saved.)',
    );
    await page.getByTestId('provider-omega').waitFor();
    let cfg = await readConfig();
    expect(cfg.routing).toEqual({
      default_provider: 'omega',
      rules: [
        { pattern: 'gpt-*', provider: 'omega' },
        { pattern: 'broken-*', provider: 'broken' },
      ],
    });
    expect(cfg.app_rules).toEqual([{ app: 'cursor', default_provider: 'omega' }]);
    // Delete: the question lists the rules that go with it; Cancel keeps everything.
    let question = nextDialog(page, false);
    await page.getByRole('button', { name: 'Delete omega' }).click();
    expect(await question).toContain(
      'It is used by routing rule 1 (gpt-*), the default provider, the app rule for cursor',
    );
    expect((await readConfig()).providers.map((p) => p.name)).toContain('omega');
    question = nextDialog(page, true);
    await page.getByRole('button', { name: 'Delete omega' }).click();
    await question;
    await page.getByTestId('provider-omega').waitFor({ state: 'detached' });
    cfg = await readConfig();
    expect(cfg.providers.map((p) => p.name)).toEqual(['beta', 'broken', 'off']);
    expect(cfg.routing).toEqual({ default_provider: '', rules: [{ pattern: 'broken-*', provider: 'broken' }] });
    expect(cfg.app_rules).toEqual([]);
    await page.close();
  });

  it("shows a provider's open circuit breaker and the cool-down left", async () => {
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'broken-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.headers.get('x-switchboard-provider')).toBe('alpha'); // broken failed over to the default
    const page = await openUi(browser, sb, 'providers');
    const circuit = page.getByTestId('provider-circuit-broken');
    await eventually(async () => expect(await circuit.textContent()).toMatch(/^open: skipped for (5\d|60) s more/));
    expect(await page.getByTestId('provider-circuit-alpha').textContent()).toBe('closed');
    await screenshot(page, 'providers-circuit');
    await page.close();
  });
});
