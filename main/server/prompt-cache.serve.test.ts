// Prompt caching that keeps hitting (issue 32, item 10): Anthropic's 5-minute and 1-hour cache writes
// (usage.cache_creation) are carried through the request log and the usage store and priced apart; Claude Code's
// cache_control markers reach an OpenAI-type provider that reads them (OpenRouter: the quirks table) and are named in
// x-switchboard-dropped for one that does not. Requests: Claude Code's captured ones (test/fixtures/real/claude-code/,
// each naming its source); the usage shape is Anthropic's documented one (docs.anthropic.com, "Prompt caching",
// "1-hour cache duration": cache_creation.ephemeral_5m_input_tokens / ephemeral_1h_input_tokens).
import fs from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { calcPrice } from '@pydantic/genai-prices';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import type { UsageRequests, UsageSummary } from '../../shared/usage.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Json = Record<string, any>;
const fixture = (name: string): Json =>
  JSON.parse(fs.readFileSync(new URL(`../../test/fixtures/real/claude-code/${name}`, import.meta.url), 'utf8'));
const sixteenTools = fixture('request-2-sixteen-tools.json');
const toolLoop = fixture('tool-loop-sonnet.json').request as Json;

/** What Anthropic reports for a request that wrote 3,000 tokens to the cache, 2,000 of them for an hour. */
const USAGE = {
  input_tokens: 400,
  output_tokens: 50,
  cache_read_input_tokens: 10_000,
  cache_creation_input_tokens: 3_000,
  cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 2_000 },
};
const MODEL = 'claude-sonnet-4-20250514';

let anthropic: MockAnthropic;
let openrouter: MockProvider;
let plain: MockProvider;
let sb: ServeProcess;

beforeAll(async () => {
  anthropic = await startMockAnthropic({ behavior: { usage: USAGE } });
  openrouter = await startMockProvider({ name: 'openrouter' });
  plain = await startMockProvider({ name: 'plain' });
  const provider = (name: string, base_url: string, type?: string) => ({
    name,
    base_url,
    api_key: `sk-${name}-secret-key-123456`,
    enabled: true,
    ...(type ? { type } : {}),
  });
  sb = await startServe({
    config: {
      log_requests: false,
      providers: [
        provider('anthropic', anthropic.baseUrl, 'anthropic'),
        provider('openrouter', openrouter.baseUrl),
        provider('plain', plain.baseUrl),
      ],
      routing: {
        default_provider: '',
        rules: [
          { pattern: 'claude-sonnet-4-2025*', provider: 'anthropic' },
          { pattern: 'via-openrouter', provider: 'openrouter' },
          { pattern: 'via-plain', provider: 'plain' },
        ],
      },
      // Each mock stands in for a vendor (priced and matched as it; the traffic stays on loopback).
      quirks: { provider_hosts: { anthropic: 'api.anthropic.com', openrouter: 'openrouter.ai' }, entries: [] },
    },
  });
});
shutDownAfterAll(() => [sb, anthropic, openrouter, plain]);

const logs = async (n: number) =>
  ((await (await sb.admin(`/logs?limit=${n}`)).json()) as { data: RequestLogEntry[] }).data;

