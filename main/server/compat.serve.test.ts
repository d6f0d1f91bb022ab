// Looking like each vendor's server, through `switchboard serve` with the official clients: Ollama metadata,
// model lists in the caller's shape, token counting, embeddings, and errors in each client's own format.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let sb: ServeProcess;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'upstream', behavior: { models: ['llama3.2', 'gpt-4o-mini'] } });
  sb = await startServe({
    config: configFor(
      { upstream: mock.baseUrl },
      {
        default_provider: '',
        rules: [
          { pattern: 'llama*', provider: 'upstream' },
          { pattern: 'gpt-*', provider: 'upstream' },
        ],
      },
    ),
  });
});
shutDownAfterAll(() => [sb, mock]);
beforeEach(() => mock.setBehavior({ models: ['llama3.2', 'gpt-4o-mini'] }));

const ollama = () => new Ollama({ host: sb.url });

describe('Ollama server look-alike', () => {
  it('answers GET / and a numeric /api/version', async () => {
    expect(await (await fetch(`${sb.url}/`)).text()).toBe('Ollama is running');
    const { version } = await ollama().version();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('lists the routable models in /api/tags, shows one, and has nothing loaded in /api/ps', async () => {
    const { models } = await ollama().list();
    expect(models.map((m) => m.name).sort()).toEqual(['gpt-4o-mini', 'llama3.2']);
    const shown = await ollama().show({ model: 'llama3.2' });
    expect(shown.capabilities).toEqual(expect.arrayContaining(['completion', 'tools']));
    expect(Object.entries(shown.model_info).some(([k, v]) => k.endsWith('.context_length') && Number(v) > 0)).toBe(
      true,
    );
    expect((await ollama().ps()).models).toEqual([]);
  });

  it('answers the "load the model" call (no messages) without calling a provider', async () => {
    const before = mock.chatCount();
    const r = await fetch(`${sb.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [] }),
    });
    expect(await r.json()).toMatchObject({ model: 'llama3.2', done: true, done_reason: 'load' });
    expect(mock.chatCount()).toBe(before);
  });

  it('generates with /api/generate, streamed and not', async () => {
    const whole = await ollama().generate({ model: 'llama3.2', prompt: 'Hi', stream: false });
    expect(whole.response).toContain('upstream');
    expect(whole.done).toBe(true);
    let text = '';
    for await (const part of await ollama().generate({ model: 'llama3.2', prompt: 'Hi', stream: true }))
      text += part.response;
    expect(text).toContain('upstream');
  });

  it('shows a routing error as text in the Ollama client (never [object Object])', async () => {
    const err = await ollama()
      .chat({ model: 'nothing-routes-this', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('nothing-routes-this');
    expect((err as Error).message).not.toContain('[object Object]');
  });

  it('embeds with /api/embed and /api/embeddings through an OpenAI-format provider', async () => {
    const r = await ollama().embed({ model: 'llama3.2', input: ['ab', 'xyz'] });
    expect(r.embeddings).toEqual([
      [2, 97, 1],
      [3, 120, 1],
    ]);
    const legacy = await ollama().embeddings({ model: 'llama3.2', prompt: 'hello' });
    expect(legacy.embedding).toEqual([5, 104, 1]);
  });
});

describe('embeddings in OpenAI format', () => {
  it('passes /v1/embeddings through and answers /v1/engines/{model}/embeddings', async () => {
    const client = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
    const r = await client.embeddings.create({ model: 'gpt-4o-mini', input: 'hey', encoding_format: 'float' });
    expect(r.data[0]!.embedding).toEqual([3, 104, 1]);
    const engines = await fetch(`${sb.baseUrl}/engines/gpt-4o-mini/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hey' }),
    });
    expect(((await engines.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding).toEqual([3, 104, 1]);
  });
});

describe("model lists in the caller's shape", () => {
  it('OpenAI by default, Anthropic with anthropic-version, Gemini with a Google key', async () => {
    const plain = (await (await fetch(`${sb.baseUrl}/models`)).json()) as { object: string; data: { id: string }[] };
    expect(plain.object).toBe('list');
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of anthropic.models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(['gpt-4o-mini', 'llama3.2']);
    const gemini = (await (await fetch(`${sb.baseUrl}/models?key=x`)).json()) as { models: { name: string }[] };
    expect(gemini.models.map((m) => m.name).sort()).toEqual(['models/gpt-4o-mini', 'models/llama3.2']);
    const beta = (await (await fetch(`${sb.url}/v1beta/models`, { headers: { 'x-goog-api-key': 'x' } })).json()) as {
      models: { name: string }[];
    };
    expect(beta.models).toHaveLength(2);
  });
});

describe('token counting', () => {
  it('Anthropic count_tokens and Gemini countTokens give an estimate without calling a provider', async () => {
    const before = mock.chatCount();
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
    const counted = await anthropic.messages.countTokens({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Hello there, how are you today?' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } });
    const g = await ai.models.countTokens({ model: 'llama3.2', contents: 'Hello there, how are you today?' });
    expect(g.totalTokens).toBeGreaterThan(0);
    expect(mock.chatCount()).toBe(before);
  });
});

describe("errors in each client's own format", () => {
  it('Anthropic: an HTTP error the SDK reads', async () => {
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
    const err = await anthropic.messages
      .create({ model: 'nothing-routes-this', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as Error).message).toContain('nothing-routes-this');
  });

  it('Gemini: an HTTP error the SDK reads', async () => {
    const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } });
    const err = await ai.models
      .generateContent({ model: 'nothing-routes-this', contents: 'hi' })
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain('nothing-routes-this');
  });

  it('mid-stream failures reach every client as an error, not a silent end', async () => {
    mock.setBehavior({ tokens: ['a', 'b', 'c', 'd', 'e', 'f'], failAfterChunks: 3 });
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
    await expect(
      anthropic.messages
        .stream({ model: 'llama3.2', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage(),
    ).rejects.toThrow(/mid-stream/);

    const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } });
    await expect(
      (async () => {
        for await (const _ of await ai.models.generateContentStream({ model: 'llama3.2', contents: 'hi' })) void _;
      })(),
    ).rejects.toThrow(/mid-stream/);

    await expect(
      (async () => {
        for await (const _ of await ollama().chat({
          model: 'llama3.2',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
        }))
          void _;
      })(),
    ).rejects.toThrow(/mid-stream/);

    const openai = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
    await expect(
      (async () => {
        for await (const _ of await openai.responses.create({ model: 'llama3.2', input: 'hi', stream: true })) void _;
      })(),
    ).rejects.toThrow(/mid-stream/);
  });
});
