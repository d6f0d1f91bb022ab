// Issue 38's views in a real Chromium against `switchboard serve`, with capture on: a real Claude Code request with MCP
// tools (test/fixtures/real/claude-code/mcp-tools-turn.json) in a session; the Usage page's "Where the tokens went"
// shows the session's split per part, per MCP server (with the costliest server in a sentence) and per tool, and its
// timeline; the log drawer shows the captured bodies, and a replay to an OpenAI-type provider shows both answers
// side by side with their diff.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../test/fixtures/real/claude-code/mcp-tools-turn.json', import.meta.url), 'utf8'),
) as { headers: Record<string, string>; body: Record<string, unknown> };
const SESSION = '5d0c3a8e-e2e-insight-session';

let browser: Browser;
let an: MockAnthropic;
let oa: MockProvider;
let sb: ServeProcess;

describeWithChromium('capture, replay and where the tokens went', () => {
  beforeAll(async () => {
    [an, oa, browser] = await Promise.all([
      startMockAnthropic({
        name: 'an',
        behavior: {
          tokens: ['I listed the ', 'directory for you.'],
          usage: { input_tokens: 24_000, cache_read_input_tokens: 3_000, output_tokens: 9 },
        },
      }),
      startMockProvider({ name: 'oa', behavior: { tokens: ['I listed ', 'the folder.'] } }),
      launchBrowser(),
    ]);
    sb = await serveWithUi({
      config: {
        listen_port: 11434,
        log_requests: false,
        start_on_login: false,
        providers: [
          { name: 'an', type: 'anthropic', base_url: an.baseUrl, api_key: 'sk-ant-e2e-key-0123456789', enabled: true },
          { name: 'oa', type: 'openai', base_url: oa.baseUrl, api_key: 'sk-oa-e2e-key-0123456789', enabled: true },
        ],
        routing: { default_provider: 'an', rules: [{ pattern: 'gpt-*', provider: 'oa' }] },
        app_rules: [],
        health_check: { interval_ms: 0, timeout_ms: 2000 },
        capture: { enabled: true },
      },
    });
    for (const stream of [false, true]) {
      const res = await fetch(`${sb.url}/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          ...fixture.headers,
          'x-claude-code-session-id': SESSION,
          'x-api-key': 'client-key',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ ...fixture.body, stream }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    await eventually(async () => {
      const r = (await (await sb.admin(`/usage/attribution?session=${SESSION}`)).json()) as { requests: unknown[] };
      expect(r.requests.length).toBe(2);
    });
  });
  shutDownAfterAll(() => [browser, sb, an, oa]);

  it("the Usage page shows a session's split per part, per MCP server and per tool, and its timeline", async () => {
    const page = await openUi(browser, sb, 'overview');
    const card = page.getByTestId('attribution');
    await card.waitFor();
    const select = page.getByTestId('attribution-session');
    await eventually(async () => expect(await select.locator('option').allTextContents()).toContain(SESSION), 10_000);
    await select.selectOption(SESSION);
    await page.getByTestId('attribution-load').click();
    await page.getByTestId('attribution-total').waitFor();
    expect(await page.getByTestId('attribution-total').textContent()).toContain('54,000 input tokens in 2 requests');
    const servers = await page.getByTestId('attribution-server').allTextContents();
    expect(servers.length).toBe(2);
    expect(servers.join(' ')).toMatch(/everything/);
    expect(servers.join(' ')).toMatch(/filesystem/);
    expect(await page.getByTestId('attribution-server-sentence').textContent()).toMatch(
      /^The (everything|filesystem) MCP server's tool definitions are \d+(\.\d)?% of this session's input\.$/,
    );
    expect(await page.getByTestId('attribution-tool').count()).toBe(10);
    expect(await page.getByTestId('attribution-result').count()).toBe(1);
    expect(await page.getByTestId('attribution-request').count()).toBe(2);
    expect(await page.getByTestId('attribution-part-tool_definitions').textContent()).toMatch(/tool definitions[\d,]+/);
    await screenshot(page, 'insight-attribution');
    await page.close();
  });

  it('the log drawer shows the captured bodies; a replay to an OpenAI-type provider is shown beside the original', async () => {
    const page = await openUi(browser, sb, 'logs');
    await page.getByTestId('log-row').first().waitFor();
    await page.getByTestId('log-row').first().click();
    await page.getByTestId('log-detail').waitFor();
    await page.getByTestId('capture-load').click();
    await page.getByTestId('capture-answer').waitFor();
    expect(await page.getByTestId('capture-answer').textContent()).toContain('I listed the directory for you.');
    expect(await page.getByTestId('capture-request').textContent()).toContain('mcp__filesystem__');
    await page.getByTestId('replay-provider-0').selectOption('oa');
    await page.getByTestId('replay-model-0').fill('gpt-4.1');
    await page.getByTestId('replay-run').click();
    const result = page.getByTestId('replay-result');
    await result.waitFor();
    expect(await result.textContent()).toContain('oa / gpt-4.1: 200');
    expect(await result.textContent()).toContain('I listed the folder.');
    const diff = page.getByTestId('replay-diff');
    expect(await diff.locator('del').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('directory')]),
    );
    expect(await diff.locator('ins').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('folder')]),
    );
    await screenshot(page, 'insight-replay');
    await page.close();
  });

  it('Settings: the secret guard policy and capture limits are saved to config.json', async () => {
    const page = await openUi(browser, sb, 'settings');
    const section = page.getByTestId('guard-capture-settings');
    await section.waitFor();
    await eventually(async () => expect(await page.getByTestId('capture-enabled').isChecked()).toBe(true));
    await page.getByTestId('guard-default').selectOption('redact');
    await page.getByTestId('capture-max-requests').fill('50');
    await page.getByTestId('save-guard-capture').click();
    await page.getByTestId('guard-capture-saved').waitFor();
    const saved = JSON.parse(readFileSync(sb.configPath, 'utf8')) as {
      secret_guard: { default: string };
      capture: { enabled: boolean; max_requests: number };
    };
    expect(saved.secret_guard.default).toBe('redact');
    expect(saved.capture).toMatchObject({ enabled: true, max_requests: 50 });
    await page.getByTestId('capture-days').fill('-1');
    await page.getByTestId('save-guard-capture').click();
    // Refused in words beside the field; config.json keeps its days.
    await section.getByTestId('field-error-capture-days').waitFor();
    expect(await section.getByTestId('field-error-capture-days').textContent()).toBe('The days must be more than 0.');
    expect(await page.getByTestId('capture-days').getAttribute('aria-invalid')).toBe('true');
    expect((JSON.parse(readFileSync(sb.configPath, 'utf8')) as { capture: { days?: number } }).capture.days).not.toBe(
      -1,
    );
    // Fixed, the error goes at once (checked again as it is typed).
    await page.getByTestId('capture-days').fill('7');
    await section.getByTestId('field-error-capture-days').waitFor({ state: 'detached' });
    await page.close();
  });

  it('Settings: per-provider and per-app guard policies and the captured apps are edited, saved and applied', async () => {
    type Saved = {
      providers: { name: string }[];
      routing: { rules: unknown[] };
      secret_guard: { default: string; providers: Record<string, string>; apps: Record<string, string> };
      capture: { enabled: boolean; apps: string[]; max_requests: number };
    };
    const read = () => JSON.parse(readFileSync(sb.configPath, 'utf8')) as Saved;
    const before = read() as Partial<Saved>;
    const page = await openUi(browser, sb, 'settings');
    const section = page.getByTestId('guard-capture-settings');
    await section.waitFor();
    await eventually(async () => expect(await page.getByTestId('capture-enabled').isChecked()).toBe(true));
    // Only configured providers are offered; each provider once.
    const newProvider = page.getByTestId('guard-provider-new');
    expect(await newProvider.locator('option').allTextContents()).toEqual(['an', 'oa']);
    await newProvider.selectOption('an');
    await page.getByTestId('guard-provider-new-policy').selectOption('block');
    await page.getByTestId('guard-provider-add').click();
    expect(await page.getByTestId('guard-provider-name-0').inputValue()).toBe('an');
    expect(await newProvider.locator('option').allTextContents()).toEqual(['oa']);
    // Per app: the apps seen in traffic are offered (the Claude Code requests above), free text too.
    const seen = await page
      .locator('#guard-seen-apps option')
      .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    expect(seen.length).toBeGreaterThan(0);
    await page.getByTestId('guard-app-new').fill('Cursor.app');
    await page.getByTestId('guard-app-new-policy').selectOption('redact');
    await page.getByTestId('guard-app-add').click();
    await page.getByTestId('guard-app-row-0').waitFor();
    // The same app again (names ignore case and .app) is refused at the field.
    await page.getByTestId('guard-app-new').fill('cursor');
    await page.getByTestId('guard-app-add').click();
    expect(await page.getByTestId('field-error-guard-app-add').textContent()).toContain('already has a policy');
    await page.getByTestId('guard-app-new').fill('');
    // Capture: only the apps listed.
    await page.getByTestId('capture-only-apps').check();
    await page.getByTestId('capture-app-new').fill('zed');
    await page.getByTestId('capture-app-add').click();
    expect(await page.getByTestId('capture-app-0').inputValue()).toBe('zed');
    await page.getByTestId('save-guard-capture').click();
    await page.getByTestId('guard-capture-saved').waitFor();
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'insight-guard-capture-settings');
    const saved = read();
    expect(saved.secret_guard.providers).toEqual({ an: 'block' });
    expect(saved.secret_guard.apps).toEqual({ 'Cursor.app': 'redact' });
    expect(saved.capture).toMatchObject({ enabled: true, apps: ['zed'] });
    // Every other field kept.
    expect(saved.secret_guard.default).toBe(before.secret_guard?.default ?? 'warn');
    expect(saved.capture.max_requests).toBe(before.capture?.max_requests ?? 200);
    expect(saved.providers.map((p) => p.name)).toEqual(['an', 'oa']);
    expect(saved.routing.rules.length).toBe(1);
    expect(((await (await sb.admin('/config')).json()) as { config: Saved }).config.capture.apps).toEqual(['zed']);

    // Applied: a request from zed is captured, one from cursor is not.
    const send = async (app: string) => {
      const res = await fetch(`${sb.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-switchboard-app': app },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi from ${app}` }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
    };
    await send('cursor');
    await send('zed');
    type Entry = { id: string; app: string | null; captured?: true };
    const newest = async () => ((await (await sb.admin('/logs?limit=2')).json()) as { data: Entry[] }).data;
    await eventually(async () => {
      const zed = (await newest()).find((e) => e.app === 'zed');
      expect(zed?.captured).toBe(true);
      expect((await sb.admin(`/logs/${zed!.id}/body`)).status).toBe(200);
    });
    const cursor = (await newest()).find((e) => e.app === 'cursor')!;
    expect(cursor.captured).toBeUndefined();
    expect((await sb.admin(`/logs/${cursor.id}/body`)).status).toBe(404);

    // A bad value is said at its field (an app name over 128 characters), and config.json is left as it was.
    await page.getByTestId('capture-app-0').fill('z'.repeat(129));
    await page.getByTestId('save-guard-capture').click();
    const error = section.getByTestId('field-error-capture-app-0');
    await error.waitFor();
    expect(await error.textContent()).toBe('The app name must be at most 128 characters.');
    expect(await page.getByTestId('capture-app-0').getAttribute('aria-invalid')).toBe('true');
    expect(read().capture.apps).toEqual(['zed']);
    // "Only these apps" with none listed is refused (an empty list would mean every app).
    await page.getByTestId('capture-app-remove-0').click();
    await page.getByTestId('save-guard-capture').click();
    expect(await section.getByTestId('field-error-capture-apps').textContent()).toContain('Add at least one app');
    // Rows removed and "all apps": saved as empty tables.
    await page.getByTestId('capture-all-apps').check();
    await page.getByTestId('guard-provider-remove-0').click();
    await page.getByTestId('guard-app-remove-0').click();
    await page.getByTestId('save-guard-capture').click();
    await page.getByTestId('guard-capture-saved').waitFor();
    expect(read().secret_guard).toMatchObject({ providers: {}, apps: {} });
    expect(read().capture.apps).toEqual([]);
    await page.close();
  });
});
