// The secret guard through the compiled `serve`, with a real Claude Code request whose tool result holds an AWS access
// key id and an RSA private key (test/fixtures/real/claude-code/secret-in-tool-result.json) and the official
// @anthropic-ai/sdk reading the answers: `redact` sends placeholders to the cloud mock and the client gets the
// originals back, in text and in a tool call, streamed and whole; `block` answers 400 secret_detected naming what was
// found, never the value; a local provider gets the request untouched; `warn` sends it as it is and logs it.
import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../test/fixtures/real/claude-code/secret-in-tool-result.json', import.meta.url), 'utf8'),
) as { headers: Record<string, string>; body: Record<string, unknown> };
const AWS = 'AKIAZ3MXQ7RT4LNV2WKY';
const PEM_LINE = 'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu';
const PLACEHOLDER = /\[REDACTED_[A-Z0-9_]+?_[0-9a-f]{8}\]/g;

let cloud: MockAnthropic;
let local: MockAnthropic;
let sb: ServeProcess;

function config(guard: unknown, model = 'claude-opus-4-8'): Record<string, unknown> {
  return configFor(
    { cloud: cloud.baseUrl, local: local.baseUrl },
    {
      rules: [
        { pattern: 'claude-*', provider: 'cloud' },
        { pattern: 'local-*', provider: 'local' },
        { pattern: 'chain-*', providers: ['cloud', 'local'] } as unknown as { pattern: string; provider: string },
        { pattern: 'cont-*', providers: ['cloud', 'local'], continue_on_cut: true } as unknown as {
          pattern: string;
          provider: string;
        },
      ],
      providers: [
        { name: 'cloud', type: 'anthropic', base_url: cloud.baseUrl, api_key: 'sk-ant-cloud-key-0001', enabled: true },
        { name: 'local', type: 'anthropic', base_url: local.baseUrl, api_key: 'sk-ant-local-key-0001', enabled: true },
      ],
      // The cloud mock runs on loopback: quirks.provider_hosts says it stands for Anthropic's API, so it is a cloud
      // provider for the guard (as for prices).
      quirks: { provider_hosts: { cloud: 'api.anthropic.com' } },
      secret_guard: guard,
      model,
    },
  );
}

async function useConfig(guard: unknown): Promise<void> {
  const c = config(guard);
  delete c.model;
  const res = await sb.admin('/config', { method: 'PUT', body: JSON.stringify(c) });
  expect(res.status).toBe(200);
}

/** The newest request log entries. */
async function logs(n: number): Promise<{ guard?: { action: string; found: { rule: string }[] } }[]> {
  return ((await (await sb.admin(`/logs?limit=${n}`)).json()) as { data: [] }).data;
}

