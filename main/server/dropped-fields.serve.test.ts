// Fields a client sends that have no equivalent at the provider are never dropped silently: when the request is
// translated, the reply's x-switchboard-dropped header names them and the request log says why, for each client
// format (the client side's own drops, noted by its format, with the provider side's).
import { GoogleGenAI } from '@google/genai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let sb: ServeProcess;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'chat' });
  sb = await startServe({ config: configFor({ chat: mock.baseUrl }, { rules: [], default_provider: 'chat' }) });
});
shutDownAfterAll(() => [sb, mock]);

async function lastEntry(path: string): Promise<RequestLogEntry> {
  const log = (await (await sb.admin('/logs?limit=20')).json()) as { data: RequestLogEntry[] };
  return log.data.find((e) => e.path === path)!;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sb.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('dropped client fields, named in x-switchboard-dropped and the request log', () => {
  it('Anthropic: cache_control markers and service_tier', async () => {
    const res = await post(
      '/v1/messages',
      {
        model: 'claude-sonnet-4',
        max_tokens: 64,
        service_tier: 'auto',
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(res.status).toBe(200);
    // The markers reach the hub (system and text blocks) and are taken out for this provider, which is not known to
    // read them (hub/cache-control.ts); service_tier is the client side's own drop.
    expect(res.headers.get('x-switchboard-dropped')?.split(',')).toEqual(['service_tier', 'cache_control']);
    const entry = await lastEntry('/v1/messages');
    expect(entry.attempts[0]?.dropped).toEqual([
      expect.stringMatching(/^service_tier: /),
      expect.stringMatching(/^cache_control: provider "chat" is not known to read prompt-cache markers/),
    ]);
  });

  it('Gemini (the official client): safetySettings', async () => {
    const genai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } });
    const reply = await genai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hi',
      config: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] as never },
    });
    expect(reply.text).toBe('Hello from chat');
    const entry = await lastEntry('/v1beta/models/{model}:generateContent');
    expect(entry.attempts[0]?.dropped).toEqual([expect.stringMatching(/^safetySettings: /)]);
  });

  // Issue 32: Gemini CLI sends its model turns back with their thought parts and thoughtSignature; the signature was
  // dropped unsaid. (The thought text is carried to an OpenAI-compatible provider as reasoning_content.)
  it("Gemini: a model turn's thoughtSignature", async () => {
    const res = await post('/v1beta/models/gemini-2.5-pro:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'List the files in src.' }] },
        {
          role: 'model',
          parts: [
            { text: '**Listing the folder**', thought: true },
            { functionCall: { name: 'list_directory', args: { path: 'src' } }, thoughtSignature: 'CiQB0e2Kb0x' },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'list_directory', response: { output: 'a.ts' } } }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchboard-dropped')?.split(',')).toEqual(['contents[].parts[].thoughtSignature']);
    const sent = mock.requests.at(-1)!.body;
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: '**Listing the folder**' });
  });

  it('Ollama: keep_alive and options.num_ctx', async () => {
    const res = await post('/api/chat', {
      model: 'llama3.2',
      stream: false,
      keep_alive: '5m',
      options: { num_ctx: 8192, temperature: 0.2 },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchboard-dropped')?.split(',')).toEqual(['keep_alive', 'options.num_ctx']);
    expect(mock.requests.at(-1)!.body).toMatchObject({ temperature: 0.2 });
  });
});
