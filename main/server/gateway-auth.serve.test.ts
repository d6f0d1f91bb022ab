// Gateway mode answers nothing without a credential (issue 13, item 7): the model routes that are not front doors
// (/api/show, /api/tags, /v1/models, count_tokens…) through the official clients, and a sweep over every route the
// Hono app registers (walked, so a route added later is covered), each refused with a 401 in its own format.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, runServeToExit, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { buildHttpApp } from './http-app.ts';
import { cli } from '../../test/support/agent-api.ts';

let mock: MockProvider;
let sb: ServeProcess;
let key = '';
beforeAll(async () => {
  mock = await startMockProvider({ name: 'upstream', behavior: { models: ['llama3.2', 'gpt-4o-mini'] } });
  sb = await startServe({ config: { ...configFor({ upstream: mock.baseUrl }), gateway: { enabled: true } } });
  key = (await cli(['keys', 'create', '--gateway', '--name', 'sweep', '--config', sb.configPath])).trim();
}, 30_000);
shutDownAfterAll(() => [sb, mock]);

const BAD = 'sk-sb-000000000000000000000000000000000000000000000000';

describe('model routes that are not front doors need a credential in gateway mode', () => {
  it("POST /api/show and GET /api/tags: 401 in Ollama's shape (the ollama client reads it); served with a key", async () => {
    const anonymous = new Ollama({ host: sb.url });
    for (const call of [() => anonymous.show({ model: 'llama3.2' }), () => anonymous.list()]) {
      const err = (await call().catch((e: unknown) => e)) as { status_code?: number; error?: string };
      expect(err.status_code).toBe(401);
      expect(err.error).toContain('gateway mode');
    }
    const keyed = new Ollama({ host: sb.url, headers: { authorization: `Bearer ${key}` } });
    expect((await keyed.show({ model: 'llama3.2' })).model_info).toMatchObject({ 'general.basename': 'llama3.2' });
    expect((await keyed.list()).models.map((m) => m.name).sort()).toEqual(['gpt-4o-mini', 'llama3.2']);
  });

  it('GET /v1/models: 401 in the shape the caller asks for (OpenAI, Anthropic, Gemini)', async () => {
    const openai = new OpenAI({ baseURL: sb.baseUrl, apiKey: BAD, maxRetries: 0 });
    expect(await openai.models.list().catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: BAD, maxRetries: 0 });
    const err = await anthropic.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    const gemini = await fetch(`${sb.url}/v1beta/models`, { headers: { 'x-goog-api-key': BAD } });
    expect(gemini.status).toBe(401);
    expect(await gemini.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const keyed = new OpenAI({ baseURL: sb.baseUrl, apiKey: key, maxRetries: 0 });
    expect((await keyed.models.list()).data.map((m) => m.id).sort()).toEqual(['gpt-4o-mini', 'llama3.2']);
  });

  it("count_tokens (Anthropic) and :countTokens (Gemini): 401 in each SDK's shape; served with a key", async () => {
    const body = { model: 'llama3.2', messages: [{ role: 'user' as const, content: 'Hello there' }] };
    const anonymous = new Anthropic({ baseURL: sb.url, apiKey: BAD, maxRetries: 0 });
    expect(await anonymous.messages.countTokens(body).catch((e: unknown) => e)).toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const ai = new GoogleGenAI({ apiKey: BAD, httpOptions: { baseUrl: sb.url } });
    const err = (await ai.models.countTokens({ model: 'llama3.2', contents: 'Hello' }).catch((e: unknown) => e)) as {
      status?: number;
    };
    expect(err.status).toBe(401);
    const keyed = new Anthropic({ baseURL: sb.url, apiKey: key, maxRetries: 0 });
    expect((await keyed.messages.countTokens(body)).input_tokens).toBeGreaterThan(0);
  });
});

describe("each vendor's client authenticates where it sends its key", () => {
  it('Gemini: x-goog-api-key (the SDK) and ?key= are read as the credential', async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: sb.url } });
    expect((await ai.models.countTokens({ model: 'llama3.2', contents: 'Hello there' })).totalTokens).toBeGreaterThan(
      0,
    );
    const listed = await fetch(`${sb.url}/v1beta/models?key=${encodeURIComponent(key)}`);
    expect(listed.status).toBe(200);
    const wrong = await fetch(`${sb.url}/v1beta/models?key=${BAD}`);
    expect(wrong.status).toBe(401);
  });
});

/** Routes that answer without any credential, by design (docs/gateway.md): the health answer (at /health too), metrics, the UI. */
const PUBLIC = new Set(['GET /api/v1/health', 'GET /health', 'GET /api/v1/metrics', 'GET /ui', 'GET /ui/*']);

