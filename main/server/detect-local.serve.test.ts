// The presets' detection of local services against the real `serve` (issue 34): an Ollama where OLLAMA_HOST puts it
// is found with its version and models and offered at the port it is on (never Switchboard's own port); once it is a
// provider, the answer names that provider.
import { beforeAll, describe, expect, it } from 'vitest';
import type { DetectResult } from '../../shared/presets.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { MOCK_OLLAMA_VERSION, type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { ollamaHostPort } from './detect-local.ts';

let ollama: MockOllama;
let sb: ServeProcess;

beforeAll(async () => {
  ollama = await startMockOllama({ behavior: { models: ['llama3.2:latest', 'qwen2.5-coder:7b'] } });
  const port = new URL(ollama.baseUrl).port;
  sb = await startServe({ config: configFor({}), env: { OLLAMA_HOST: `127.0.0.1:${port}` } });
}, 30_000);
shutDownAfterAll(() => [sb, ollama]);

const detect = async () => (await (await sb.admin('/providers/detect')).json()) as DetectResult;

describe('GET /admin/v1/providers/detect', () => {
  it('finds the Ollama OLLAMA_HOST names, with its models, at the port it is on', async () => {
    const port = Number(new URL(ollama.baseUrl).port);
    const r = await detect();
    expect(r.looked).toContain(`127.0.0.1:${port} (Ollama)`);
    expect(r.looked.some((l) => l.startsWith(`127.0.0.1:${sb.port} `))).toBe(false); // never our own port
    const found = r.data.find((d) => d.base_url === `http://127.0.0.1:${port}`);
    expect(found).toEqual({
      preset: 'ollama',
      base_url: `http://127.0.0.1:${port}`,
      label: `Ollama ${MOCK_OLLAMA_VERSION}`,
      models: ['llama3.2:latest', 'qwen2.5-coder:7b'],
      provider: null,
    });
  });

  it('names the provider already at that address', async () => {
    const port = Number(new URL(ollama.baseUrl).port);
    const config = configFor({});
    (config.providers as unknown[]).push({ name: 'my-ollama', type: 'ollama', base_url: `http://127.0.0.1:${port}` });
    await sb.writeConfig(config);
    await eventually(async () =>
      expect((await detect()).data.find((d) => d.base_url.endsWith(`:${port}`))?.provider).toBe('my-ollama'),
    );
  });
});

describe('OLLAMA_HOST', () => {
  it('gives its port in the forms Ollama takes', () => {
    expect(ollamaHostPort('127.0.0.1:11435')).toBe(11435);
    expect(ollamaHostPort('0.0.0.0:11500')).toBe(11500);
    expect(ollamaHostPort('http://localhost:11436/')).toBe(11436);
    expect(ollamaHostPort('0.0.0.0')).toBeNull();
    expect(ollamaHostPort(undefined)).toBeNull();
  });
});
