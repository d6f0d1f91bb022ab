// Issue 16 in a real Chromium against `switchboard serve`: a tool call waiting for approval shows on the Agents page
// and is approved (with edited arguments) or denied from there; Settings' MCP servers section lists a real MCP
// server, starts it and shows its tools, and imports Cursor's mcp.json (a real one, test/fixtures/mcp/cursor.json).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createKey, type Json } from '../test/support/agent-api.ts';
import { settled } from '../test/support/agent-serve.ts';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { seriousViolations, violationsText } from './axe.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
let browser: Browser;
let mock: MockProvider;
let dir: string;
let home: string;
let sb: ServeProcess;
let key = '';
let api = '';

describeWithChromium('approvals and MCP servers in the UI', () => {
  beforeAll(async () => {
    [mock, browser] = await Promise.all([startMockProvider({ name: 'mock' }), launchBrowser()]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-approvals-'));
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-e2e-home-'));
    const cursor = JSON.parse(await fs.readFile(path.join(ROOT, 'test/fixtures/mcp/cursor.json'), 'utf8')).file;
    await fs.mkdir(path.join(home, '.cursor'));
    await fs.writeFile(path.join(home, '.cursor', 'mcp.json'), JSON.stringify(cursor));
    key = await createKey(path.join(dir, 'config.json'));
    const config = configFor(
      { mock: mock.baseUrl },
      {
        orchestrator: { sse_heartbeat_ms: 500, run_window_ms: 0 },
        mcp_servers: {
          t: {
            command: process.execPath,
            args: ['--import', 'tsx', path.join(ROOT, 'test/support/mcp-test-server.ts')],
            cwd: ROOT,
          },
        },
      },
    );
    sb = await serveWithUi({ dir, config, env: { HOME: home, USERPROFILE: home } });
    api = `${sb.url}/api/v1`;
  });
  shutDownAfterAll(() => [browser, sb, mock]);
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(home, { recursive: true, force: true });
  });

  const startRun = async (name: string, args: object) => {
    const agent = (await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model', tools: ['write_file'] })).body;
    mock.setBehavior({ script: [{ toolCall: { name: 'write_file', arguments: args } }], tokens: ['done'] });
    const run = await call(`${api}/agents/${agent.id}/run`, key, 'POST', { message: 'write it' });
    return { agent: agent as Json, task: run.body.task_id as string };
  };

  it('approves a call from the Agents page with edited arguments, and denies another with a reason', async () => {
    const page: Page = await openUi(browser, sb, 'agents');
    const { agent, task } = await startRun('scribe', { path: 'draft.txt', content: 'first draft' });
    const card = page.getByTestId('approval');
    await card.waitFor({ timeout: 10_000 });
    // The agent's name shows once the Agents list has been read again (every 2 s).
    await expect.poll(() => card.textContent(), { timeout: 5000 }).toContain('scribe asks to run write_file');
    expect(await page.getByTestId('approval-arguments').inputValue()).toContain('"content": "first draft"');
    const a11y = await seriousViolations(page, ['[data-testid="pending-approvals"]']);
    expect(a11y, violationsText(a11y)).toEqual([]);
    await screenshot(page, 'agents-approval');

    await page.getByTestId('approval-edit').click();
    await page
      .getByTestId('approval-arguments')
      .fill(JSON.stringify({ path: 'final.txt', content: 'approved in the UI' }));
    await page.getByTestId('approval-approve').click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await settled(`${api}/tasks/${task}`, key)).toMatchObject({ status: 'completed' });
    const file = path.join(dir, 'data', 'workspaces', agent.id, 'final.txt');
    expect(await fs.readFile(file, 'utf8')).toBe('approved in the UI');

    const second = await startRun('doubter', { path: 'no.txt', content: 'x' });
    await card.waitFor({ timeout: 10_000 });
    await page.getByTestId('approval-reason').fill('not today');
    await page.getByTestId('approval-deny').click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    await settled(`${api}/tasks/${second.task}`, key);
    const [approval] = (await call(`${api}/tasks/${second.task}/approvals`, key)).body.data;
    expect(approval).toMatchObject({ status: 'denied', reason: 'not today' });
    await page.close();
  });

  it('the run view says a call waits for approval, not "running…" (issue 34, bug 6), then its decision', async () => {
    const page: Page = await openUi(browser, sb, 'agents');
    await page.getByTestId('agents-list').waitFor();
    const { task } = await startRun('waiter', { path: 'wait.txt', content: 'x' });
    await page.getByTestId('approval').waitFor({ timeout: 10_000 });
    await page.evaluate((id) => (window.location.hash = `#/agents/tasks/${id}`), task);
    const card = page.getByTestId('tool-card');
    await card.waitFor();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 5000 }).toBe('waiting');
    expect(await card.getByTestId('tool-state').textContent()).toBe('waiting for your approval');
    expect(await card.textContent()).not.toContain('running…');
    expect(await card.getByTestId('tool-waiting').textContent()).toMatch(/denied without a decision at/);
    await screenshot(page, 'run-view-waiting');
    await page.getByTestId('approval-approve').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 10_000 }).toBe('done');
    expect(await card.getByTestId('tool-decision').textContent()).toBe('Approved by you.');
    await settled(`${api}/tasks/${task}`, key);
    await page.close();
  });

  it("Settings lists MCP servers, starts one to show its tools, and imports Cursor's servers", async () => {
    const page = await openUi(browser, sb, 'settings');
    const row = page.getByTestId('mcp-server-t');
    await row.waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('mcp-state-t').textContent()).toBe('stopped');
    await page.getByTestId('mcp-refresh-t').click();
    await page.getByTestId('mcp-tools-t').getByText('5 tools').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('mcp-state-t').textContent()).toBe('running');

    await page.getByTestId('mcp-import-source').selectOption('Cursor');
    await page.getByTestId('mcp-import').click();
    const result = page.getByTestId('mcp-import-result');
    await result.waitFor();
    expect(await result.textContent()).toContain('Imported eslint from cursor.');
    await page.getByTestId('mcp-server-context7').waitFor({ timeout: 10_000 });
    const saved = ((await (await sb.admin('/config')).json()) as Json).config.mcp_servers;
    expect(Object.keys(saved).sort()).toEqual(['context7', 'eslint', 't']);
    // Again: nothing is overwritten, and it says so.
    await page.getByTestId('mcp-import').click();
    await page.getByText('Skipped eslint from cursor').waitFor();

    // A project's .mcp.json, named by path (issue 33, item 2): imported disabled; Enable shows what it runs first.
    const project = path.join(home, 'repo', '.mcp.json');
    await fs.mkdir(path.dirname(project));
    await fs.writeFile(project, JSON.stringify({ mcpServers: { repo: { command: 'node', args: ['./serve.js'] } } }));
    await page.getByTestId('mcp-import-file').fill(project);
    await page.getByTestId('mcp-import-file-run').click();
    await page.getByText(/Imported repo from .*imported disabled/).waitFor();
    await page.getByTestId('mcp-server-repo').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('mcp-state-repo').textContent()).toBe('disabled');
    await page.getByTestId('mcp-enable-repo').click();
    expect(await page.getByTestId('mcp-launch-repo').textContent()).toBe('node ./serve.js');
    await page.getByTestId('mcp-enable-confirm-repo').click();
    await page.getByTestId('mcp-disable-repo').waitFor({ timeout: 10_000 });
    expect(((await (await sb.admin('/config')).json()) as Json).config.mcp_servers.repo.enabled).toBe(true);
    const a11y = await seriousViolations(page, ['[data-testid="mcp-servers"]']);
    expect(a11y, violationsText(a11y)).toEqual([]);
    await screenshot(page, 'settings-mcp');
    await page.close();
  });
});
