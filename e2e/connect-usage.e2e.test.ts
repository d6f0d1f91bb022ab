// Issue 14 end to end, in a real Chromium against `switchboard serve` with HOME in a temporary folder: Connect Claude
// Code from the page (the file on disk points at Switchboard; Undo puts back the exact bytes; a file pointing elsewhere
// is replaced only after the confirm), traffic from the official SDKs as several apps, and the Overview's numbers
// (requests, tokens from the mocks' reported usage, cost from the price table computed here from the same counts) and
// charts follow it live; Try it answers with the provider; the snippets shown run as shown; budgets and notification
// switches reach config.json; axe-core finds nothing on the new pages. Screenshots: e2e/artifacts/overview.png,
// connect.png, connect-try.png, settings-usage.png.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { calcPrice } from '@pydantic/genai-prices';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatCount, formatUsd } from '../shared/usage-text.ts';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { axeViolations } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Claude Code's user settings before Connect. Hand-written (no capture), modelled on the example of Claude Code's
 * settings documentation (https://code.claude.com/docs/en/settings: permissions and env); comment-free JSON with the
 * 2-space indentation and final newline Claude Code writes, so "the same bytes" after Undo means something.
 */
const CLAUDE_SETTINGS =
  JSON.stringify(
    {
      permissions: { allow: ['Bash(npm run lint)', 'Bash(npm run test:*)', 'Read(~/.zshrc)'], deny: ['Read(./.env)'] },
      env: { CLAUDE_CODE_ENABLE_TELEMETRY: '0' },
      model: 'claude-sonnet-4-5',
    },
    null,
    2,
  ) + '\n';

/** The usage each mock reports for every request (known counts, cache and reasoning included). */
const OPENAI_USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  prompt_tokens_details: { cached_tokens: 200 },
  completion_tokens_details: { reasoning_tokens: 50 },
};
const ANTHROPIC_USAGE = {
  input_tokens: 800,
  output_tokens: 150,
  cache_read_input_tokens: 100,
  cache_creation_input_tokens: 50,
};
const OPENAI_MODEL = 'gpt-4o-mini';
const ANTHROPIC_MODEL = 'claude-3-5-haiku-latest';

/** One request as the hub counts it: prompt includes cache reads and writes, completion includes reasoning. */
type Counts = { prompt: number; completion: number; cacheRead: number; cacheWrite: number; reasoning: number };
const OPENAI_COUNTS: Counts = { prompt: 1200, completion: 300, cacheRead: 200, cacheWrite: 0, reasoning: 50 };
const ANTHROPIC_COUNTS: Counts = { prompt: 950, completion: 150, cacheRead: 100, cacheWrite: 50, reasoning: 0 };

/**
 * The price table's per-million prices of a model (@pydantic/genai-prices, the package Switchboard prices with), as a
 * config.json `prices` entry for the provider that serves it.
 */
function tablePrices(model: string, providerId: string, provider: string) {
  const probe = calcPrice({ input_tokens: 1000, output_tokens: 100 }, model, { providerId });
  if (!probe) throw new Error(`the price table has no price for ${providerId}/${model}`);
  const p = probe.model_price;
  return {
    provider,
    model,
    input: p.input_mtok!,
    output: p.output_mtok!,
    ...(p.cache_read_mtok !== undefined ? { cache_read: p.cache_read_mtok } : {}),
    ...(p.cache_write_mtok !== undefined ? { cache_write: p.cache_write_mtok } : {}),
  };
}

/** The price table's cost of one request, computed here from the counts the mock reports. */
function tableCost(c: Counts, model: string, providerId: string): number {
  const usage = {
    input_tokens: c.prompt,
    output_tokens: c.completion,
    ...(c.cacheRead ? { cache_read_tokens: c.cacheRead } : {}),
    ...(c.cacheWrite ? { cache_write_tokens: c.cacheWrite } : {}),
  };
  const price = calcPrice(usage, model, { providerId });
  if (!price) throw new Error(`the price table has no price for ${providerId}/${model}`);
  return price.total_price;
}

let browser: Browser;
let openaiMock: MockProvider;
let anthropicMock: MockAnthropic;
let sb: ServeProcess;
let home: string;
let settingsPath: string;

