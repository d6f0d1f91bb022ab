// The orchestrator's way in: chat through routing and failover from inside the process, no socket on our side.
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { RequestLog } from '../observability/request-log.ts';
import { type CutProvider, startCutProvider } from '../../test/support/cut-provider.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort } from '../../test/support/ports.ts';
import { Engine } from './engine.ts';
import { foldChunks, type HubChunk, UpstreamStreamError } from './formats/hub/index.ts';
import { chatInProcess } from './in-process.ts';

let a: MockProvider;
let b: MockProvider;
let claude: MockAnthropic;
let cut: CutProvider;
let engine: Engine;
beforeAll(async () => {
  a = await startMockProvider({ name: 'first' });
  b = await startMockProvider({ name: 'second' });
  claude = await startMockAnthropic({ name: 'claude' });
  cut = await startCutProvider();
  const r = parseConfig({
    providers: [
      { name: 'first', base_url: a.baseUrl, api_key: 'k1' },
      { name: 'second', base_url: b.baseUrl, api_key: 'k2' },
      { name: 'claude', base_url: claude.baseUrl, api_key: 'k3', type: 'anthropic' },
      { name: 'cut-openai', base_url: cut.baseUrl.openai, api_key: 'k4', type: 'openai' },
      { name: 'cut-gemini', base_url: cut.baseUrl.gemini, api_key: 'k5', type: 'gemini' },
    ],
    routing: {
      default_provider: 'second',
      rules: [
        { pattern: 'claude-*', provider: 'claude' },
        { pattern: 'openai-*', provider: 'cut-openai' },
        { pattern: 'gemini-*', provider: 'cut-gemini' },
        { pattern: '*', provider: 'first' },
      ],
    },
  });
  if (!r.ok) throw new Error('bad config');
  engine = new Engine(r.config, '/tmp/config.json', new RequestLog(10));
});
afterAll(async () => {
  await engine.close();
  await a.close();
  await b.close();
  await claude.close();
  await cut.close();
});

async function collect(model = 'm', app = 'switchboard-agent'): Promise<HubChunk[]> {
  const chunks: HubChunk[] = [];
  for await (const c of chatInProcess(engine, { model, messages: [{ role: 'user', content: 'hi' }] }, { app }))
    chunks.push(c);
  return chunks;
}

