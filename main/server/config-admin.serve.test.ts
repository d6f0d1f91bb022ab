// config.json and the admin API through `switchboard serve`: first run, validation, hot reload, masked keys, guards.
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort, holdPort, holdTwoInARow } from '../../test/support/ports.ts';
import {
  configFor,
  eventually,
  runServeToExit,
  type ServeProcess,
  startServe,
} from '../../test/support/serve-process.ts';

let a: MockProvider;
let b: MockProvider;
beforeAll(async () => {
  a = await startMockProvider({ name: 'alpha' });
  b = await startMockProvider({ name: 'beta' });
});
shutDownAfterAll(() => [a, b]);

const ask = (sb: ServeProcess, model: string, headers: Record<string, string> = {}) =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

function rawRequest(port: number, opts: http.RequestOptions, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, ...opts }, (res) => {
      let data = '';
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('first run', () => {
  it('writes a default config (owner-only) with disabled templates, and offers keys found in the environment', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-first-'));
    const sb = await startServe({ dir, env: { OPENAI_API_KEY: 'sk-from-env-abcdefghijkl', ANTHROPIC_API_KEY: '' } });
    try {
      const stat = await fs.stat(sb.configPath);
      expect(stat.mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.join(dir, 'admin-token'))).mode & 0o777).toBe(0o600);
      const cfg = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
      expect(cfg.listen_port).toBe(11434);
      expect(cfg.providers.map((p: { name: string }) => p.name)).toEqual([
        'openai',
        'anthropic',
        'openrouter',
        'local',
      ]);
      expect(cfg.providers.every((p: { enabled: boolean }) => p.enabled === false)).toBe(true);
      expect(JSON.stringify(cfg)).not.toContain('sk-from-env');
      await eventually(() => expect(sb.stderr()).toContain('found OPENAI_API_KEY'));
      expect(sb.stderr()).toContain('env:OPENAI_API_KEY');
      expect(sb.stderr()).not.toContain('sk-from-env');
      // With every template disabled, a request gets a clear error naming the config path.
      const res = await ask(sb, 'gpt-4o');
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string; action: string } };
      expect(body.error.code).toBe('no_route');
      expect(body.error.message).toContain('disabled');
      expect(body.error.action).toContain(sb.configPath);
    } finally {
      await sb.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('uses an env: key reference at request time', async () => {
    const cfg = configFor({ alpha: a.baseUrl });
    (cfg.providers as { api_key: string }[])[0]!.api_key = 'env:ALPHA_KEY';
    const sb = await startServe({ config: cfg, env: { ALPHA_KEY: 'sk-alpha-from-env' } });
    try {
      expect((await ask(sb, 'm')).status).toBe(200);
      expect(a.requests.at(-1)!.headers.authorization).toBe('Bearer sk-alpha-from-env');
    } finally {
      await sb.stop();
    }
  });
});