describeWithChromium('Connect and usage in the UI', () => {
  beforeAll(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-home-'));
    settingsPath = path.join(home, '.claude', 'settings.json');
    await fs.mkdir(path.dirname(settingsPath), { recursive: true });
    await fs.writeFile(settingsPath, CLAUDE_SETTINGS);
    [openaiMock, anthropicMock, browser] = await Promise.all([
      startMockProvider({ name: 'openai-mock', behavior: { usage: OPENAI_USAGE } }),
      startMockAnthropic({ name: 'anthropic-mock', behavior: { usage: ANTHROPIC_USAGE } }),
      launchBrowser(),
    ]);
    sb = await serveWithUi({
      env: { HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: '', XDG_CONFIG_HOME: '' },
      config: {
        listen_port: 11434,
        log_requests: false,
        providers: [
          { name: 'openai-mock', type: 'openai', base_url: openaiMock.baseUrl, api_key: 'sk-openai-mock-key-1234' },
          {
            name: 'anthropic-mock',
            type: 'anthropic',
            base_url: anthropicMock.baseUrl,
            api_key: 'sk-ant-mock-key-123456',
          },
        ],
        routing: {
          default_provider: 'openai-mock',
          rules: [
            { pattern: 'gpt-*', provider: 'openai-mock' },
            { pattern: 'claude-*', provider: 'anthropic-mock' },
          ],
        },
        // The mocks listen on loopback, and a provider on loopback is local (costs 0). They stand in for OpenAI and
        // Anthropic, so they are given those vendors' prices, read from the price table, as overrides.
        prices: [
          tablePrices(OPENAI_MODEL, 'openai', 'openai-mock'),
          tablePrices(ANTHROPIC_MODEL, 'anthropic', 'anthropic-mock'),
        ],
        health_check: { interval_ms: 0, timeout_ms: 2000 },
      },
    });
  });
  shutDownAfterAll(() => [browser, sb, openaiMock, anthropicMock]);
  afterAll(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  /** Opens the Connect page and waits for Claude Code's card. */
  const openConnect = async (): Promise<Page> => {
    const page = await openUi(browser, sb, 'connect');
    await page.getByTestId('tool-claude-code').waitFor();
    return page;
  };
  const stateOf = (page: Page) => page.getByTestId('tool-state-claude-code').textContent();

  it('connects Claude Code from the page (the file points at Switchboard) and Undo puts back the exact bytes', async () => {
    const page = await openConnect();
    expect(await stateOf(page)).toBe('not connected');
    const anthropicBase = (await page.getByTestId('base-url-anthropic').textContent())!;
    expect(new URL(anthropicBase).port).toBe(String(sb.port));
    expect(await axeViolations(page)).toEqual([]);

    await page.getByTestId('connect-claude-code').click();
    await eventually(async () => expect(await stateOf(page)).toBe('connected'));
    const connected = JSON.parse(await fs.readFile(settingsPath, 'utf8'));
    expect(connected.env).toMatchObject({
      ANTHROPIC_BASE_URL: anthropicBase,
      ANTHROPIC_AUTH_TOKEN: 'app:claude-code',
      CLAUDE_CODE_ENABLE_TELEMETRY: '0',
    });
    expect(connected.permissions).toEqual(JSON.parse(CLAUDE_SETTINGS).permissions);
    expect(await page.getByTestId('outcome-claude-code').textContent()).not.toBe('');
    await screenshot(page, 'connect');

    await page.getByTestId('undo-claude-code').click();
    await eventually(async () => expect(await stateOf(page)).toBe('not connected'));
    expect(await fs.readFile(settingsPath, 'utf8')).toBe(CLAUDE_SETTINGS);
    await page.close();
  });

  it('a file that points elsewhere is replaced only after the confirm that says what; Undo restores it', async () => {
    const elsewhere = CLAUDE_SETTINGS.replace(
      '"CLAUDE_CODE_ENABLE_TELEMETRY": "0"',
      '"CLAUDE_CODE_ENABLE_TELEMETRY": "0",\n    "ANTHROPIC_BASE_URL": "https://gateway.example.com"',
    );
    await fs.writeFile(settingsPath, elsewhere);
    const page = await openConnect();
    expect(await stateOf(page)).toBe('points elsewhere');
    expect(await page.getByTestId('tool-claude-code').textContent()).toContain('https://gateway.example.com');

    const questions: string[] = [];
    let answer = false;
    page.on('dialog', (d) => {
      questions.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.getByTestId('connect-claude-code').click();
    await page.getByTestId('outcome-claude-code').waitFor();
    expect(questions[0]).toContain('points elsewhere at https://gateway.example.com');
    expect(questions[0]).toContain(settingsPath);
    expect(await fs.readFile(settingsPath, 'utf8')).toBe(elsewhere);

    answer = true;
    await page.getByTestId('connect-claude-code').click();
    await eventually(async () => expect(await stateOf(page)).toBe('connected'));
    expect(questions).toHaveLength(2);
    expect(JSON.parse(await fs.readFile(settingsPath, 'utf8')).env.ANTHROPIC_BASE_URL).not.toBe(
      'https://gateway.example.com',
    );
    await page.getByTestId('undo-claude-code').click();
    await eventually(async () => expect(await stateOf(page)).toBe('points elsewhere'));
    expect(await fs.readFile(settingsPath, 'utf8')).toBe(elsewhere);
    await page.close();
  });

  it('the Overview follows SDK traffic live: requests, tokens and cost match what was sent; the charts draw it', async () => {
    const page = await openUi(browser, sb, 'overview');
    await page.getByTestId('today-requests').waitFor();
    expect(await page.getByTestId('today-requests').textContent()).toBe('0');
    await page.waitForTimeout(500); // the live stream is connected

    const openai = (app: string) => new OpenAI({ baseURL: sb.baseUrl, apiKey: `app:${app}`, maxRetries: 0 });
    const claude = (app: string) => new Anthropic({ baseURL: sb.url, apiKey: `app:${app}`, maxRetries: 0 });
    const ask = { role: 'user' as const, content: 'hi' };
    // notes: 2 OpenAI requests; editor: 1 OpenAI stream (usage asked for); claude-code: 2 Anthropic requests, 1 stream.
    await openai('notes').chat.completions.create({ model: OPENAI_MODEL, messages: [ask] });
    await openai('notes').chat.completions.create({ model: OPENAI_MODEL, messages: [ask] });
    const stream = await openai('editor').chat.completions.create({
      model: OPENAI_MODEL,
      messages: [ask],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) void chunk;
    await claude('claude-code').messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, messages: [ask] });
    await claude('claude-code').messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, messages: [ask] });
    await claude('claude-code')
      .messages.stream({ model: ANTHROPIC_MODEL, max_tokens: 64, messages: [ask] })
      .finalMessage();

    const sent = { openai: 3, anthropic: 3 };
    const sum = (k: keyof Counts) => sent.openai * OPENAI_COUNTS[k] + sent.anthropic * ANTHROPIC_COUNTS[k];
    const cost =
      sent.openai * tableCost(OPENAI_COUNTS, OPENAI_MODEL, 'openai') +
      sent.anthropic * tableCost(ANTHROPIC_COUNTS, ANTHROPIC_MODEL, 'anthropic');
    const text = (id: string) => page.getByTestId(id).textContent();

    // No reload: the page refreshes on the request-log events.
    await eventually(async () => expect(await text('today-requests')).toBe('6'), 10_000);
    expect(await text('today-errors')).toBe('0');
    expect(await text('today-prompt')).toBe(formatCount(sum('prompt')));
    expect(await text('today-completion')).toBe(formatCount(sum('completion')));
    expect(await text('today-cache')).toBe(`${formatCount(sum('cacheRead'))} / ${formatCount(sum('cacheWrite'))}`);
    expect(await text('today-reasoning')).toBe(formatCount(sum('reasoning')));
    expect(Number(await page.getByTestId('today-cost').getAttribute('data-usd'))).toBeCloseTo(cost, 12);
    expect(await text('today-cost')).toBe(formatUsd(cost));
    expect(await page.getByTestId('today-unpriced').count()).toBe(0);
    const row = async (id: string) => (await page.getByTestId(id).locator('td').allTextContents()).slice(0, 3);
    expect(await row('by-app-notes')).toEqual(['notes', '2', '0']);
    expect(await row('by-app-editor')).toEqual(['editor', '1', '0']);
    expect(await row('by-app-claude-code')).toEqual(['claude-code', '3', '0']);
    expect(await row('by-provider-openai-mock')).toEqual(['openai-mock', '3', '0']);
    expect(await row('by-model-claude-3-5-haiku-latest')).toEqual(['claude-3-5-haiku-latest', '3', '0']);
    expect(await page.getByTestId('recent-request').count()).toBe(6);
    expect(await text('health-line')).toContain('Routing is healthy');

    // The charts over the last hour: every request in them, and points drawn above the zero line.
    await page.getByTestId('range-1h').click();
    await eventually(async () => expect(await page.getByTestId('chart-requests').getAttribute('data-total')).toBe('6'));
    expect(Number(await page.getByTestId('chart-requests').getAttribute('data-points'))).toBeGreaterThanOrEqual(1);
    expect(Number(await page.getByTestId('chart-cost').getAttribute('data-total'))).toBeCloseTo(cost, 12);
    for (const [chart, rgb] of [
      ['chart-requests', [37, 99, 235]],
      ['chart-tokens', [124, 58, 237]],
      ['chart-cost', [15, 118, 110]],
    ] as const)
      expect(await drawnAboveZero(page, chart, rgb), chart).toBeGreaterThan(0);
    await screenshot(page, 'overview');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('Try it answers through the routes and shows the provider, why, latency and tokens', async () => {
    const page = await openConnect();
    await page.getByTestId('try-model').fill(OPENAI_MODEL);
    await page.getByTestId('try-message').fill('Say hello');
    await page.getByTestId('try-send').click();
    await page.getByTestId('try-result').waitFor();
    expect(await page.getByTestId('try-answer').textContent()).toBe('Hello from openai-mock');
    expect(await page.getByTestId('try-provider').textContent()).toBe('openai-mock');
    expect(await page.getByTestId('try-tokens').textContent()).toBe('1,200 prompt, 300 completion');
    expect((await page.getByTestId('try-why').textContent())!.length).toBeGreaterThan(0);
    await screenshot(page, 'connect-try');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the snippets shown run as shown: curl for every format, the official TypeScript SDKs', async () => {
    const page = await openConnect();
    for (const format of ['openai', 'anthropic', 'gemini', 'ollama'] as const) {
      const card = page.getByTestId(`format-${format}`);
      const curl = (await card.getByTestId(`snippet-${format}`).textContent())!;
      const { stdout } = await run('sh', ['-c', `${curl} --fail-with-body --silent --show-error`], { cwd: ROOT });
      expect(stdout, `${format} curl`).toContain('Hello from');
      await card.getByRole('button', { name: 'TypeScript', exact: true }).click();
      const ts = (await card.getByTestId(`snippet-${format}`).textContent())!;
      const out = await run(process.execPath, ['--input-type=module', '-e', ts], { cwd: ROOT, timeout: 20_000 });
      expect(out.stdout, `${format} TypeScript`).toContain('Hello from');
    }
    await page.close();
    // Each snippet names its app: all 8 requests are my-app's.
    const overview = await openUi(browser, sb, 'overview');
    const row = overview.getByTestId('by-app-my-app');
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).slice(0, 2)).toEqual(['my-app', '8']);
    await overview.close();
  });

  it('Settings: a budget and the notification switches reach config.json; the budget crossed is on the Overview, with its notice', async () => {
    const page = await openUi(browser, sb, 'settings');
    await page.getByTestId('add-budget').click();
    await page.getByTestId('budget-app').fill('notes');
    await page.getByTestId('budget-period').selectOption('day');
    await page.getByTestId('budget-limit').fill('0.001');
    await page.getByTestId('budget-warn').fill('0.5');
    await page.getByTestId('save-budget').click();
    await page.getByTestId('budget-setting').waitFor();
    const readConfig = async () => JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
    expect((await readConfig()).budgets).toEqual([
      { app: 'notes', period: 'day', limit_usd: 0.001, warn_at: 0.5, enforce: false },
    ]);
    await page.getByTestId('notify-failover').uncheck();
    await page.getByTestId('save-notifications').click();
    await page.getByTestId('notifications-saved').waitFor();
    expect((await readConfig()).notifications).toMatchObject({ enabled: true, failover: false, budgets: true });
    await screenshot(page, 'settings-usage');
    // The sections this issue added (the page's older tables have an empty header cell for their buttons).
    const added = ['[data-testid=budget-settings]', '[data-testid=notification-settings]'];
    expect(await axeViolations(page, added)).toEqual([]);

    // notes spent 2 × the OpenAI request's price, over half the limit; one more request crosses it.
    await page.getByTestId('nav-overview').click();
    const budget = page.getByTestId('budget-row');
    await budget.waitFor();
    expect(await budget.textContent()).toContain('notes');
    expect(await budget.textContent()).toContain('$0.0010');
    await page.waitForTimeout(500); // the notices' stream is connected
    const notes = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'app:notes', maxRetries: 0 });
    await notes.chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'hi' }] });
    await eventually(async () => expect(await budget.textContent()).toContain('exceeded'), 10_000);
    const notice = page.getByTestId('notice').first();
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('notes');
    await screenshot(page, 'overview-budget');
    await page.close();
  });
});

/**
 * How many pixels of a series' colour the chart's canvas has in its upper half: a line at zero draws at the bottom,
 * so any there means a point above zero was drawn.
 */
async function drawnAboveZero(page: Page, chart: string, [r, g, b]: readonly [number, number, number]) {
  return page
    .getByTestId(chart)
    .locator('canvas')
    .evaluate(
      (canvas: HTMLCanvasElement, rgb: number[]) => {
        const ctx = canvas.getContext('2d')!;
        const { data } = ctx.getImageData(0, 0, canvas.width, Math.floor(canvas.height / 2));
        let n = 0;
        for (let i = 0; i < data.length; i += 4)
          if (
            Math.abs(data[i]! - rgb[0]!) < 8 &&
            Math.abs(data[i + 1]! - rgb[1]!) < 8 &&
            Math.abs(data[i + 2]! - rgb[2]!) < 8 &&
            data[i + 3]! > 200
          )
            n++;
        return n;
      },
      [r, g, b],
    );
}
