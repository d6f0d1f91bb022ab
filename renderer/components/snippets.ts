// The Connect page's ready snippets: for each wire format, its base URL and a first request with curl and with the
// official SDK in Python and TypeScript. The key is a placeholder that names the app (`app:<name>`: Switchboard
// takes it as the app's name and never forwards it; see docs/routing.md, "Who is calling"). Gemini's key header
// (x-goog-api-key) and Ollama's clients (no key) do not carry it, so theirs name the app with X-Switchboard-App.
import type { BaseUrls } from '../../shared/connect.ts';

export type SnippetFormat = keyof BaseUrls;
export type Snippets = { curl: string; python: string; typescript: string };

export const FORMAT_LABELS: Record<SnippetFormat, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  ollama: 'Ollama',
};

/** What the base URL is, per format (the path each SDK or tool expects). */
export const FORMAT_HINTS: Record<SnippetFormat, string> = {
  openai: 'OpenAI-compatible clients: the base URL ends in /v1.',
  anthropic: 'Anthropic clients (Claude Code, the Anthropic SDKs): the root; they add /v1/messages.',
  gemini: 'Gemini REST: /v1beta. The Google Gen AI SDKs take the root and add /v1beta themselves.',
  ollama: 'Ollama clients: the root, as for a local Ollama (/api/chat, /api/generate).',
};

/** The example model per format (any name works: the routes decide which provider serves it). */
export const EXAMPLE_MODEL: Record<SnippetFormat, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
  ollama: 'llama3.2',
};

const stripSuffix = (url: string, suffix: string) => (url.endsWith(suffix) ? url.slice(0, -suffix.length) : url);
const q = (s: string) => JSON.stringify(s);

export function snippetsFor(format: SnippetFormat, urls: BaseUrls, app = 'my-app'): Snippets {
  const base = urls[format];
  const key = `app:${app}`;
  const model = EXAMPLE_MODEL[format];
  const hello = 'Say hello';
  switch (format) {
    case 'openai':
      return {
        curl: [
          `curl ${base}/chat/completions \\`,
          `  -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' \\`,
          `  -d '{"model": ${q(model)}, "messages": [{"role": "user", "content": ${q(hello)}}]}'`,
        ].join('\n'),
        python: [
          'from openai import OpenAI',
          '',
          `client = OpenAI(base_url=${q(base)}, api_key=${q(key)})`,
          `reply = client.chat.completions.create(model=${q(model)}, messages=[{"role": "user", "content": ${q(hello)}}])`,
          'print(reply.choices[0].message.content)',
        ].join('\n'),
        typescript: [
          "import OpenAI from 'openai';",
          '',
          `const client = new OpenAI({ baseURL: ${q(base)}, apiKey: ${q(key)} });`,
          'const reply = await client.chat.completions.create({',
          `  model: ${q(model)},`,
          `  messages: [{ role: 'user', content: ${q(hello)} }],`,
          '});',
          'console.log(reply.choices[0].message.content);',
        ].join('\n'),
      };
    case 'anthropic':
      return {
        curl: [
          `curl ${base}/v1/messages \\`,
          `  -H 'x-api-key: ${key}' -H 'anthropic-version: 2023-06-01' -H 'Content-Type: application/json' \\`,
          `  -d '{"model": ${q(model)}, "max_tokens": 256, "messages": [{"role": "user", "content": ${q(hello)}}]}'`,
        ].join('\n'),
        python: [
          'from anthropic import Anthropic',
          '',
          `client = Anthropic(base_url=${q(base)}, api_key=${q(key)})`,
          `reply = client.messages.create(model=${q(model)}, max_tokens=256, messages=[{"role": "user", "content": ${q(hello)}}])`,
          'print(reply.content[0].text)',
        ].join('\n'),
        typescript: [
          "import Anthropic from '@anthropic-ai/sdk';",
          '',
          `const client = new Anthropic({ baseURL: ${q(base)}, apiKey: ${q(key)} });`,
          'const reply = await client.messages.create({',
          `  model: ${q(model)},`,
          '  max_tokens: 256,',
          `  messages: [{ role: 'user', content: ${q(hello)} }],`,
          '});',
          "console.log(reply.content[0].type === 'text' ? reply.content[0].text : reply.content[0]);",
        ].join('\n'),
      };
    case 'gemini': {
      const root = stripSuffix(base, '/v1beta');
      return {
        curl: [
          `curl ${base}/models/${model}:generateContent \\`,
          `  -H 'x-goog-api-key: ${key}' -H 'X-Switchboard-App: ${app}' -H 'Content-Type: application/json' \\`,
          `  -d '{"contents": [{"role": "user", "parts": [{"text": ${q(hello)}}]}]}'`,
        ].join('\n'),
        python: [
          'from google import genai',
          '',
          `client = genai.Client(api_key=${q(key)}, http_options={"base_url": ${q(root)}, "headers": {"X-Switchboard-App": ${q(app)}}})`,
          `reply = client.models.generate_content(model=${q(model)}, contents=${q(hello)})`,
          'print(reply.text)',
        ].join('\n'),
        typescript: [
          "import { GoogleGenAI } from '@google/genai';",
          '',
          'const client = new GoogleGenAI({',
          `  apiKey: ${q(key)},`,
          `  httpOptions: { baseUrl: ${q(root)}, headers: { 'X-Switchboard-App': ${q(app)} } },`,
          '});',
          `const reply = await client.models.generateContent({ model: ${q(model)}, contents: ${q(hello)} });`,
          'console.log(reply.text);',
        ].join('\n'),
      };
    }
    case 'ollama':
      return {
        curl: [
          `curl ${base}/api/chat \\`,
          `  -H 'X-Switchboard-App: ${app}' -H 'Content-Type: application/json' \\`,
          `  -d '{"model": ${q(model)}, "stream": false, "messages": [{"role": "user", "content": ${q(hello)}}]}'`,
        ].join('\n'),
        python: [
          'from ollama import Client',
          '',
          `client = Client(host=${q(base)}, headers={"X-Switchboard-App": ${q(app)}})`,
          `reply = client.chat(model=${q(model)}, messages=[{"role": "user", "content": ${q(hello)}}])`,
          'print(reply.message.content)',
        ].join('\n'),
        typescript: [
          "import { Ollama } from 'ollama';",
          '',
          `const client = new Ollama({ host: ${q(base)}, headers: { 'X-Switchboard-App': ${q(app)} } });`,
          `const reply = await client.chat({ model: ${q(model)}, messages: [{ role: 'user', content: ${q(hello)} }] });`,
          'console.log(reply.message.content);',
        ].join('\n'),
      };
  }
}
