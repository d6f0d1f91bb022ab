// Workflows through `switchboard serve` over real HTTP, with a scripted mock provider: templating, validation,
// error policies (retry with backoff, continue, fail), events by workflow_id, and the 15 s window.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, openEvents, type Json } from '../../test/support/agent-api.ts';
import { settled, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';

// A high breaker threshold: the policy tests fail the provider on purpose and must not open its circuit.
const world = useAgentServe('sb-workflows-', ['acme', 'globex'], {
  orchestrator: { workers: 2 },
  circuit_breaker: { failure_threshold: 1000, cooldown_ms: 1000 },
});
let mock: MockProvider;
let key = '';
let other = '';
let api = '';

const agent = async (name: string) =>
  (await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' })).body.id as string;
const finished = (name: string, runId: string): Promise<Json> => settled(`${api}/workflows/${name}/runs/${runId}`, key);
/** The user message of every chat the mock saw since `from`. */
const prompts = (from: number) =>
  mock.requests
    .filter((r) => r.url === '/v1/chat/completions')
    .slice(from)
    .map((r) => r.body.messages.at(-1).content as string);

beforeAll(async () => {
  ({ mock } = world());
  [key, other] = world().keys;
  ({ api } = await world().serve());
  await Promise.all(['writer', 'editor'].map(agent));
}, 30_000);

describe('workflows', () => {
  it('runs three steps in order with templates; one agent twice; events carry workflow_id and run_id', async () => {
    const created = await call(`${api}/workflows`, key, 'POST', {
      name: 'article',
      description: 'outline, draft, polish',
      steps: [
        { name: 'outline', agent: 'writer', prompt: 'Outline an article about {{input.topic}}.' },
        { name: 'draft', agent: 'editor', prompt: 'Write a draft from this outline: {{ steps.outline.output }}' },
        {
          name: 'polish',
          agent: 'writer',
          prompt: 'Polish for {{input.audience}}: {{steps.draft.output}}',
          error_policy: 'retry',
          max_retries: 1,
        },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'article',
      steps: [{ error_policy: 'fail', max_retries: 2 }, {}, { error_policy: 'retry', max_retries: 1 }],
    });
    expect(created.body.id).toMatch(/^wf_[a-f0-9]{24}$/);
    expect((await call(`${api}/workflows`, key)).body.data.map((w: Json) => w.name)).toContain('article');
    expect((await call(`${api}/workflows/article`, key)).body.id).toBe(created.body.id);
    expect((await call(`${api}/workflows/article`, other)).body.error.code).toBe('workflow_not_found');
    expect(
      (
        await call(`${api}/workflows`, key, 'POST', {
          name: 'article',
          steps: [{ name: 'a', agent: 'writer', prompt: 'x' }],
        })
      ).body.error.code,
    ).toBe('workflow_exists');

    const byName = await openEvents(`${api}/events?workflow_id=article`, key);
    const unrelatedWf = { name: 'unrelated', steps: [{ name: 'a', agent: 'writer', prompt: 'x' }] };
    expect((await call(`${api}/workflows`, key, 'POST', unrelatedWf)).status).toBe(201);
    const unrelated = await openEvents(`${api}/events?workflow_id=unrelated`, key);
    mock.setBehavior({ script: [{ tokens: ['OUTLINE-1'] }, { tokens: ['DRAFT', '-1'] }, { tokens: ['FINAL-1'] }] });
    const from = mock.chatCount();
    const run = await call(`${api}/workflows/article/run`, key, 'POST', { input: { topic: 'cats', audience: 'kids' } });
    expect(run.status).toBe(202);
    expect(run.body.run_id).toMatch(/^run_[a-f0-9]{24}$/);
    const done = await finished('article', run.body.run_id);
    expect(done).toMatchObject({
      status: 'completed',
      output: 'FINAL-1',
      error: null,
      workflow: 'article',
      input: { topic: 'cats', audience: 'kids' },
    });
    expect(done.steps.map((s: Json) => [s.name, s.status, s.output, s.attempts])).toEqual([
      ['outline', 'completed', 'OUTLINE-1', 1],
      ['draft', 'completed', 'DRAFT-1', 1],
      ['polish', 'completed', 'FINAL-1', 1],
    ]);
    expect(prompts(from)).toEqual([
      'Outline an article about cats.',
      'Write a draft from this outline: OUTLINE-1',
      'Polish for kids: DRAFT-1',
    ]);
    expect(done.steps[2].prompt).toBe('Polish for kids: DRAFT-1');
    for (const s of done.steps) {
      expect(Date.parse(s.finished_at)).toBeGreaterThanOrEqual(Date.parse(s.started_at));
      expect(s.usage.total_tokens).toBeGreaterThan(0);
    }
    expect(done.usage.total_tokens).toBe(done.steps.reduce((n: number, s: Json) => n + s.usage.total_tokens, 0));
    // Every step is a task of its agent, tagged with the run.
    const task = (await call(`${api}/tasks/${done.steps[2].task_ids[0]}`, key)).body;
    expect(task).toMatchObject({
      status: 'completed',
      result: 'FINAL-1',
      origin: { kind: 'workflow', run_id: run.body.run_id, step: 'polish' },
    });

    const events = await byName.waitFor((e) => e.filter((x) => x.type === 'completed').length === 3);
    expect(events.every((e) => e.workflow_id === created.body.id && e.run_id === run.body.run_id)).toBe(true);
    expect(events.filter((e) => e.type === 'completed').map((e) => e.task_id)).toEqual(
      done.steps.map((s: Json) => s.task_ids[0]),
    );
    const byId = await openEvents(`${api}/events?workflow_id=${created.body.id}`, key, 0);
    await byId.waitFor((e) => e.length === events.length);
    expect(unrelated.events).toEqual([]);
    for (const s of [byName, unrelated, byId]) s.close();

    // A workflow's own runs leave the agent's 15 s window to clients' runs untouched; the run's GET is per workflow.
    expect((await call(`${api}/workflows/article/runs`, key)).body.data.map((r: Json) => r.run_id)).toEqual([
      run.body.run_id,
    ]);
    expect((await call(`${api}/workflows/article/runs/run_nope`, key)).body.error.code).toBe('run_not_found');
    mock.setBehavior({});
    const again = await call(`${api}/workflows/article/run`, key, 'POST', {
      input: { topic: 'dogs', audience: 'adults' },
    });
    expect((await finished('article', again.body.run_id)).status).toBe('completed');
  });

  it('answers 400 naming each missing input key, and 404 for an unknown workflow', async () => {
    const r = await call(`${api}/workflows/article/run`, key, 'POST', { input: { topic: 'cats' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toContain('"audience"');
    expect(r.body.error.details).toEqual([
      { field: 'input.audience', message: expect.stringContaining('step "polish"') },
    ]);
    expect((await call(`${api}/workflows/nope/run`, key, 'POST', { input: {} })).body.error.code).toBe(
      'workflow_not_found',
    );
  });

  it('answers 422 workflow_invalid listing every problem at once', async () => {
    const r = await call(`${api}/workflows`, key, 'POST', {
      name: 'broken',
      steps: [
        {
          name: 'a',
          agent: 'ghost',
          prompt: 'uses {{steps.b.output}} and {{steps.nope.output}} and {{steps.a.output}}',
        },
        { name: 'b', agent: 'writer', prompt: '{{input.x}} {{weird}}', error_policy: 'pray' },
        { name: 'a', agent: 'writer', prompt: 'dup', error_policy: 'retry', max_retries: 11 },
        { name: 'c', agent: 'editor', prompt: 'ok', max_retries: -1 },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('workflow_invalid');
    const got = r.body.error.details.map((d: Json) => `${d.field}: ${d.message}`);
    const expected = [
      /^steps\.0\.agent: "ghost" names no agent/,
      /^steps\.0\.prompt: \{\{steps\.b\.output\}\} names a later step \(steps\.1\)/,
      /^steps\.0\.prompt: \{\{steps\.nope\.output\}\} names no step/,
      /^steps\.0\.prompt: \{\{steps\.a\.output\}\} names this step itself/,
      /^steps\.1\.error_policy: "pray" is not an error policy; use one of fail, continue, retry/,
      /^steps\.1\.prompt: \{\{weird\}\} is not a template/,
      /^steps\.2\.name: "a" is also the name of steps\.0/,
      /^steps\.2\.max_retries: must be a whole number from 0 to 10/,
      /^steps\.3\.max_retries: must be a whole number from 0 to 10/,
    ];
    expect(got).toHaveLength(expected.length);
    for (const re of expected) expect(got.some((g: string) => re.test(g))).toBe(true);

    const empty = await call(`${api}/workflows`, key, 'POST', { name: 'empty', steps: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details).toEqual([{ field: 'steps', message: 'must list at least one step' }]);
    const types = await call(`${api}/workflows`, key, 'POST', {
      name: 'types',
      steps: [{ name: 'a', agent: 'writer' }],
    });
    expect(types.status).toBe(422);
    expect(types.body.error.details.map((d: Json) => d.field)).toEqual(['steps.0.prompt']);
    expect((await call(`${api}/workflows`, key, 'POST', '{not json')).status).toBe(400);
    expect((await call(`${api}/workflows`, key)).body.data.map((w: Json) => w.name)).not.toContain('broken');
  });

  it('retry: a provider that fails twice then succeeds; the step records both errors and three attempts', async () => {
    expect(
      (
        await call(`${api}/workflows`, key, 'POST', {
          name: 'flaky',
          steps: [{ name: 'only', agent: 'editor', prompt: 'try', error_policy: 'retry', max_retries: 2 }],
        })
      ).status,
    ).toBe(201);
    mock.setBehavior({ status: 500, failTimes: 2, tokens: ['third time lucky'] });
    const from = mock.chatCount();
    const run = await call(`${api}/workflows/flaky/run`, key, 'POST'); // no body: input {}
    const done = await finished('flaky', run.body.run_id);
    expect(done).toMatchObject({ status: 'completed', output: 'third time lucky' });
    expect(done.steps[0]).toMatchObject({ status: 'completed', attempts: 3 });
    expect(done.steps[0].task_ids).toHaveLength(3);
    expect(done.steps[0].errors).toHaveLength(2);
    expect(done.steps[0].errors[0]).toMatch(/attempt 1 \(tsk_[a-f0-9]+\) failed: /);
    expect(mock.chatCount() - from).toBe(3);
    // Backoff between attempts: at least half of 250 ms, then half of 500 ms.
    const starts = mock.requests
      .filter((r) => r.url === '/v1/chat/completions')
      .slice(-3)
      .map((r) => r.receivedAt);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(120);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(245);

    // Retries spent: the run fails after 1 + max_retries attempts.
    mock.setBehavior({ status: 500 });
    const from2 = mock.chatCount();
    const run2 = await call(`${api}/workflows/flaky/run`, key, 'POST', {});
    const failed = await finished('flaky', run2.body.run_id);
    expect(failed).toMatchObject({ status: 'failed', output: null });
    expect(failed.error).toMatch(/^step "only" failed: attempt 3/);
    expect(failed.steps[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(mock.chatCount() - from2).toBe(3);
    mock.setBehavior({});
  });

  it('continue goes on past a failed step (its output is empty); fail stops the run and skips the rest', async () => {
    const steps = (policy: string) => [
      { name: 'shaky', agent: 'writer', prompt: 'first', error_policy: policy },
      { name: 'after', agent: 'editor', prompt: 'second sees [{{steps.shaky.output}}]' },
    ];
    await call(`${api}/workflows`, key, 'POST', { name: 'lenient', steps: steps('continue') });
    await call(`${api}/workflows`, key, 'POST', { name: 'strict', steps: steps('fail') });

    mock.setBehavior({ script: [{ status: 500 }, { tokens: ['AFTER-OK'] }] });
    let from = mock.chatCount();
    const lenient = await finished(
      'lenient',
      (await call(`${api}/workflows/lenient/run`, key, 'POST', {})).body.run_id,
    );
    expect(lenient).toMatchObject({ status: 'completed', output: 'AFTER-OK' });
    expect(lenient.steps.map((s: Json) => [s.status, s.attempts])).toEqual([
      ['failed', 1],
      ['completed', 1],
    ]);
    expect(lenient.steps[0].errors).toHaveLength(1);
    expect(prompts(from)).toEqual(['first', 'second sees []']);

    mock.setBehavior({ script: [{ status: 500 }] });
    from = mock.chatCount();
    const strict = await finished('strict', (await call(`${api}/workflows/strict/run`, key, 'POST', {})).body.run_id);
    expect(strict).toMatchObject({ status: 'failed' });
    expect(strict.error).toMatch(/^step "shaky" failed/);
    expect(strict.steps.map((s: Json) => [s.status, s.attempts])).toEqual([
      ['failed', 1],
      ['skipped', 0],
    ]);
    expect(mock.chatCount() - from).toBe(1);
    mock.setBehavior({});
  });
});
