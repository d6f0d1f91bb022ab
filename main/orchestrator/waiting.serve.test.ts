// Waiting, deadlines and structured output (issue 16) through `switchboard serve` over real HTTP: ?wait=true on
// runs, workflow runs and swarm tasks and the wait endpoints (200 done / 202 not yet), no waits left behind; a task's
// timeout_s and a stopped task's partial output; context.response_format passed to the model (OpenAI's shape, and
// translated for an Anthropic provider) and the answer checked (one retry, then the task fails); the quirks table on
// the agent loop's own fields.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cli, createKey, openEvents, type Json } from '../../test/support/agent-api.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, eventually, startServe, type ServeProcess } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let claude: MockAnthropic;
let sb: ServeProcess;
let dir = '';
let key = '';
let api = '';

const agent = async (name: string, model = 'mock-model', tools: string[] = []) =>
  (await call(`${api}/agents`, key, 'POST', { name, model, tools })).body.id as string;
const chats = () => mock.requests.filter((r) => r.url === '/v1/chat/completions');
const slow = (n = 40, delay = 50) => ({ tokens: Array.from({ length: n }, (_, i) => `p${i} `), chunkDelayMs: delay });

beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock' });
  claude = await startMockAnthropic({ name: 'claude' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-waiting-'));
  key = await createKey(path.join(dir, 'config.json'), 'acme');
  const config = configFor(
    { mock: mock.baseUrl },
    {
      rules: [{ pattern: 'claude-*', provider: 'claude' }],
      // The mock stands for OpenAI's own API in the quirks table (o3 models: max_completion_tokens, temperature 1).
      quirks: { provider_hosts: { mock: 'api.openai.com' }, entries: [] },
      orchestrator: { workers: 4, run_window_ms: 0 },
    },
  ) as { providers: Json[] };
  config.providers.push({
    name: 'claude',
    type: 'anthropic',
    base_url: claude.baseUrl,
    api_key: 'sk-ant-x',
    enabled: true,
  });
  sb = await startServe({ dir, config });
  api = `${sb.url}/api/v1`;
}, 30_000);