/** Claude Code's request, sent as it sent it (its headers), to `model`. */
function send(model: string, stream: boolean): Promise<Response> {
  return fetch(`${sb.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { ...fixture.headers, 'x-api-key': 'client-key', 'content-type': 'application/json' },
    body: JSON.stringify({ ...fixture.body, model, stream }),
  });
}

const client = () => new Anthropic({ baseURL: sb.url, apiKey: 'client-key', maxRetries: 0, timeout: 30_000 });
const lastBody = (m: MockAnthropic): string => JSON.stringify(m.requests.at(-1)!.body);

beforeAll(async () => {
  cloud = await startMockAnthropic({ name: 'cloud' });
  local = await startMockAnthropic({ name: 'local' });
  const c = config({ default: 'redact' });
  delete c.model;
  sb = await startServe({ config: c });
});
afterAll(async () => {
  await sb?.stop();
  await cloud?.close();
  await local?.close();
});

describe('secret guard (serve, a real Claude Code request)', () => {
  it('redact: the cloud gets placeholders; the answer comes back with the originals, streamed and whole', async () => {
    await useConfig({ default: 'redact' });
    const first = await send('claude-opus-4-8', false);
    expect(first.status).toBe(200);
    const sent = lastBody(cloud);
    expect(sent).not.toContain(AWS);
    expect(sent).not.toContain(PEM_LINE);
    const phs = [...new Set(sent.match(PLACEHOLDER))];
    expect(phs.some((p) => p.startsWith('[REDACTED_AWS_ACCESS_KEY_ID_'))).toBe(true);
    const pemPh = phs.find((p) => p.startsWith('[REDACTED_PRIVATE_KEY_'))!;
    const awsPh = phs.find((p) => p.startsWith('[REDACTED_AWS_ACCESS_KEY_ID_'))!;
    expect(pemPh).toBeTruthy();
    // The rest of Claude Code's request is as it sent it (its cache markers, its tools).
    expect(cloud.requests.at(-1)!.body.tools.length).toBe((fixture.body.tools as unknown[]).length);

    // The model answers with the placeholders: in its text (over several deltas) and in a tool call's input.
    cloud.setBehavior({
      tokens: ['The key is ', awsPh.slice(0, 7), awsPh.slice(7, 19), awsPh.slice(19), ', the PEM: ', pemPh],
      toolCalls: undefined,
    });
    const streamed = await client()
      .messages.stream({ ...(fixture.body as object), model: 'claude-opus-4-8', stream: true } as never)
      .finalMessage();
    const text = streamed.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toContain(`The key is ${AWS}`);
    expect(text).toContain(PEM_LINE);
    expect(text).not.toMatch(PLACEHOLDER);
    // The second request redacted the same secrets to the same placeholders (the conversation stays cacheable).
    expect([...new Set(lastBody(cloud).match(PLACEHOLDER))].sort()).toEqual(phs.sort());

    cloud.setBehavior({ toolCall: { name: 'Bash', arguments: { command: `aws sts get-caller-identity # ${awsPh}` } } });
    const whole = await client().messages.create({
      ...(fixture.body as object),
      model: 'claude-opus-4-8',
      stream: false,
    } as never);
    const call = (whole as Anthropic.Message).content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect((call.input as { command: string }).command).toBe(`aws sts get-caller-identity # ${AWS}`);

    const streamedCall = await client()
      .messages.stream({ ...(fixture.body as object), model: 'claude-opus-4-8', stream: true } as never)
      .finalMessage();
    const sCall = streamedCall.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect((sCall.input as { command: string }).command).toBe(`aws sts get-caller-identity # ${AWS}`);
    cloud.setBehavior({});

    // The log says what was found and done, never the value.
    const entries = await logs(5);
    const guard = entries.at(-1)!.guard!;
    expect(guard.action).toBe('redacted');
    expect(guard.found.map((f) => f.rule).sort()).toEqual(['aws-access-key-id', 'private-key']);
    expect(JSON.stringify(entries)).not.toContain(AWS);
  });

  it('redact on a route that continues cut streams (continue_on_cut): the streamed answer is restored too', async () => {
    await useConfig({ default: 'redact' });
    const first = await send('cont-model', false);
    expect(first.status).toBe(200);
    const awsPh = [...new Set(lastBody(cloud).match(PLACEHOLDER))].find((p) =>
      p.startsWith('[REDACTED_AWS_ACCESS_KEY_ID_'),
    )!;
    expect(awsPh).toBeTruthy();
    cloud.setBehavior({ tokens: ['The key is ', awsPh.slice(0, 9), awsPh.slice(9), '.'], toolCalls: undefined });
    const streamed = await client()
      .messages.stream({ ...(fixture.body as object), model: 'cont-model', stream: true } as never)
      .finalMessage();
    const text = streamed.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toBe(`The key is ${AWS}.`);
    cloud.setBehavior({});
  });

  it("block: 400 secret_detected in Anthropic's error shape, naming what was found, never the value", async () => {
    await useConfig({ default: 'block' });
    const before = cloud.chatCount();
    const res = await send('claude-opus-4-8', true);
    expect(res.status).toBe(400);
    const text = await res.text();
    const body = JSON.parse(text) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('AWS access key id');
    expect(body.error.message).toContain('private key (PEM)');
    expect(body.error.message).toContain('"block"');
    expect(text).not.toContain(AWS);
    expect(text).not.toContain(PEM_LINE);
    expect(cloud.chatCount()).toBe(before);
    // The official SDK reads it as a 400 BadRequestError with the message.
    await expect(
      client().messages.create({ ...(fixture.body as object), model: 'claude-opus-4-8' } as never),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('a local provider gets the request untouched, whatever the default', async () => {
    await useConfig({ default: 'block' });
    const res = await send('local-model', false);
    expect(res.status).toBe(200);
    expect(lastBody(local)).toContain(AWS);
    expect(lastBody(local)).toContain(PEM_LINE);
  });

  it('block with a failover chain: the cloud provider is skipped, the local backup takes the request', async () => {
    await useConfig({ default: 'block' });
    const before = cloud.chatCount();
    const res = await send('chain-model', false);
    expect(res.status).toBe(200);
    expect(cloud.chatCount()).toBe(before);
    expect(lastBody(local)).toContain(AWS);
    const [entry] = await logs(1);
    expect((entry as { provider?: string }).provider).toBe('local');
  });

  it('warn: sent as it is, the log says what was found, a notice names the kinds (never the value)', async () => {
    await useConfig({ default: 'warn' });
    // GET /admin/v1/events: the notifications as they come.
    const ac = new AbortController();
    const events = await sb.admin('/events', { signal: ac.signal });
    let seen = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of events.body as unknown as AsyncIterable<Uint8Array>)
        seen += decoder.decode(chunk, { stream: true });
    })().catch(() => {});
    await eventually(() => expect(seen).toContain('retry:'));
    const res = await send('claude-opus-4-8', false);
    expect(res.status).toBe(200);
    expect(lastBody(cloud)).toContain(AWS);
    await eventually(() => expect(sb.stdout() + sb.stderr()).toMatch(/secret guard: .*AWS access key id.*sent/));
    expect((await logs(1)).at(-1)!.guard!.action).toBe('warned');
    await eventually(() => expect(seen).toMatch(/"kind":"secret_found"/));
    const notice = /^data: (.*"secret_found".*)$/m.exec(seen)![1]!;
    expect(notice).toContain('AWS access key id');
    expect(notice).toContain('private key (PEM)');
    expect(notice).not.toContain(AWS);
    ac.abort();
    await reading;
  });

  it('off for a provider: nothing scanned, nothing logged', async () => {
    await useConfig({ default: 'block', providers: { cloud: 'off' } });
    const res = await send('claude-opus-4-8', false);
    expect(res.status).toBe(200);
    expect(lastBody(cloud)).toContain(AWS);
    expect((await logs(1)).at(-1)!.guard).toBeUndefined();
  });
});
