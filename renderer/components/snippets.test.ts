// The Connect page's snippets: each format's base URL, path and key placeholder as its clients expect them. (The e2e
// test runs the curl and TypeScript snippets shown on the page against a real `serve`.)
import { describe, expect, it } from 'vitest';
import { snippetsFor } from './snippets.ts';

const urls = {
  openai: 'http://127.0.0.1:11434/v1',
  anthropic: 'http://127.0.0.1:11434',
  gemini: 'http://127.0.0.1:11434/v1beta',
  ollama: 'http://127.0.0.1:11434',
};

describe('Connect snippets', () => {
  it('OpenAI: /v1/chat/completions, the SDKs given the /v1 base URL and a key naming the app', () => {
    const s = snippetsFor('openai', urls, 'notes');
    expect(s.curl).toContain('curl http://127.0.0.1:11434/v1/chat/completions');
    expect(s.curl).toContain("-H 'Authorization: Bearer app:notes'");
    expect(s.python).toContain('OpenAI(base_url="http://127.0.0.1:11434/v1", api_key="app:notes")');
    expect(s.typescript).toContain('new OpenAI({ baseURL: "http://127.0.0.1:11434/v1", apiKey: "app:notes" })');
  });

  it('Anthropic: the root for the SDKs (they add /v1/messages), /v1/messages for curl with a version header', () => {
    const s = snippetsFor('anthropic', urls);
    expect(s.curl).toContain('curl http://127.0.0.1:11434/v1/messages');
    expect(s.curl).toContain("-H 'anthropic-version: 2023-06-01'");
    expect(s.curl).toContain("-H 'x-api-key: app:my-app'");
    expect(s.python).toContain('Anthropic(base_url="http://127.0.0.1:11434", api_key="app:my-app")');
    expect(s.typescript).toContain('new Anthropic({ baseURL: "http://127.0.0.1:11434", apiKey: "app:my-app" })');
  });

  it('Gemini: /v1beta for curl; the Gen AI SDKs get the root (they add /v1beta themselves); the app by header', () => {
    const s = snippetsFor('gemini', urls);
    expect(s.curl).toContain('curl http://127.0.0.1:11434/v1beta/models/gemini-2.5-flash:generateContent');
    expect(s.curl).toContain("-H 'x-goog-api-key: app:my-app' -H 'X-Switchboard-App: my-app'");
    expect(s.python).toContain(
      'http_options={"base_url": "http://127.0.0.1:11434", "headers": {"X-Switchboard-App": "my-app"}}',
    );
    expect(s.typescript).toContain(
      'httpOptions: { baseUrl: "http://127.0.0.1:11434", headers: { \'X-Switchboard-App\': "my-app" } }',
    );
    expect(s.typescript).not.toContain('v1beta');
  });

  it('Ollama: the root and /api/chat; the app named by header (Ollama clients send no key)', () => {
    const s = snippetsFor('ollama', urls, 'notes');
    expect(s.curl).toContain('curl http://127.0.0.1:11434/api/chat');
    expect(s.curl).toContain("-H 'X-Switchboard-App: notes'");
    expect(s.python).toContain('Client(host="http://127.0.0.1:11434", headers={"X-Switchboard-App": "notes"})');
    expect(s.typescript).toContain(
      'new Ollama({ host: "http://127.0.0.1:11434", headers: { \'X-Switchboard-App\': "notes" } })',
    );
  });

  it('the JSON bodies of the curl snippets are valid JSON', () => {
    for (const f of ['openai', 'anthropic', 'gemini', 'ollama'] as const) {
      const body = /-d '(.*)'$/m.exec(snippetsFor(f, urls).curl)?.[1];
      expect(() => JSON.parse(body!), f).not.toThrow();
    }
  });
});