afterAll(async () => {
  await sb?.stop();
  await mock?.close();
  await claude?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('waiting', () => {
  it('?wait=true answers 200 with the result, usage and stop reason, or 202 with done: false when the time is up', async () => {
    const id = await agent('waiter');
    const done = await call(`${api}/agents/${id}/run?wait=true&timeout_s=20`, key, 'POST', { message: 'hi' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      done: true,
      status: 'completed',
      result: 'Hello from mock',
      stop_reason: 'final_answer',
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      thread_id: expect.stringMatching(/^thr_/),
    });
    mock.setBehavior(slow());
    const t0 = Date.now();
    const early = await call(`${api}/agents/${id}/run?wait=true&timeout_s=0.3`, key, 'POST', { message: 'slow' });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(early.status).toBe(202);
    expect(early.body).toMatchObject({ done: false, status: 'running', result: null });
    const later = await call(`${api}/tasks/${early.body.task_id}/wait?timeout_s=20`, key);
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ done: true, status: 'completed', task_id: early.body.task_id });
    expect((await call(`${api}/tasks/${early.body.task_id}/wait?timeout_s=0`, key)).status).toBe(200); // over already
    mock.setBehavior({});

    const bad = await call(`${api}/agents/${id}/run?wait=maybe&timeout_s=301`, key, 'POST', { message: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: Json) => d.field)).toEqual(['wait', 'timeout_s']);
    const bare = await call(`${api}/agents/${id}/run?timeout_s=5`, key, 'POST', { message: 'x' });
    expect(bare.status).toBe(400);
    expect(bare.body.error.details[0].message).toContain('add wait=true');
    expect((await call(`${api}/tasks/tsk_nope/wait`, key)).status).toBe(404);
  });

  it('waits for a workflow run and a swarm task (and their wait endpoints) the same way', async () => {
    await agent('step-agent');
    await agent('lead');
    await agent('member');
    const wf = { name: 'wait-wf', steps: [{ name: 'only', agent: 'step-agent', prompt: 'Do {{input.x}}.' }] };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    const ran = await call(`${api}/workflows/wait-wf/run?wait=true&timeout_s=20`, key, 'POST', { input: { x: 1 } });
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ done: true, status: 'completed', output: 'Hello from mock' });
    mock.setBehavior(slow());
    const early = await call(`${api}/workflows/wait-wf/run?wait=true&timeout_s=0.2`, key, 'POST', { input: { x: 2 } });
    expect(early.status).toBe(202);
    expect(early.body).toMatchObject({ done: false, status: 'running' });
    const runWait = await call(`${api}/workflows/wait-wf/runs/${early.body.run_id}/wait?timeout_s=20`, key);
    expect(runWait.body).toMatchObject({ done: true, status: 'completed' });
    mock.setBehavior({});

    const swarm = { name: 'wait-swarm', coordinator: 'lead', agents: ['member'] };
    expect((await call(`${api}/swarms`, key, 'POST', swarm)).status).toBe(201);
    const st = await call(`${api}/swarms/wait-swarm/tasks?wait=true&timeout_s=20`, key, 'POST', { message: 'go' });
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({ done: true, status: 'completed', final_answer: 'Hello from mock' });
    const stWait = await call(`${api}/swarms/wait-swarm/tasks/${st.body.id}/wait`, key);
    expect(stWait.body).toMatchObject({ done: true, id: st.body.id });
    expect((await call(`${api}/swarms/wait-swarm/tasks/stk_nope/wait`, key)).status).toBe(404);
  });

  it('leaves no wait behind: 50 waits that time out and 10 clients that hang up, then /health counts none', async () => {
    const id = await agent('long');
    mock.setBehavior(slow(60, 100));
    const run = await call(`${api}/agents/${id}/run`, key, 'POST', { message: 'long' });
    for (let i = 0; i < 50; i++) {
      const r = await call(`${api}/tasks/${run.body.task_id}/wait?timeout_s=0.01`, key);
      expect(r.body.done).toBe(false);
    }
    const hangUps = Array.from({ length: 10 }, async () => {
      const ac = new AbortController();
      const req = fetch(`${api}/tasks/${run.body.task_id}/wait?timeout_s=60`, {
        headers: { 'x-api-key': key },
        signal: ac.signal,
      }).catch(() => undefined);
      await eventually(async () => expect((await call(`${api}/health`, null)).body.waits).toBeGreaterThan(0));
      ac.abort();
      await req;
    });
    await Promise.all(hangUps);
    await eventually(async () => expect((await call(`${api}/health`, null)).body.waits).toBe(0));
    expect(sb.stderr()).not.toContain('MaxListenersExceededWarning');
    await call(`${api}/tasks/${run.body.task_id}/stop`, key, 'POST');
    mock.setBehavior({});
  });

  it("ends a wait with 401 when its key is revoked meanwhile, as it ends the key's event streams", async () => {
    const doomed = await createKey(sb.configPath, 'acme');
    const keyId = /^(key_[a-f0-9]+)\tacme\t/m.exec(
      (await cli(['keys', 'list', '--config', sb.configPath])).split('\n').at(-2) ?? '',
    )?.[1];
    expect(keyId).toBeTruthy();
    const id = await agent('revoked-waiter');
    mock.setBehavior(slow(100, 100));
    const run = await call(`${api}/agents/${id}/run`, key, 'POST', { message: 'long' });
    const waiting = call(`${api}/tasks/${run.body.task_id}/wait?timeout_s=60`, doomed);
    await eventually(async () => expect((await call(`${api}/health`, null)).body.waits).toBe(1));
    const t0 = Date.now();
    await cli(['keys', 'revoke', keyId!, '--config', sb.configPath]);
    const answer = await waiting;
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toContain(`${keyId} was revoked while this request waited`);
    expect((await call(`${api}/health`, null)).body.waits).toBe(0);
    await call(`${api}/tasks/${run.body.task_id}/stop`, key, 'POST');
    mock.setBehavior({});
  });
});

describe('deadlines and partial output', () => {
  it('timeout_s stops the task with stop_reason timeout; the result is what was streamed so far', async () => {
    const id = await agent('deadline');
    const events = await openEvents(`${api}/events`, key);
    mock.setBehavior(slow(100, 50));
    const r = await call(`${api}/agents/${id}/run?wait=true&timeout_s=20`, key, 'POST', {
      message: 'too long',
      timeout_s: 0.8,
    });
    expect(r.body).toMatchObject({ done: true, status: 'stopped', stop_reason: 'timeout', timeout_s: 0.8 });
    expect(r.body.error).toMatch(/timed out after 0\.8 s/);
    expect(r.body.result).toMatch(/^p0 p1 /);
    const streamed = await events.waitFor((e) => e.some((x) => x.type === 'stopped' && x.task_id === r.body.task_id));
    events.close();
    const output = streamed.filter((e) => e.type === 'output' && e.task_id === r.body.task_id);
    expect(output.map((e) => e.content).join('')).toBe(r.body.result);
    expect(streamed.find((e) => e.type === 'stopped')?.error).toMatch(/timed out/);
    expect((await call(`${api}/agents/${id}/run`, key, 'POST', { message: 'x', timeout_s: 0 })).status).toBe(400);
    mock.setBehavior({});
  });

  it('a task stopped by request keeps its partial output as its result', async () => {
    const id = await agent('stoppable');
    mock.setBehavior(slow(100, 50));
    const run = await call(`${api}/agents/${id}/run`, key, 'POST', { message: 'go' });
    await eventually(async () => {
      const t = (await call(`${api}/tasks/${run.body.task_id}`, key)).body;
      expect(t.status).toBe('running');
    });
    await new Promise((r) => setTimeout(r, 500));
    const stopped = await call(`${api}/tasks/${run.body.task_id}/stop`, key, 'POST');
    expect(stopped.body).toMatchObject({ status: 'stopped', stop_reason: 'stopped' });
    expect(stopped.body.result).toMatch(/^p0 p1 p2 /);
    mock.setBehavior({});
  });
});