describe("Anthropic's 5-minute and 1-hour cache writes", () => {
  it("are carried from Claude Code's passed-through stream into the request log and the usage record", async () => {
    const claude = new Anthropic({ baseURL: sb.url, apiKey: 'app:claude-code', maxRetries: 0 });
    const stream = claude.messages.stream({ ...sixteenTools.body, model: MODEL } as never, {
      headers: sixteenTools.headers,
    });
    const message = await stream.finalMessage();
    expect(message.usage).toMatchObject({ cache_creation_input_tokens: 3_000 });
    const [entry] = await logs(1);
    expect(entry).toMatchObject({
      provider: 'anthropic',
      prompt_tokens: 13_400,
      cache_read_tokens: 10_000,
      cache_write_tokens: 3_000,
      cache_write_5m_tokens: 1_000,
      cache_write_1h_tokens: 2_000,
    });
    const records = (await (await sb.admin('/usage/requests?limit=1')).json()) as UsageRequests;
    expect(records.data[0]).toMatchObject({ cache_write_5m_tokens: 1_000, cache_write_1h_tokens: 2_000 });
  });

  it('are priced apart: the 1-hour writes at their own price (the price table: $6 a million, not $3.75)', async () => {
    const [record] = ((await (await sb.admin('/usage/requests?limit=1')).json()) as UsageRequests).data;
    const table = calcPrice(
      {
        input_tokens: 13_400,
        output_tokens: 50,
        cache_read_tokens: 10_000,
        cache_write_tokens: 3_000,
        cache_write_1h_tokens: 2_000,
      },
      MODEL,
      { providerId: 'anthropic' },
    )!.total_price;
    expect(record!.cost_usd).toBeCloseTo(table, 12);
    expect(record!.cost_usd).toBeCloseTo((400 * 3 + 10_000 * 0.3 + 1_000 * 3.75 + 2_000 * 6 + 50 * 15) / 1e6, 12);
    const summary = (await (await sb.admin('/usage?range=today')).json()) as UsageSummary;
    expect(summary.totals).toMatchObject({
      cache_write_tokens: 3_000,
      cache_write_5m_tokens: 1_000,
      cache_write_1h_tokens: 2_000,
    });
  });

  it('reach the usage of a translated reply too (an OpenAI client of the same Anthropic provider)', async () => {
    const client = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.usage?.prompt_tokens).toBe(13_400);
    const [entry] = await logs(1);
    expect(entry).toMatchObject({ cache_write_5m_tokens: 1_000, cache_write_1h_tokens: 2_000 });
  });
});

describe("Claude Code's cache_control markers toward an OpenAI-type provider", () => {
  const send = (model: string) =>
    fetch(`${sb.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'x' },
      body: JSON.stringify({ ...toolLoop, model, stream: false }),
    });
  const lastBody = (mock: MockProvider) => mock.requests.filter((r) => r.method === 'POST').at(-1)!.body as Json;

  it('are kept for one that reads them (OpenRouter): on the system prompt and the last tool result', async () => {
    const r = await send('via-openrouter');
    expect(r.status).toBe(200);
    const sent = lastBody(openrouter);
    const system = sent.messages.find((m: Json) => m.role === 'system');
    expect(system.content.map((p: Json) => p.cache_control)).toEqual([{ type: 'ephemeral' }, { type: 'ephemeral' }]);
    const lastTool = sent.messages.filter((m: Json) => m.role === 'tool').at(-1);
    expect(lastTool.content).toEqual([expect.objectContaining({ type: 'text', cache_control: { type: 'ephemeral' } })]);
    // The marker on an assistant tool_use block has nowhere to go in an OpenAI-format request: said.
    expect(r.headers.get('x-switchboard-dropped')).toBe('cache_control');
    const [entry] = await logs(1);
    expect(entry!.attempts[0]!.dropped).toEqual([
      expect.stringMatching(/^cache_control: Anthropic's prompt-cache markers on tools, tool calls/),
    ]);
  });

  it('are taken out, and named in x-switchboard-dropped, for one not known to read them', async () => {
    const r = await send('via-plain');
    expect(r.status).toBe(200);
    expect(JSON.stringify(lastBody(plain))).not.toContain('cache_control');
    // The system prompt goes as text, as before markers were kept.
    expect(typeof lastBody(plain).messages[0].content).toBe('string');
    expect(r.headers.get('x-switchboard-dropped')).toBe('cache_control');
    const [entry] = await logs(1);
    expect(entry!.attempts[0]!.dropped).toEqual(
      expect.arrayContaining([expect.stringMatching(/^cache_control: provider "plain" is not known to read/)]),
    );
  });
});
