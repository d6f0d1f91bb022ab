// The UI in a real Chromium: run an agent that streams and calls tools and watch its run view assemble the answer
// with tool cards; every Agents sub-page checked with axe-core and shot at 1280×800 and 800×600; pause routing; test
// a provider; the Apps and Settings pages (screenshots of each).
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import type { MockProvider } from '../test/support/mock-provider.ts';
import { eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { expectEveryLook } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveAgentsUi } from './harness.ts';

const DEFAULT_BEHAVIOR = { tokens: ['The answer', ' is 42.'] };
let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;

describeWithChromium('agents, apps and settings in the UI', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, sb } = await serveAgentsUi(DEFAULT_BEHAVIOR));
  });
  shutDownAfterAll(() => [browser, sb, mock]);

  it('runs an agent that streams and calls tools: the run view assembles the answer and shows each tool as a card', async () => {
    // First reply: two tool calls (calculator is enabled, read_file is not); second: the answer in three tokens.
    mock.setBehavior({
      script: [
        {
          toolCalls: [
            { name: 'calculator', arguments: { expression: '6*7' } },
            { name: 'read_file', arguments: { path: 'notes.txt' } },
          ],
        },
        { tokens: ['The answer', ' is', ' 42.'], chunkDelayMs: 400 },
      ],
      ...DEFAULT_BEHAVIOR,
    });
    const page = await openUi(browser, sb, 'agents');
    await page.getByTestId('page-agents').waitFor();
    // The model picker offers the server's own models (GET /v1/models: the mock lists mock-model).
    await eventually(async () =>
      expect(
        await page
          .getByTestId('agent-model-options')
          .locator('option')
          .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)),
      ).toContain('mock-model'),
    );
    expect(await page.locator('#agent-model-hint').textContent()).toMatch(/^1 model from Switchboard's own list/);
    await page.getByTestId('agent-name').fill('helper');
    await page.getByTestId('agent-model').fill('mock-model');
    await page.getByTestId('agent-tool-calculator').check();
    await page.getByTestId('agent-create').click();
    const row = page.getByTestId('agent-row').filter({ hasText: 'helper' });
    await row.waitFor();
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(
      expect.arrayContaining(['Name', 'Model', 'Tools', 'Status', 'Last run']),
    );
    await page.waitForTimeout(300); // the event stream is connected
    await row.getByTestId('agent-message').fill('What is 6 times 7?');
    await row.getByTestId('agent-run').click();

    // Run opens the run view of the task it started.
    const view = page.getByTestId('run-view');
    await view.waitFor();
    expect(page.url()).toMatch(/#\/agents\/tasks\/tsk_[a-f0-9]{24}$/);
    // The answer grows as its deltas arrive (seen part-way at least once), in one block, not one line per token.
    const seen = new Set<string>();
    const done = view.and(page.locator('[data-status=completed]'));
    const deadline = Date.now() + 15_000;
    while (!(await done.count()) && Date.now() < deadline) {
      const texts = await view.getByTestId('run-text').allTextContents();
      if (texts.length) seen.add(texts.at(-1)!);
      await page.waitForTimeout(100);
    }
    if (!(await done.count())) {
      await screenshot(page, 'agents-run-failure');
      throw new Error(`the run did not complete:\n${await view.textContent()}`);
    }
    expect([...seen].some((t) => t.length > 0 && t !== 'The answer is 42.')).toBe(true);
    expect(await view.getByTestId('run-text').allTextContents()).toEqual(['The answer is 42.']);
    // One card per tool call: name, arguments, then the result or the error.
    const cards = view.getByTestId('tool-card');
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(0).getByTestId('tool-name').textContent()).toBe('calculator');
    expect(JSON.parse((await cards.nth(0).getByTestId('tool-input').textContent())!)).toEqual({ expression: '6*7' });
    expect(await cards.nth(0).getByTestId('tool-output').textContent()).toBe('42');
    expect(await cards.nth(1).getAttribute('data-state')).toBe('error');
    expect(await cards.nth(1).getByTestId('tool-name').textContent()).toBe('read_file');
    expect(await cards.nth(1).getByTestId('tool-error').textContent()).toBe(
      'tool "read_file" is not enabled for this agent',
    );
    // Labelled by agent, with the task's facts in local time.
    await eventually(async () => {
      const facts = (await view.locator('.run-facts').textContent()) ?? '';
      expect(facts).toContain('Agenthelper');
      expect(facts).toMatch(/Model calls2Tokens20 in, \d+ out/); // the task record, read once the run is over
      expect(facts).not.toContain('Finished—');
    });
    expect(mock.chatCount()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'agents-run');

    // The Tasks sub-page: a table with headers; the activity feed labels each line by agent and task, and the
    // streamed answer is one line.
    await page.getByTestId('agents-nav-tasks').click();
    const task = page.getByTestId('task-row').filter({ hasText: 'helper' });
    await task.filter({ hasText: 'completed' }).waitFor({ timeout: 5000 });
    expect(await task.textContent()).toContain('The answer is 42.');
    const outputs = page.getByTestId('agent-event').and(page.locator('[data-type=output]'));
    await outputs.first().waitFor();
    expect(await outputs.count()).toBe(1);
    expect(await outputs.first().textContent()).toMatch(/helper.*tsk_.*The answer is 42\./);
    expect(await page.getByTestId('agent-event').and(page.locator('[data-type=tool_call]')).count()).toBe(2);
    await page.close();
  });

  it('every Agents sub-page (a run view too): its own hash route, no serious or critical axe violation in light and dark, at two sizes', async () => {
    const page = await openUi(browser, sb, 'agents');
    await page.getByTestId('agent-row').first().waitFor();
    const runLink = page.getByTestId('agents-nav-tasks');
    await runLink.click();
    await page.getByTestId('task-row').first().waitFor();
    const taskId = (await page.getByTestId('task-row').first().locator('a').first().getAttribute('title'))!;
    const subpages: [string, string, string][] = [
      ['agents', 'agents', 'agents-list'],
      ['agents/tasks', 'tasks', 'tasks-list'],
      [`agents/tasks/${taskId}`, 'run', 'run-view'],
      ['agents/workflows', 'workflows', 'workflows'],
      ['agents/swarms', 'swarms', 'swarms'],
      ['agents/wal', 'wal', 'wal-page'],
    ];
    for (const [hash, name, testId] of subpages) {
      await page.goto(`${new URL(page.url()).origin}/ui/#/${hash}`);
      await page.getByTestId(testId).waitFor();
      expect(await page.getByTestId('nav-agents').getAttribute('class')).toContain('active');
      const current = page.locator('nav.subnav [aria-current=page]');
      expect(await current.count()).toBe(1);
      await page.waitForTimeout(300); // the lists are read
      await expectEveryLook(page, `agents-${name}`);
    }
    // The WAL sub-page says its status in words and compacts.
    await page.getByTestId('wal-compact').click();
    await page.getByTestId('wal-page').getByText('Last compaction').waitFor();
    await eventually(async () => expect(await page.getByTestId('wal-status').textContent()).toContain('total_entries'));
    await page.close();
  });

  it('pauses routing from the window; a real request then gets 503 routing_paused', async () => {
    const page = await openUi(browser, sb, 'providers');
    page.once('dialog', (d) => void d.accept()); // Pause asks first
    await page.getByTestId('pause-routing').click();
    await eventually(async () => expect(await page.getByTestId('pause-routing').textContent()).toBe('Resume routing'));
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('routing_paused');
    await page.getByTestId('pause-routing').click();
    await eventually(async () => expect(await page.getByTestId('pause-routing').textContent()).toBe('Pause routing'));
    // Test connection marks the provider ok with a latency.
    await page.getByRole('button', { name: 'Test mock' }).click();
    await eventually(async () =>
      expect(await page.getByTestId('provider-mock').textContent()).toMatch(/ok in \d+ ms, 1 models?/),
    );
    expect(await page.getByTestId('provider-state-mock').textContent()).toBe('ok');
    await page.close();
  });

  it('lists apps seen in traffic and adds an app rule in one click; settings page renders', async () => {
    await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-app': 'my-editor' },
      body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const page = await openUi(browser, sb, 'apps');
    const seen = page.getByTestId('seen-app').filter({ hasText: 'my-editor' });
    await seen.waitFor({ timeout: 5000 });
    await seen.getByText('Add rule').click();
    expect(await page.getByTestId('app-rule-app').inputValue()).toBe('my-editor');
    // "(rules decide)" until a provider is picked, and the pick has the focus (issue 34, bug 5: it pre-filled the
    // first provider, even a disabled one).
    expect(await page.getByTestId('app-rule-provider').inputValue()).toBe('');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('app-rule-provider');
    await page.getByTestId('app-rule-provider').selectOption('mock');
    await page.getByText('Add app rule').click();
    await page.getByTestId('save-apps').click(); // rules are saved together
    await eventually(async () => {
      const cfg = JSON.parse(await (await import('node:fs/promises')).readFile(sb.configPath, 'utf8'));
      expect(cfg.app_rules).toEqual([{ app: 'my-editor', default_provider: 'mock' }]);
    });
    await screenshot(page, 'apps');
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('page-settings').waitFor();
    await page.getByTestId('agent-key').first().waitFor({ timeout: 5000 }); // the UI's own agent key from the first test
    await screenshot(page, 'settings');
    await page.close();
  });
});