describe('chatInProcess', () => {
  it('streams hub chunks from the routed provider and logs the request as the agent app', async () => {
    const chunks = [];
    for await (const c of chatInProcess(
      engine,
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      { app: 'switchboard-agent' },
    ))
      chunks.push(c);
    expect(foldChunks(chunks).choices[0]!.message.content).toBe('Hello from first');
    expect(engine.requestLog.recent(1)[0]).toMatchObject({ app: 'switchboard-agent', provider: 'first', status: 200 });
  });

  it('fails over like an HTTP client would', async () => {
    a.setBehavior({ status: 500 });
    const chunks = [];
    for await (const c of chatInProcess(
      engine,
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      { app: 'switchboard-agent' },
    ))
      chunks.push(c);
    expect(foldChunks(chunks).choices[0]!.message.content).toBe('Hello from second');
    a.setBehavior({});
  });

  it('carries tool calls whole', async () => {
    a.setBehavior({ toolCall: { name: 'calculator', arguments: { expression: '2+2' } } });
    const chunks = [];
    for await (const c of chatInProcess(
      engine,
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      { app: 'switchboard-agent' },
    ))
      chunks.push(c);
    const msg = foldChunks(chunks).choices[0]!;
    expect(msg.finish_reason).toBe('tool_calls');
    expect(JSON.parse(msg.message.tool_calls![0]!.function.arguments)).toEqual({ expression: '2+2' });
    a.setBehavior({});
  });

  it('throws the routing error when every provider fails', async () => {
    a.setBehavior({ status: 503 });
    b.setBehavior({ status: 503 });
    const run = async () => {
      for await (const _ of chatInProcess(
        engine,
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { app: 'x' },
      ))
        void _;
    };
    await expect(run()).rejects.toMatchObject({ code: 'upstream_error' });
    a.setBehavior({});
    b.setBehavior({});
  });

  it('stops the upstream call when aborted', async () => {
    a.setBehavior({ tokens: Array.from({ length: 30 }, (_, i) => `t${i}`), chunkDelayMs: 50 });
    const ac = new AbortController();
    let seen = 0;
    const run = async () => {
      for await (const _ of chatInProcess(
        engine,
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { app: 'x', signal: ac.signal },
      )) {
        if (++seen === 3) ac.abort(new Error('stopped by the user'));
      }
    };
    await expect(run()).rejects.toThrow('stopped by the user');
    await new Promise((r) => setTimeout(r, 300));
    const sent = a.sentChunksAt.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(a.sentChunksAt.length).toBe(sent);
    expect(sent).toBeLessThan(20);
    a.setBehavior({});
  });

  it("decodes another kind's stream straight to hub chunks (an Anthropic provider, tool call and usage)", async () => {
    claude.setBehavior({
      toolCall: { name: 'calculator', arguments: { expression: '6*7' } },
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    const res = foldChunks(await collect('claude-haiku'));
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(res.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({ expression: '6*7' });
    expect(res.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    expect(claude.requests.at(-1)!.body).toMatchObject({ model: 'claude-haiku', stream: true });
    expect(engine.requestLog.recent(1)[0]).toMatchObject({
      provider: 'claude',
      status: 200,
      prompt_tokens: 12,
      completion_tokens: 5,
    });
    claude.setBehavior({});
  });

  it("raises the provider's own refusal (a 4xx, no failover) with its message", async () => {
    a.setBehavior({ status: 400 });
    const backupBefore = b.chatCount();
    const err = await collect().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'upstream_error' });
    expect((err as Error).message).toContain('Invalid request (mock).');
    expect(b.chatCount()).toBe(backupBefore); // a refusal is the provider's answer: no failover
    expect(engine.requestLog.recent(1)[0]).toMatchObject({ provider: 'first', status: 400 });
    a.setBehavior({});
  });

  it('hands over the chunks before a mid-stream failure, then raises it', async () => {
    a.setBehavior({ tokens: ['one', ' two', ' three', ' four'], failAfterChunks: 3 });
    const seen: HubChunk[] = [];
    const err = await (async () => {
      for await (const c of chatInProcess(
        engine,
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { app: 'x' },
      ))
        seen.push(c);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(foldChunks(seen).choices[0]!.message.content).toBe('one two');
    expect(engine.requestLog.recent(1)[0]).toMatchObject({
      provider: 'first',
      status: 502,
      error_code: 'upstream_error',
    });
    a.setBehavior({});
  });

  // Issue 32: an OpenAI-type or Gemini-type stream that ended cleanly inside a tool call gave the agent the call, its
  // arguments cut, with finish_reason tool_calls: the runner would have run it.
  it('raises a stream cut by a clean close inside a tool call, and hands over no finished call', async () => {
    for (const model of ['openai-tool', 'gemini-tool']) {
      const seen: HubChunk[] = [];
      const err = await (async () => {
        for await (const c of chatInProcess(
          engine,
          { model, messages: [{ role: 'user', content: 'hi' }] },
          { app: 'x' },
        ))
          seen.push(c);
      })().catch((e: unknown) => e);
      expect(err, model).toBeInstanceOf(UpstreamStreamError);
      expect(
        seen.filter((c) => c.choices.some((ch) => ch.finish_reason !== null)),
        model,
      ).toEqual([]);
    }
  });

  // Issue 16: the reader's wait for the next chunks once added a `close` listener per wait and never removed it
  // (MaxListenersExceededWarning after a dozen waits of one stream). A stream read in many waits, and many calls on
  // one task's signal, leave no listener behind and raise no warning.
  it('adds no listener per wait: 40 waits of one stream and 30 calls on one signal leave none behind', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      a.setBehavior({ tokens: Array.from({ length: 40 }, (_, i) => `t${i} `), chunkDelayMs: 2 });
      let during = -1;
      const chunks: HubChunk[] = [];
      for await (const c of chatInProcess(engine, { model: 'm', messages: [] }, { app: 'x', signal })) {
        chunks.push(c);
        during = Math.max(during, getEventListeners(signal, 'abort').length);
      }
      expect(foldChunks(chunks).choices[0]!.message.content).toMatch(/^t0 t1 .* t39 $/);
      expect(during).toBe(1); // one abort listener while the call runs
      a.setBehavior({ tokens: ['x'] });
      for (let i = 0; i < 30; i++) {
        for await (const _ of chatInProcess(engine, { model: 'm', messages: [] }, { app: 'x', signal })) void _;
      }
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      a.setBehavior({});
    }
  });
});

// Offline fallback for the agents' own calls (issue 37's routing.offline): an HTTP client's request and an agent's
// model call take the same way to the local providers when the cloud is out of reach.
describe('chatInProcess offline (routing.offline)', () => {
  let local: MockOllama;
  let cloud: MockProvider;
  let offlineEngine: Engine;
  let cloudPort = 0;
  beforeAll(async () => {
    local = await startMockOllama({ name: 'local', behavior: { tokens: ['Served', ' locally'] } });
    cloud = await startMockProvider({ name: 'cloud', behavior: { tokens: ['From', ' the', ' cloud'] } });
    cloudPort = await freePort(); // nothing listens there: the cloud's second provider refuses connections
    const r = parseConfig({
      providers: [
        { name: 'cloud', base_url: cloud.baseUrl, api_key: 'sk-cloud-0000' },
        { name: 'cloud-backup', base_url: `http://127.0.0.1:${cloudPort}/v1`, api_key: 'sk-cloud-1111' },
        { name: 'ollama', type: 'ollama', base_url: local.baseUrl, api_key: '' },
      ],
      routing: {
        default_provider: '',
        rules: [{ pattern: 'claude-*', providers: ['cloud', 'cloud-backup'] }],
        offline: {
          enabled: true,
          providers: ['ollama'],
          model_map: { 'claude-*': 'qwen3-coder:30b' },
          context_windows: { 'qwen3-coder:30b': 16384 },
        },
      },
    });
    if (!r.ok) throw new Error('bad config');
    offlineEngine = new Engine(r.config, '/tmp/config.json', new RequestLog(10));
  });
  afterAll(async () => {
    await offlineEngine.close();
    await local.close();
    await cloud.close();
  });

  const ask = async (content = 'hi') => {
    const chunks: HubChunk[] = [];
    for await (const c of chatInProcess(
      offlineEngine,
      { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content }] },
      { app: 'switchboard-agent' },
    ))
      chunks.push(c);
    return foldChunks(chunks).choices[0]!.message.content;
  };

  it('is served by the cloud while it answers, and by the local model through the map when the cloud is out of reach', async () => {
    expect(await ask()).toBe('From the cloud');
    expect(local.chatCount()).toBe(0);

    await cloud.close(); // network loss: both cloud providers refuse connections
    expect(await ask()).toBe('Served locally');
    const sent = local.requests.at(-1)!;
    expect(sent.url).toBe('/api/chat');
    expect(sent.body.model).toBe('qwen3-coder:30b');
    expect(sent.body.options.num_ctx).toBe(8192); // never Ollama's small default
    const entry = offlineEngine.requestLog.recent(1)[0]!;
    expect(entry).toMatchObject({ app: 'switchboard-agent', provider: 'ollama', route: 'offline', status: 200 });
    expect(entry.attempts.map((a) => a.provider)).toEqual(['cloud', 'cloud-backup', 'ollama']);
    expect(entry.attempts[0]!.error).toMatch(/^cannot connect/);

    // A conversation that does not fit the local model's window is refused, never truncated; nothing is sent.
    const before = local.chatCount();
    await expect(ask('x'.repeat(80_000))).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/does not fit the local model "qwen3-coder:30b".*context window of 16,384 tokens/),
    });
    expect(local.chatCount()).toBe(before);

    // The local providers failing too: the cloud's error, saying that the fallback failed as well.
    local.setBehavior({ status: 500 });
    await expect(ask()).rejects.toMatchObject({
      message: expect.stringMatching(/Offline fallback \(routing\.offline, model "qwen3-coder:30b"\) failed too/),
    });
    local.setBehavior({ tokens: ['Served', ' locally'] });
  });
});