describe('structured output', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
    additionalProperties: false,
  };
  const format = { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } };

  it('passes response_format to the model and completes with an answer that fits', async () => {
    const id = await agent('json-ok');
    mock.setBehavior({ tokens: ['{"city":"Oslo",', '"celsius":-3}'] });
    const r = await call(`${api}/agents/${id}/run?wait=true`, key, 'POST', {
      message: 'Weather in Oslo?',
      context: { response_format: format, units: 'metric' },
    });
    expect(r.body).toMatchObject({ status: 'completed', result: '{"city":"Oslo","celsius":-3}' });
    const sent = chats().at(-1)!.body;
    expect(sent.response_format).toEqual(format);
    // The rest of the context still goes to the model as text; the format is not repeated there.
    expect(sent.messages.at(-1).content).toContain('"units": "metric"');
    expect(sent.messages.at(-1).content).not.toContain('json_schema');
    mock.setBehavior({});
  });

  it('asks once more with the problems when the answer does not fit, and fails the task when it still does not', async () => {
    const id = await agent('json-retry');
    mock.setBehavior({ script: [{ tokens: ['{"city":"Oslo"}'] }], tokens: ['{"city":"Oslo","celsius":2}'] });
    const from = chats().length;
    const fixed = await call(`${api}/agents/${id}/run?wait=true`, key, 'POST', {
      message: 'Weather?',
      context: { response_format: format },
    });
    expect(fixed.body).toMatchObject({ status: 'completed', result: '{"city":"Oslo","celsius":2}', iterations: 2 });
    const retry = chats().slice(from);
    expect(retry).toHaveLength(2);
    expect(retry[1]!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: '{"city":"Oslo"}' },
      { role: 'user', content: expect.stringContaining("- (the answer) must have required property 'celsius'") },
    ]);

    mock.setBehavior({ tokens: ['It is cold.'] });
    const failed = await call(`${api}/agents/${id}/run?wait=true`, key, 'POST', {
      message: 'Weather?',
      context: { response_format: format },
    });
    expect(failed.body).toMatchObject({ status: 'failed', stop_reason: 'invalid_output', result: 'It is cold.' });
    expect(failed.body.error).toMatch(/^the answer does not match context\.response_format: the answer is not JSON/);
    mock.setBehavior({});
  });

  it('refuses a response_format it cannot use, naming the field', async () => {
    const id = await agent('json-bad');
    const wrongType = await call(`${api}/agents/${id}/run`, key, 'POST', {
      message: 'x',
      context: { response_format: { type: 'xml' } },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details[0].field).toBe('context.response_format.type');
    const badSchema = await call(`${api}/agents/${id}/run`, key, 'POST', {
      message: 'x',
      context: { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 12 } } } },
    });
    expect(badSchema.status).toBe(400);
    expect(badSchema.body.error.details[0].field).toBe('context.response_format.json_schema.schema');
  });

  it('reaches an Anthropic provider as its forced answer tool, and the answer is checked the same way', async () => {
    const id = await agent('json-claude', 'claude-sonnet-4-5');
    claude.setBehavior({ forcedToolInput: { city: 'Bergen', celsius: 7 } });
    const r = await call(`${api}/agents/${id}/run?wait=true`, key, 'POST', {
      message: 'Weather in Bergen?',
      context: { response_format: format },
    });
    expect(r.body).toMatchObject({ status: 'completed' });
    expect(JSON.parse(r.body.result)).toEqual({ city: 'Bergen', celsius: 7 });
    const sent = claude.requests.filter((q) => q.url === '/v1/messages').at(-1)!.body;
    expect(sent.tool_choice).toMatchObject({ type: 'tool' });
    expect(sent.tools.at(-1)).toMatchObject({ name: sent.tool_choice.name, input_schema: schema });
    claude.setBehavior({});
  });
});

describe('the quirks table on agent calls', () => {
  it("an OpenAI reasoning model gets max_completion_tokens and no temperature from the agent's config", async () => {
    const id = await agent('thinker', 'o3-mini');
    const r = await call(`${api}/agents/${id}/run?wait=true`, key, 'POST', { message: 'think' });
    expect(r.body.status).toBe('completed');
    const sent = chats().at(-1)!.body;
    expect(sent.model).toBe('o3-mini');
    expect(sent.max_completion_tokens).toBe(1024);
    expect(sent.max_tokens).toBeUndefined();
    expect(sent.temperature).toBeUndefined();
    const plain = await agent('plain');
    await call(`${api}/agents/${plain}/run?wait=true`, key, 'POST', { message: 'hi' });
    expect(chats().at(-1)!.body).toMatchObject({ max_tokens: 1024, temperature: 0.7 });
  });
});