/** The error shape each family of paths answers in, checked on the body of a 401. */
function expectShape(path: string, body: unknown): void {
  if (path.startsWith('/admin/')) expect(body).toMatchObject({ error: { code: 'invalid_admin_token' } });
  else if (path.startsWith('/api/v1/')) expect(body).toMatchObject({ error: { code: 'unauthorized', details: null } });
  else if (path.startsWith('/api/')) expect(body).toEqual({ error: expect.stringContaining('gateway mode') });
  else if (path.startsWith('/v1beta/')) expect(body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  else if (path.startsWith('/v1/messages'))
    expect(body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  else expect(body).toMatchObject({ error: { code: 'invalid_api_key', type: 'authentication_error' } });
}

/** A concrete path for a route pattern: `:param` and `*` filled in. */
const concrete = (pattern: string): string => pattern.replace(/:[A-Za-z_]+/g, 'x1').replace(/\*$/, 'x2');

describe('every registered route, without a credential, in gateway mode', () => {
  it("is refused with a 401 in the route's own format (the routes are walked from the Hono app)", async () => {
    const app = buildHttpApp({
      engine: () => {
        throw new Error('not used: the app is built only to list its routes');
      },
      store: {} as never,
      adminToken: 'unused',
      listenPort: () => 0,
      agents: {
        orchestrator: { workflows: {}, swarms: {}, store: { waits: {} }, tasks: {} },
        wal: {},
        keys: {},
        metrics: {},
        heartbeatMs: () => 1000,
      } as never,
    });
    const routes = app.routes.filter((r) => r.method !== 'ALL' && !PUBLIC.has(`${r.method} ${r.path}`));
    // Paths a pattern alone does not reach: Gemini's actions, and unregistered paths under each family.
    const cases = routes.map((r) => ({ method: r.method, path: concrete(r.path) }));
    cases.push(
      { method: 'POST', path: '/v1beta/models/llama3.2:countTokens' },
      { method: 'POST', path: '/v1beta/models/llama3.2:generateContent' },
      { method: 'POST', path: '/v1beta/models/llama3.2:streamGenerateContent' },
      { method: 'POST', path: '/v1beta/models/llama3.2:embedContent' },
      { method: 'POST', path: '/api/nothing-here' },
      { method: 'POST', path: '/v1/nothing-here' },
      { method: 'DELETE', path: '/v1/models' },
      { method: 'POST', path: '/vendorb' },
      { method: 'POST', path: '/v1/messages/' },
    );
    expect(cases.length).toBeGreaterThan(70);
    const wrong: string[] = [];
    for (const { method, path } of cases) {
      const hasBody = method === 'POST' || method === 'PUT';
      const r = await fetch(`${sb.url}${path}`, {
        method,
        headers: hasBody ? { 'content-type': 'application/json' } : {},
        ...(hasBody ? { body: JSON.stringify({ model: 'llama3.2', messages: [] }) } : {}),
      });
      const text = await r.text();
      if (r.status !== 401) {
        wrong.push(`${method} ${path}: ${r.status} ${text.slice(0, 120)}`);
        continue;
      }
      if (method === 'HEAD') continue;
      try {
        expectShape(path, JSON.parse(text));
      } catch {
        wrong.push(`${method} ${path}: 401 in the wrong shape: ${text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(mock.chatCount()).toBe(0);
  });
});

describe('gateway JWTs through serve', () => {
  it('a config.json with a short HMAC secret is refused at start, naming the field and the fix, never the secret', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-jwt-short-'));
    try {
      const secret = 'hunter2-is-short';
      await fs.writeFile(
        path.join(dir, 'config.json'),
        JSON.stringify({ ...configFor({ upstream: mock.baseUrl }), gateway: { enabled: true, jwt: { secret } } }),
      );
      const r = await runServeToExit({ dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('gateway.jwt.secret (found "****") must be at least 32 bytes');
      expect(r.stderr).toContain('openssl rand -base64 48');
      expect(r.stdout + r.stderr).not.toContain(secret);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('a JWT without exp, or living longer than gateway.jwt.max_lifetime_s, is a 401 saying so; a short-lived one is served', async () => {
    const secret = 'a-gateway-jwt-secret-of-48-bytes-0123456789abcd';
    const jwtServe = await startServe({
      config: {
        ...configFor({ upstream: mock.baseUrl }),
        gateway: { enabled: true, jwt: { secret, max_lifetime_s: 3600 } },
      },
    });
    try {
      const sign = (exp?: string) => {
        const t = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('bob').setIssuedAt();
        return (exp ? t.setExpirationTime(exp) : t).sign(new TextEncoder().encode(secret));
      };
      const chat = async (token: string) => {
        const client = new OpenAI({ baseURL: jwtServe.baseUrl, apiKey: token, maxRetries: 0 });
        return client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] });
      };
      for (const [token, says] of [
        [await sign(), 'no "exp" claim'],
        [await sign('2h'), 'more than gateway.jwt.max_lifetime_s (3600 s)'],
      ] as const) {
        const err = await chat(token).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
        expect((err as Error).message).toContain(says);
      }
      expect((await chat(await sign('30m'))).choices[0]!.message.content).toBeTruthy();
    } finally {
      await jwtServe.stop();
    }
  });
});
