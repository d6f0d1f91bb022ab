// Usage that matches the log, prices and budgets in the UI, and the nav's marks (issue 34), in a real Chromium against
// `switchboard serve`: a provider's failed attempts (a failover, and a request it alone failed) count as its errors in
// "Per provider", as many as the log lists; a price set from a provider's card writes prices[] and prices the next
// requests; a budget shows what is spent, what is left and when it starts again; the Overview's nav entry is marked
// once a budget is exceeded, the Agents entry while a tool call waits for approval.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createKey } from '../test/support/agent-api.ts';
import { settled } from '../test/support/agent-serve.ts';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { seriousViolations, violationsText } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let broken: MockProvider;
let sb: ServeProcess;
let dir: string;

const ask = (model: string) =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-switchboard-app': 'usage-test' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (r) => (await r.text(), r.status));

describeWithChromium('usage that matches the log, prices, budgets, the nav marks', () => {
  beforeAll(async () => {
    [alpha, broken, browser] = await Promise.all([
      startMockProvider({ name: 'alpha', behavior: { usage: { prompt_tokens: 10, completion_tokens: 0 } } }),
      startMockProvider({ name: 'broken', behavior: { status: 500 } }),
      launchBrowser(),
    ]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-usage-'));
    const config = configFor(
      { alpha: alpha.baseUrl, broken: broken.baseUrl },
      {
        rules: [
          { pattern: 'failover-*', providers: ['broken', 'alpha'] } as never,
          { pattern: 'only-broken', provider: 'broken' },
        ],
        default_provider: '',
        circuit_breaker: { failure_threshold: 1000, cooldown_ms: 1000 },
        budgets: [{ period: 'day', limit_usd: 1, warn_at: 0.5 }],
        orchestrator: { sse_heartbeat_ms: 500, run_window_ms: 0 },
      },
    );
    sb = await serveWithUi({ dir, config });
  });
  shutDownAfterAll(() => [browser, sb, alpha, broken]);
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("a failing provider's attempts are its errors in Per provider, as many as the log lists", async () => {
    expect(await ask('failover-model')).toBe(200); // broken fails, alpha answers
    expect(await ask('only-broken')).toBeGreaterThanOrEqual(500); // broken alone, fails
    const logs = (await (await sb.admin('/logs')).json()) as {
      data: { attempts: { provider: string; status: number | null }[] }[];
    };
    const failedInLog = logs.data.flatMap((e) => e.attempts).filter((a) => a.provider === 'broken').length;
    expect(failedInLog).toBe(2);
    const page = await openUi(browser, sb, 'overview');
    const row = page.getByTestId('by-provider-broken');
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['broken', '0', String(failedInLog)]);
    expect((await page.getByTestId('by-provider-alpha').locator('td').allTextContents()).slice(0, 3)).toEqual([
      'alpha',
      '1',
      '0',
    ]);
    await screenshot(page, 'overview-per-provider-failures');
    await page.close();
  });

  it("a price set from a provider's card writes prices[], prices the next requests, and the budget shows spent, left, reset", async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.getByTestId('provider-set-price-alpha').click();
    await page.getByTestId('price-form').waitFor();
    expect(await page.getByTestId('price-provider').inputValue()).toBe('alpha');
    await page.getByTestId('price-input').fill('30000'); // 10 prompt tokens → $0.30 a request
    await page.getByTestId('price-output').fill('0');
    await page.getByTestId('price-save').click();
    await page.getByTestId('price-form').waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('provider-price-alpha').textContent())
      .toBe('$30,000.00 in, $0.00 out per million tokens (your price)');
    expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8')).prices).toEqual([
      { provider: 'alpha', input: 30000, output: 0 },
    ]);
    // $0.30 + $0.30: $0.60 of the $1 budget.
    expect(await ask('failover-a')).toBe(200);
    expect(await ask('failover-b')).toBe(200);
    await page.getByTestId('nav-overview').click();
    const budget = page.getByTestId('budget-row');
    await budget.waitFor();
    await expect.poll(() => page.getByTestId('budget-spent').textContent()).toBe('$0.60');
    expect(await page.getByTestId('budget-left').textContent()).toBe('$0.40');
    expect(await page.getByTestId('budget-reset').textContent()).toMatch(/^at midnight \(in (\d+ h )?\d+ min\)$/);
    expect(await page.getByTestId('badge-budget').count()).toBe(0);
    // Two more: $1.20 spent, the limit crossed: the Overview's nav entry is marked, on every page.
    expect(await ask('failover-c')).toBe(200);
    expect(await ask('failover-d')).toBe(200);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('badge-budget').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('nav-overview').textContent()).toContain('a budget is exceeded');
    await page.getByTestId('nav-overview').click();
    await expect.poll(() => page.getByTestId('budget-left').textContent()).toBe('$0.00');
    const found = await seriousViolations(page);
    expect(found, violationsText(found)).toEqual([]);
    await screenshot(page, 'overview-budget-exceeded');
    // Settings lists the price, with Edit and Remove.
    await page.getByTestId('nav-settings').click();
    expect(await page.getByTestId('price-row').first().textContent()).toContain('alpha');
    await page.close();
  });

  it('the Agents entry shows how many tool calls wait for approval, and goes when they are decided', async () => {
    const key = await createKey(sb.configPath);
    const api = `${sb.url}/api/v1`;
    const page = await openUi(browser, sb, 'overview');
    await page.getByTestId('page-overview').waitFor();
    expect(await page.getByTestId('badge-approvals').count()).toBe(0);
    const agent = (
      await call(`${api}/agents`, key, 'POST', { name: 'scribe', model: 'failover-agent', tools: ['write_file'] })
    ).body;
    alpha.setBehavior({
      script: [{ toolCall: { name: 'write_file', arguments: { path: 'a.txt', content: 'x' } } }],
      tokens: ['done'],
    });
    const run = await call(`${api}/agents/${agent.id}/run`, key, 'POST', { message: 'write it' });
    const badge = page.getByTestId('badge-approvals');
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.textContent()).toBe('1 waiting for your approval');
    const [approval] = (await call(`${api}/tasks/${run.body.task_id}/approvals`, key)).body.data;
    await call(`${api}/tasks/${run.body.task_id}/approvals/${approval.call_id}`, key, 'POST', { decision: 'approve' });
    await badge.waitFor({ state: 'detached', timeout: 15_000 });
    await settled(`${api}/tasks/${run.body.task_id}`, key);
    await page.close();
  });
});
