// Logs that last (issue 34, bugs 3 and 4) in a real Chromium: after `serve` restarts, the Logs page shows the last
// requests of requests.jsonl; live, a slow request that started first is shown below the requests that started after
// it (newest first by start time), never on top because it finished last.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess | undefined;
let dir: string;

const chat = (model: string) =>
  fetch(`${sb!.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-switchboard-app': 'logs-test' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.text());

describeWithChromium('Logs after a restart and under traffic', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'mock' }), launchBrowser()]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-logs-'));
    sb = await serveWithUi({ dir, config: configFor({ mock: mock.baseUrl }, { log_requests: true }) });
  });
  shutDownAfterAll(() => [browser, sb, mock]);
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('after a restart, the Logs page shows the last requests of requests.jsonl', async () => {
    for (let i = 0; i < 3; i++) await chat(`before-restart-${i}`);
    await eventually(async () =>
      expect((await fs.readFile(path.join(dir, 'requests.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3),
    );
    await sb!.stop();
    sb = await serveWithUi({ dir, config: configFor({ mock: mock.baseUrl }, { log_requests: true }) });
    const page = await openUi(browser, sb, 'logs');
    await page.getByTestId('log-row').first().waitFor();
    const models = await page.getByTestId('log-row').evaluateAll((rows) => rows.map((r) => r.children[2]!.textContent));
    expect(models.map((m) => m?.replace(/^model /, '').replace(/, $/, ''))).toEqual([
      'before-restart-2',
      'before-restart-1',
      'before-restart-0',
    ]);
    await screenshot(page, 'logs-after-restart');
    await page.close();
  });

  it('live: a slow request that started first is placed by its start, below the ones that started after it', async () => {
    const page = await openUi(browser, sb!, 'logs');
    await page.getByTestId('log-row').first().waitFor();
    mock.setBehavior({ script: [{ firstByteDelayMs: 800 }] });
    const slow = chat('slow-first');
    await new Promise((r) => setTimeout(r, 150));
    await chat('fast-second');
    await slow;
    const row = (m: string) => page.getByTestId('log-row').filter({ hasText: m });
    await row('slow-first').waitFor();
    await row('fast-second').waitFor();
    const order = await page
      .getByTestId('log-row')
      .evaluateAll((rows) => rows.map((r) => r.children[2]!.textContent?.replace(/^model /, '').replace(/, $/, '')));
    expect(order.indexOf('fast-second')).toBeLessThan(order.indexOf('slow-first'));
    expect(order.indexOf('slow-first')).toBeLessThan(order.indexOf('before-restart-2'));
    await page.close();
  });
});
