// The UI in a real Chromium against `switchboard serve`: a two-step workflow made in the Agents page runs and shows
// both steps' outputs; a bad workflow shows the server's 422 in words; Settings blocks a listen_port that is taken.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import type { MockProvider } from '../test/support/mock-provider.ts';
import { freePort, type HeldPort, holdPort } from '../test/support/ports.ts';
import { eventually, type ServeProcess } from '../test/support/serve-process.ts';
import { createAgentInUi, describeWithChromium, launchBrowser, openUi, screenshot, serveAgentsUi } from './harness.ts';

let browser: Browser;
let mock: MockProvider;
let sb: ServeProcess;
let holder: HeldPort;
let heldPort: number;

describeWithChromium('workflows and settings in the UI', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    holder = await holdPort();
    heldPort = holder.port;
    ({ mock, sb } = await serveAgentsUi({
      script: [{ tokens: ['Bees', ' dance to share where food is.'] }, { tokens: ['Post:', ' honey bees dance.'] }],
      tokens: ['unexpected'],
    }));
  });
  shutDownAfterAll(() => [browser, sb, mock, holder]);

  it('creates a two-step workflow, runs it and shows both steps completed with their outputs', async () => {
    const page = await openUi(browser, sb, 'agents');
    await createAgentInUi(page, 'writer');
    await page.getByTestId('agents-nav-workflows').click(); // the Agents area's Workflows sub-page

    // A step without its agent and a prompt naming a later step: the server's 422 workflow_invalid, in the form's
    // words (issue 34: never the API's field names).
    await page.getByTestId('workflow-name').fill('blog');
    await page.getByTestId('add-step').click();
    const rows = page.getByTestId('step-row');
    await rows.nth(0).getByTestId('step-name').fill('research');
    await rows.nth(0).getByTestId('step-prompt').fill('Facts about {{input.topic}} from {{steps.draft.output}}');
    await rows.nth(1).getByTestId('step-name').fill('draft');
    // Agents are picked from the agents, by name.
    expect(await rows.nth(1).getByTestId('step-agent').locator('option').allTextContents()).toEqual([
      'agent…',
      'writer',
    ]);
    await rows.nth(1).getByTestId('step-agent').selectOption('writer');
    await rows.nth(1).getByTestId('step-prompt').fill('Write a post from:\n{{steps.research.output}}');
    await rows.nth(1).getByTestId('step-policy').selectOption({ label: 'try it again' });
    await rows.nth(1).getByTestId('step-retries').fill('1');
    await page.getByTestId('workflow-create').click();
    const error = page.getByTestId('workflow-form').getByTestId('form-error');
    await error.waitFor();
    const text = (await error.textContent()) ?? '';
    expect(text).toMatch(/Step 1 \(research\): its agent/);
    expect(text).toMatch(/Step 1 \(research\): its prompt .*names a later step/);
    expect(text).not.toMatch(/steps\.\d|error_policy|max_retries/);
    expect(mock.chatCount()).toBe(0);

    // Fixed: the workflow is created and the form is cleared.
    await rows.nth(0).getByTestId('step-agent').selectOption('writer');
    await rows.nth(0).getByTestId('step-prompt').fill('List facts about {{input.topic}}.');
    await page.getByTestId('workflow-create').click();
    const card = page.getByTestId('workflow-blog');
    await card.waitFor();
    expect(await page.getByTestId('workflow-form').getByTestId('form-error').count()).toBe(0);

    // A bad input is refused in words before anything is sent; then a real run.
    await card.getByTestId('workflow-input').fill('{topic: bees}');
    await card.getByTestId('workflow-run').click();
    await card.getByTestId('action-error').filter({ hasText: 'not valid JSON' }).waitFor();
    await card.getByTestId('workflow-input').fill('{"topic": "honey bees"}');
    await card.getByTestId('workflow-run').click();
    await card
      .locator('[data-testid=run][data-status=completed]')
      .waitFor({ timeout: 15_000 })
      .catch(async (err: Error) => {
        await screenshot(page, 'workflows-failure');
        throw new Error(`${err.message}\npage: ${await card.textContent()}`);
      });
    const steps = card.getByTestId('run-step');
    expect(await steps.count()).toBe(2);
    expect(await steps.nth(0).getAttribute('data-status')).toBe('completed');
    expect(await steps.nth(1).getAttribute('data-status')).toBe('completed');
    expect(await steps.nth(0).getByTestId('run-step-output').textContent()).toBe('Bees dance to share where food is.');
    expect(await steps.nth(1).getByTestId('run-step-output').textContent()).toBe('Post: honey bees dance.');
    // The second step's prompt was filled from the first step's output and reached the provider.
    expect(JSON.stringify(mock.requests.filter((r) => r.method === 'POST').at(-1)?.body)).toContain(
      'Bees dance to share where food is.',
    );
    expect(mock.chatCount()).toBe(2);
    await screenshot(page, 'workflows');
    await page.close();
  });

  it('a swarm is made from pickers: the coordinator and members chosen from the agents, labels in words', async () => {
    const page = await openUi(browser, sb, 'agents');
    await createAgentInUi(page, 'critic');
    await page.getByTestId('agents-nav-swarms').click();
    const form = page.getByTestId('swarm-form');
    await form.waitFor();
    expect(await form.textContent()).not.toMatch(/max_rounds|consensus_required|comma-separated/);
    await page.getByTestId('swarm-name').fill('review');
    await page.getByTestId('swarm-coordinator').selectOption('writer');
    // The coordinator is not offered as its own member.
    expect(await page.getByTestId('swarm-member-writer').count()).toBe(0);
    await page.getByTestId('swarm-member-critic').check();
    await page.getByTestId('swarm-rounds').fill('2');
    await page.getByTestId('swarm-consensus').check();
    await page.getByTestId('swarm-create').click();
    const card = page.getByTestId('swarm-review');
    await card.waitFor();
    expect(await card.textContent()).toContain(
      'coordinator writer; members critic; 2 rounds at most, consensus required',
    );
    await page.close();
  });

  it('Settings: a listen_port that is taken is named with its fix and cannot be saved; a free one can', async () => {
    const before = await fs.readFile(sb.configPath, 'utf8');
    const page = await openUi(browser, sb, 'settings');
    await page.getByTestId('page-settings').waitFor();
    await eventually(async () => expect(await page.getByTestId('listen-port').inputValue()).toBe('11434'));
    await page.getByTestId('listen-port').fill(String(heldPort));
    const taken = page.getByTestId('port-taken');
    await taken.waitFor({ timeout: 10_000 });
    expect(await taken.textContent()).toMatch(new RegExp(`^Port ${heldPort} is in use by .*"listen_port": \\d+`));
    expect(await page.getByTestId('save-settings').isDisabled()).toBe(true);
    await screenshot(page, 'settings-port-taken');
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);

    // A free port clears the message and saves.
    const free = await freePort();
    await page.getByTestId('listen-port').fill(String(free));
    await eventually(async () => expect(await page.getByTestId('save-settings').isEnabled()).toBe(true));
    expect(await taken.count()).toBe(0);
    await page.close();
  });
});