describe('invalid config at start', () => {
  it('refuses to start, names the field, the value and the fix, and leaves the file untouched', async () => {
    const cfg = configFor({ alpha: a.baseUrl }, { default_provider: 'nobody' });
    (cfg.providers as { base_url: string }[])[0]!.base_url = 'localhost:8080';
    (cfg as Record<string, unknown>).listen_prot = 1234;
    const text = JSON.stringify(cfg, null, 2);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-bad-'));
    try {
      await fs.writeFile(path.join(dir, 'config.json'), text);
      const r = await runServeToExit({ dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('providers[0].base_url (found "localhost:8080")');
      expect(r.stderr).toContain('http://');
      expect(r.stderr).toContain('routing.default_provider (found "nobody") names no provider; use one of: alpha');
      expect(r.stderr).toContain('listen_prot');
      expect(r.stderr).toContain('did you mean "listen_port"');
      expect(await fs.readFile(path.join(dir, 'config.json'), 'utf8')).toBe(text);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reports broken JSON with its line and column', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-json-'));
    try {
      await fs.writeFile(path.join(dir, 'config.json'), '{\n  "listen_port": 11434,\n}\n');
      const r = await runServeToExit({ dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not valid JSON.*line 3, column 1/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('hot reload', () => {
  it('picks up a hand edit, keeps the last good config on an invalid edit, and reports it', async () => {
    const cfg = configFor({ alpha: a.baseUrl, beta: b.baseUrl }, { default_provider: 'alpha' });
    const sb = await startServe({ config: cfg });
    try {
      expect((await ask(sb, 'x')).headers.get('x-switchboard-provider')).toBe('alpha');
      await sb.writeConfig({
        ...cfg,
        routing: { default_provider: 'alpha', rules: [{ pattern: 'x*', provider: 'beta' }] },
      });
      await eventually(async () => expect((await ask(sb, 'x')).headers.get('x-switchboard-provider')).toBe('beta'));

      await fs.writeFile(sb.configPath, '{ "listen_port": "eleven" ');
      await eventually(async () => {
        const status = (await (await sb.admin('/status')).json()) as { config_error: string[] | null };
        expect(status.config_error?.join(' ')).toContain('not valid JSON');
      });
      expect((await ask(sb, 'x')).headers.get('x-switchboard-provider')).toBe('beta');
      expect(sb.stderr()).toContain('invalid');

      await sb.writeConfig(cfg);
      await eventually(async () => expect((await ask(sb, 'x')).headers.get('x-switchboard-provider')).toBe('alpha'));
      const status = (await (await sb.admin('/status')).json()) as { config_error: string[] | null };
      expect(status.config_error).toBeNull();
    } finally {
      await sb.stop();
    }
  });

  it('rebinds when listen_port changes', async () => {
    const port1 = await freePort();
    const port2 = await freePort();
    const cfg = { ...configFor({ alpha: a.baseUrl }), listen_port: port1 };
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-port-'));
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(cfg));
    const sb = await startServe({ dir, portFromConfig: true });
    try {
      expect(sb.port).toBe(port1);
      await sb.writeConfig({ ...cfg, listen_port: port2 });
      await eventually(async () => expect((await fetch(`http://127.0.0.1:${port2}/`)).status).toBe(200));
      await eventually(async () =>
        expect(
          await fetch(`http://127.0.0.1:${port1}/`).then(
            () => 'open',
            () => 'closed',
          ),
        ).toBe('closed'),
      );
    } finally {
      await sb.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('admin API', () => {
  let sb: ServeProcess;
  beforeAll(async () => {
    sb = await startServe({ config: configFor({ alpha: a.baseUrl, beta: b.baseUrl }) });
  });
  afterAll(() => sb?.stop());

  it('masks keys on read and keeps a key sent back masked', async () => {
    const read = (await (await sb.admin('/config')).json()) as {
      config: { providers: { name: string; api_key: string }[]; log_requests: boolean };
    };
    expect(read.config.providers[0]!.api_key).toBe('sk-****3456');
    expect(JSON.stringify(read)).not.toContain('secret');
    read.config.log_requests = true;
    read.config.providers[1]!.api_key = 'sk-new-beta-key-000000';
    const put = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(read.config),
    });
    expect(put.status).toBe(200);
    const onDisk = JSON.parse(await fs.readFile(sb.configPath, 'utf8'));
    expect(onDisk.providers[0].api_key).toBe('sk-alpha-secret-key-123456');
    expect(onDisk.providers[1].api_key).toBe('sk-new-beta-key-000000');
    expect(onDisk.log_requests).toBe(true);
    expect((await fs.stat(sb.configPath)).mode & 0o777).toBe(0o600);
  });

  it('keeps the stored key of a renamed provider sent back masked; a masked key of no stored provider is refused', async () => {
    const own = await startServe({ config: configFor({ alpha: a.baseUrl, beta: b.baseUrl }) });
    try {
      const read = (await (await own.admin('/config')).json()) as {
        config: { providers: { name: string; api_key: string }[]; routing: { default_provider: string } };
      };
      const put = (config: unknown) =>
        own.admin('/config', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(config),
        });
      // A new provider sent with a masked key that is alpha's (alpha still there): not alpha's to give.
      const stolen = structuredClone(read.config);
      stolen.providers.push({ ...stolen.providers[0]!, name: 'gamma' });
      expect((await put(stolen)).status).toBe(400);
      // alpha renamed to omega (the Providers page's rename): its key is kept.
      const renamed = structuredClone(read.config);
      renamed.providers[0]!.name = 'omega';
      renamed.routing.default_provider = 'omega';
      expect((await put(renamed)).status).toBe(200);
      const onDisk = JSON.parse(await fs.readFile(own.configPath, 'utf8'));
      expect(onDisk.providers.map((p: { name: string }) => p.name)).toEqual(['omega', 'beta']);
      expect(onDisk.providers[0].api_key).toBe('sk-alpha-secret-key-123456');
    } finally {
      await own.stop();
    }
  });

  it('masks every secret of the config on read (credential headers, gateway.jwt.secret) and keeps them sent back masked', async () => {
    const jwtSecret = 'jwt-secret-0123456789abcdefghijklmnopqrstuvwxyz';
    const cfg = configFor({ alpha: a.baseUrl }) as { providers: Record<string, unknown>[] };
    cfg.providers[0]!.headers = {
      Authorization: 'Bearer sk-header-secret-123456789',
      'HTTP-Referer': 'https://x.test',
    };
    const own = await startServe({ config: { ...cfg, gateway: { enabled: false, jwt: { secret: jwtSecret } } } });
    try {
      const read = (await (await own.admin('/config')).json()) as {
        config: { providers: { headers: Record<string, string> }[]; gateway: { jwt: { secret: string } } };
      };
      const text = JSON.stringify(read);
      expect(text).not.toContain('sk-header-secret');
      expect(text).not.toContain(jwtSecret);
      expect(read.config.providers[0]!.headers['HTTP-Referer']).toBe('https://x.test');
      expect(read.config.gateway.jwt.secret).toMatch(/^.{3}\*{4}.{4}$/);
      const put = await own.admin('/config', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(read.config),
      });
      expect(put.status).toBe(200);
      const onDisk = JSON.parse(await fs.readFile(own.configPath, 'utf8'));
      expect(onDisk.providers[0].headers.Authorization).toBe('Bearer sk-header-secret-123456789');
      expect(onDisk.gateway.jwt.secret).toBe(jwtSecret);
    } finally {
      await own.stop();
    }
  });

  it('refuses an invalid config with details and leaves the file unchanged', async () => {
    const before = await fs.readFile(sb.configPath, 'utf8');
    const res = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listen_port: 70000 }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe('config_invalid');
    expect(body.error.details[0]!.path).toBe('listen_port');
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);
  });

  it('refuses a second app rule for the same app in another case, and says which rules name a disabled provider', async () => {
    const read = (await (await sb.admin('/config')).json()) as { config: Record<string, unknown> };
    const put = (body: unknown) =>
      sb.admin('/config', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const before = await fs.readFile(sb.configPath, 'utf8');
    const dup = await put({
      ...read.config,
      app_rules: [
        { app: 'cursor', default_provider: 'alpha' },
        { app: 'Cursor', default_provider: 'beta' },
      ],
    });
    expect(dup.status).toBe(400);
    const err = (await dup.json()) as { error: { code: string; details: { path: string; message: string }[] } };
    expect(err.error.details).toContainEqual(expect.objectContaining({ path: 'app_rules[1].app' }));
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);

    const providers = (read.config.providers as { name: string; enabled?: boolean }[]).map((p) =>
      p.name === 'beta' ? { ...p, enabled: false } : p,
    );
    const saved = await put({
      ...read.config,
      providers,
      app_rules: [{ app: 'cursor', default_provider: 'beta' }],
    });
    expect(saved.status).toBe(200);
    const body = (await saved.json()) as { warnings: { path: string; message: string }[] };
    expect(body.warnings).toEqual([
      expect.objectContaining({ path: 'app_rules[0].default_provider', message: expect.stringContaining('disabled') }),
    ]);
    await put(read.config); // back as it was, for the tests after
  });

  it('status lists providers, rules and recent logs, never a key', async () => {
    await ask(sb, 'anything');
    const res = await sb.admin('/status');
    const text = await res.text();
    const status = JSON.parse(text) as {
      providers: { name: string; state: string }[];
      routing: unknown;
      recent_logs: { provider: string; status: number }[];
    };
    expect(status.providers.map((p) => p.name)).toEqual(['alpha', 'beta']);
    expect(status.providers[0]!.state).toBe('ok');
    expect(status.recent_logs.at(-1)).toMatchObject({ provider: 'alpha', status: 200 });
    expect(text).not.toContain('secret');
    // log_requests was switched on by the previous test's save: the JSONL file has the request, and no key.
    const jsonl = await eventually(async () => {
      const t = await fs.readFile(path.join(sb.dir, 'requests.jsonl'), 'utf8');
      expect(t).toContain('"requested_model":"anything"');
      return t;
    });
    expect(jsonl).not.toContain('secret');
    expect(jsonl).not.toContain('"content"');
  });

  it('streams new request log entries as Server-Sent Events', async () => {
    const ac = new AbortController();
    const res = await fetch(`${sb.url}/admin/v1/logs/stream?token=${sb.adminToken}`, { signal: ac.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    await reader.read();
    await ask(sb, 'live-model');
    let text = '';
    await eventually(async () => {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
      expect(text).toContain('"requested_model":"live-model"');
    });
    ac.abort();
  });

  it('needs the token', async () => {
    const res = await fetch(`${sb.url}/admin/v1/status`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string; type: string } }).error).toMatchObject({
      code: 'invalid_admin_token',
      type: 'authentication_error',
    });
    expect((await fetch(`${sb.url}/admin/v1/status`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('refuses a Host other than localhost (DNS rebinding)', async () => {
    const r = await rawRequest(sb.port, {
      path: '/admin/v1/status',
      headers: { host: 'evil.example.com', authorization: `Bearer ${sb.adminToken}` },
    });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.code).toBe('host_not_allowed');
    const ok = await rawRequest(sb.port, {
      path: '/admin/v1/status',
      headers: { host: `localhost:${sb.port}`, authorization: `Bearer ${sb.adminToken}` },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses cross-origin browser requests', async () => {
    const res = await sb.admin('/status', { headers: { origin: 'https://evil.example.com' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed');
    const proxy = await ask(sb, 'x', { origin: 'https://evil.example.com' });
    expect(proxy.status).toBe(403);
  });
});

describe('request errors', () => {
  let sb: ServeProcess;
  beforeAll(async () => {
    sb = await startServe({
      config: { ...configFor({ alpha: a.baseUrl }, { default_provider: '' }), max_body_mb: 0.01 },
    });
  });
  afterAll(() => sb?.stop());

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const errorOf = async (res: Response) =>
    (
      (await res.json()) as {
        error: { code: string; message: string; type: string; action: string; details?: unknown };
      }
    ).error;

  it('malformed JSON: 400 invalid_json', async () => {
    const res = await post('{"model": "x", ');
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e).toMatchObject({ code: 'invalid_json', type: 'invalid_request_error' });
    expect(e.action).toBeTruthy();
  });

  it('missing model: 400 model_required', async () => {
    const res = await post(JSON.stringify({ messages: [] }));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('model_required');
  });

  it('wrong types: 400 invalid_request naming each field', async () => {
    const res = await post(JSON.stringify({ model: 'x', messages: 'hello', stream: 'yes' }));
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain('messages');
    expect(e.message).toContain('stream');
    expect(e.details).toHaveLength(2);
  });

  it('a body over max_body_mb: 413', async () => {
    const res = await post(JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'a'.repeat(20_000) }] }));
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('body_too_large');
  });

  it('no provider for the model: 404 no_route naming the model and the config path', async () => {
    const res = await post(JSON.stringify({ model: 'unrouted-model', messages: [] }));
    expect(res.status).toBe(404);
    const e = await errorOf(res);
    expect(e.code).toBe('no_route');
    expect(e.message).toContain('unrouted-model');
    expect(e.action).toContain(sb.configPath);
  });

  it('an unknown path: 404 in the same error shape; the openai client surfaces the message', async () => {
    const res = await fetch(`${sb.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe('not_found');
    const err = await new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 }).chat.completions
      .create({ model: 'unrouted-model', messages: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as Error).message).toContain('unrouted-model');
  });
});

describe('port conflict', () => {
  it('says Ollama holds the port, suggests the fix, and exits non-zero', async () => {
    const fakeOllama = http.createServer((req, res) => {
      if (req.url === '/api/version') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"version":"0.9.1"}');
      } else res.end('Ollama is running');
    });
    await new Promise<void>((r) => fakeOllama.listen(0, '127.0.0.1', r));
    const port = (fakeOllama.address() as net.AddressInfo).port;
    try {
      const r = await runServeToExit({ config: configFor({ alpha: a.baseUrl }), port });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`Port ${port} is in use by Ollama 0.9.1`);
      expect(r.stderr).toContain('listen_port');
      expect(r.stderr).toContain('OLLAMA_HOST');
    } finally {
      await new Promise((r) => fakeOllama.close(r));
    }
  });

  it('names another program holding the port', async () => {
    const other = await holdPort();
    const { port } = other;
    try {
      const r = await runServeToExit({ config: configFor({ alpha: a.baseUrl }), port });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`Port ${port} is in use by node (pid ${process.pid})`);
    } finally {
      await other.close();
    }
  });

  it('suggests a port that is free, not the next one when that is taken too', async () => {
    const [first, second] = await holdTwoInARow();
    try {
      const r = await runServeToExit({ config: configFor({ alpha: a.baseUrl }), port: first.port });
      expect(r.code).toBe(3);
      const suggested = Number(/--port (\d+)/.exec(r.stderr)?.[1]);
      expect([first.port, second.port]).not.toContain(suggested);
      expect(suggested).toBeGreaterThan(1023);
      await (await holdPort(suggested)).close(); // free: it can be bound
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
