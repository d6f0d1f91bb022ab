// The gateway half of the spec through `switchboard serve`: endpoints, video task affinity, limits, gateway keys.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDown, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockMedia, SPEECH_BYTES, startMockMedia } from '../../test/support/mock-media.ts';
import { configFor, runSwitchboard, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const cli = async (args: string[]) => {
  const r = await runSwitchboard(args);
  if (r.code !== 0) throw new Error(`switchboard ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
};
const post = (sb: ServeProcess, p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sb.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('gateway endpoints through serve', () => {
  let mock: MockMedia;
  let sb: ServeProcess;
  let client: OpenAI;
  beforeAll(async () => {
    mock = await startMockMedia('media');
    sb = await startServe({
      config: {
        ...configFor(
          { media: mock.baseUrl, claude: 'http://127.0.0.1:9/v1' },
          {
            default_provider: '',
            rules: [
              { pattern: 'claude-*', provider: 'claude' },
              { pattern: '{text-*,gpt-*,omni-*,whisper-*,tts-*,rerank-*}', provider: 'media' },
            ],
            app_rules: [{ app: 'rewriter', default_provider: 'media', model_override: 'whisper-large' }],
          },
        ),
        providers: [
          { name: 'media', base_url: mock.baseUrl, api_key: 'sk-media-secret-key-123456', enabled: true },
          { name: 'claude', base_url: 'http://127.0.0.1:9/v1', api_key: 'x', enabled: true, type: 'anthropic' },
        ],
      },
    });
    client = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'app:gw-test', maxRetries: 0 });
  });
  shutDownAfterAll(() => [sb, mock]);

  it('embeddings, image generation and moderations go to the routed provider with its key', async () => {
    const emb = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
    expect(emb.data[0]!.embedding).toEqual([0.5, 0.25]);
    const img = await client.images.generate({ model: 'gpt-image-1', prompt: 'a cat' });
    expect(Buffer.from(img.data![0]!.b64_json!, 'base64').toString()).toBe('img:media:gpt-image-1');
    const mod = await client.moderations.create({ model: 'omni-moderation-latest', input: 'hi' });
    expect(mod.results[0]!.flagged).toBe(false);
    const last = mock.requests.at(-1)!;
    expect(last.path).toBe('/v1/moderations');
    expect(last.headers.authorization).toBe('Bearer sk-media-secret-key-123456');
  });

  it('multipart uploads (image edit, transcription, translation) route by the model field and reach the provider whole', async () => {
    const png = Buffer.alloc(50_000, 7);
    const edit = await client.images.edit({
      model: 'gpt-image-1',
      image: await toFile(png, 'a.png', { type: 'image/png' }),
      prompt: 'hat',
    });
    expect(Buffer.from(edit.data![0]!.b64_json!, 'base64').toString()).toBe('edit:media:gpt-image-1:50000');
    const audio = Buffer.alloc(123_456, 1);
    const tr = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(audio, 'a.wav', { type: 'audio/wav' }),
    });
    expect(tr.text).toBe('heard 123456 bytes by media/whisper-1');
    const tl = await client.audio.translations.create({ model: 'whisper-1', file: await toFile(audio, 'a.wav') });
    expect(tl.text).toBe('translated 123456 bytes by media/whisper-1');
    expect(mock.requests.at(-1)!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });

  it("an app rule's model_override rewrites the multipart model field, the file untouched", async () => {
    const app = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'app:rewriter', maxRetries: 0 });
    const tr = await app.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.alloc(777, 3), 'a.wav'),
      language: 'en',
    });
    expect(tr.text).toBe('heard 777 bytes by media/whisper-large');
    expect(mock.requests.at(-1)!.fields).toMatchObject({ model: 'whisper-large', language: 'en' });
  });

  it("speech comes back as the provider's binary bytes", async () => {
    const r = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello' });
    expect(r.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await r.arrayBuffer()).equals(SPEECH_BYTES)).toBe(true);
  });

  it('rerank (raw fetch) passes through; local mode with no limits set sends no rate-limit headers', async () => {
    const r = await post(sb, '/v1/rerank', { model: 'rerank-v3', query: 'q', documents: ['a', 'b'] });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { results: unknown[] }).results).toHaveLength(2);
    expect([...r.headers.keys()].filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('a provider without the endpoint gives a 400 naming the provider and the endpoint', async () => {
    const r = await post(sb, '/v1/images/generations', { model: 'claude-3', prompt: 'x' });
    expect(r.status).toBe(400);
    const e = ((await r.json()) as { error: { code: string; message: string } }).error;
    expect(e.code).toBe('unsupported_endpoint');
    expect(e.message).toContain('provider "claude" (type anthropic) does not offer /v1/images/generations');
  });

  it('a model missing from a multipart upload is a 400 model_required', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(10)]), 'a.wav');
    const r = await fetch(`${sb.baseUrl}/audio/transcriptions`, { method: 'POST', body: form });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('model_required');
  });
});

describe('video tasks keep their provider, across a restart', () => {
  it('status and content polls go to the creating provider; unknown ids are 404', async () => {
    const a = await startMockMedia('a');
    const b = await startMockMedia('b');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-video-'));
    const config = configFor(
      { a: a.baseUrl, b: b.baseUrl },
      { rules: [{ pattern: '*-b', provider: 'b' }], default_provider: 'a' },
    );
    let sb = await startServe({ config, dir });
    try {
      const va = (await (await post(sb, '/v1/videos', { model: 'sora-a', prompt: 'x' })).json()) as { id: string };
      const vb = (await (await post(sb, '/v1/videos', { model: 'sora-b', prompt: 'x' })).json()) as { id: string };
      const gen = (await (await post(sb, '/v1/video/generations', { model: 'gen-b', prompt: 'x' })).json()) as {
        task_id: string;
      };
      const kl = (await (
        await post(sb, '/vendora/v1/videos/text2video', { model: 'kling-b', prompt: 'x' })
      ).json()) as { data: { task_id: string } };
      expect(va.id).toMatch(/^video_a_/);
      expect(vb.id).toMatch(/^video_b_/);
      await sb.stop();
      sb = await startServe({ config, dir });
      const s1 = await fetch(`${sb.baseUrl}/videos/${vb.id}`);
      expect(await s1.json()).toMatchObject({ id: vb.id, served_by: 'b' });
      expect(s1.headers.get('x-switchboard-provider')).toBe('b');
      expect(await (await fetch(`${sb.baseUrl}/videos/${va.id}/content`)).text()).toBe(`VIDEO:${va.id}:a`);
      expect(await (await fetch(`${sb.baseUrl}/video/generations/${gen.task_id}`)).json()).toMatchObject({
        served_by: 'b',
      });
      expect(await (await fetch(`${sb.url}/vendora/v1/videos/text2video/${kl.data.task_id}`)).json()).toMatchObject({
        served_by: 'b',
      });
      const unknown = await fetch(`${sb.baseUrl}/videos/video_nope`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('video_task_not_found');
    } finally {
      await sb.stop();
      await a.close();
      await b.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// Issue 33, item 9: HEAD on a poll printed ERR_HTTP_HEADERS_SENT to stderr; vendor B's poll forwarded the client's
// whole path, with the provider's key, whenever its last segment was a known task id.
describe("video polls: HEAD, and only the task's own path upstream", () => {
  let media: MockMedia;
  let sb: ServeProcess;
  beforeAll(async () => {
    media = await startMockMedia('m');
    sb = await startServe({ config: configFor({ m: media.baseUrl }, { default_provider: 'm' }) });
  });
  shutDownAfterAll(() => [sb, media]);

  it('HEAD on a poll answers the head (sent upstream as a HEAD), nothing on stderr; an unknown id is a 404', async () => {
    const v = (await (await post(sb, '/v1/videos', { model: 'sora', prompt: 'x' })).json()) as { id: string };
    for (const p of [`/v1/videos/${v.id}`, `/v1/videos/${v.id}/content`]) {
      const res = await fetch(`${sb.url}${p}`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchboard-provider')).toBe('m');
      expect(await res.text()).toBe('');
    }
    expect(media.requests.filter((r) => r.method === 'HEAD').map((r) => r.path)).toEqual([
      `/v1/videos/${v.id}`,
      `/v1/videos/${v.id}/content`,
    ]);
    expect((await fetch(`${sb.url}/v1/videos/video_nope`, { method: 'HEAD' })).status).toBe(404);
    // GET still streams the body.
    expect(await (await fetch(`${sb.url}/v1/videos/${v.id}/content`)).text()).toBe(`VIDEO:${v.id}:m`);
    await new Promise((r) => setTimeout(r, 200));
    expect(sb.stderr()).not.toContain('ERR_HTTP_HEADERS_SENT');
    expect(sb.stderr()).not.toMatch(/"level":5\d/);
  });

  it("vendor B's task is polled at the path it was created at and its id; any other path is a 404, never forwarded", async () => {
    const created = await post(sb, '/vendorb/v1/video/generations', { model: 'gen', prompt: 'x' });
    const { task_id: id } = (await created.json()) as { task_id: string };
    const own = await fetch(`${sb.url}/vendorb/v1/video/generations/${id}`);
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ id, served_by: 'm' });
    media.requests.length = 0;
    for (const p of [
      `/vendorb/v1/admin/keys/${id}`,
      `/vendorb/v1/videos/${id}`,
      `/vendorb/${id}`,
      `/v1/video/generations/${id}`,
    ]) {
      const res = await fetch(`${sb.url}${p}`);
      expect(res.status, p).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('video_task_not_found');
    }
    expect(media.requests).toEqual([]); // the provider's key went nowhere
    const wrong = await fetch(`${sb.url}/vendorb/v1/admin/keys/${id}`);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toContain(
      `it is polled at /vendorb/v1/video/generations/${id}`,
    );
  });
});

describe('limits: 429 with headers, and recovery after the window', () => {
  let mock: MockMedia;
  let sb: ServeProcess;
  const chat = (app: string, content = 'hi') =>
    post(
      sb,
      '/v1/chat/completions',
      { model: 'm', messages: [{ role: 'user', content }] },
      { 'x-switchboard-app': app },
    );
  beforeAll(async () => {
    mock = await startMockMedia('lim');
    sb = await startServe({
      config: {
        ...configFor({ lim: mock.baseUrl }),
        limits: {
          rpm: 3,
          tpm: 0,
          concurrency: 0,
          window_ms: 1500,
          per_app: { tok: { rpm: 0, tpm: 50 }, conc: { rpm: 0, concurrency: 2 } },
        },
      },
    });
  });
  shutDownAfterAll(() => [sb, mock]);

  it('RPM: the 4th request in the window is a 429 rate_limit_error with Retry-After; the next window admits again', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await chat('rpm');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining-requests')).toBe(String(2 - i));
      expect(r.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(ms|s)$/);
    }
    const r = await chat('rpm');
    expect(r.status).toBe(429);
    expect(((await r.json()) as { error: unknown }).error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
    });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((await chat('other-app')).status).toBe(200); // per app
    await new Promise((res) => setTimeout(res, 1600));
    expect((await chat('rpm')).status).toBe(200);
  });

  it('TPM: the estimate admits, the reported usage settles, and the next request over the budget is refused', async () => {
    mock.chatUsage = { prompt_tokens: 30, completion_tokens: 15 };
    const first = await chat('tok');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('50');
    // 45 tokens settled + about 14 estimated (55 bytes / 4) for the next one > 50.
    const second = await chat('tok');
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { message: string } }).error.message).toContain('50 tokens per 1500 ms');
    const huge = await chat('tok2-none', 'x'.repeat(0)); // a different app has its own budget (global tpm 0 = off)
    expect(huge.status).toBe(200);
    await new Promise((res) => setTimeout(res, 1600));
    expect((await chat('tok')).status).toBe(200);
  });

  it('concurrency: a third request while two are in flight is refused, and admitted once they end', async () => {
    mock.chatDelayMs = 600;
    const inFlight = [chat('conc'), chat('conc')];
    await new Promise((res) => setTimeout(res, 200));
    const third = await chat('conc');
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain(
      '2 requests in flight at once',
    );
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual([200, 200]);
    mock.chatDelayMs = 0;
    expect((await chat('conc')).status).toBe(200);
  });
});

describe('gateway mode by listen address', () => {
  it('a server bound beyond loopback requires a key even without gateway.enabled', async () => {
    const mock = await startMockMedia('wide');
    const sb = await startServe({ config: configFor({ wide: mock.baseUrl }), args: ['--host', '0.0.0.0'] });
    try {
      const r = await post(
        sb,
        '/v1/chat/completions',
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { authorization: 'Bearer anything' },
      );
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
      expect(mock.requests).toHaveLength(0);
    } finally {
      await sb.stop();
      await mock.close();
    }
  });
});

describe('gateway mode: keys, PATs and JWTs', () => {
  let mock: MockMedia;
  let sb: ServeProcess;
  let dir: string;
  const secret = 'test-jwt-secret-0123456789abcdef';
  const chatWith = (auth: string | null, model = 'gpt-4o') =>
    post(
      sb,
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hi' }] },
      auth ? { authorization: auth } : {},
    );
  beforeAll(async () => {
    mock = await startMockMedia('gw');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-gw-'));
    sb = await startServe({
      dir,
      config: { ...configFor({ gw: mock.baseUrl }), gateway: { enabled: true, jwt: { secret } } },
    });
  });
  afterAll(async () => {
    await shutDown(sb, mock);
    await fs.rm(dir, { recursive: true, force: true });
  });
  const expect401 = async (r: Response) => {
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: unknown }).error).toMatchObject({
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
  };

  it('missing, unknown, expired and revoked keys are 401; a valid key is served and never forwarded', async () => {
    await expect401(await chatWith(null));
    await expect401(await chatWith('Bearer sk-sb-000000000000000000000000000000000000000000000000'));
    await expect401(await fetch(`${sb.baseUrl}/models`));
    const { stdout: key } = await cli([
      'keys',
      'create',
      '--gateway',
      '--name',
      'ci',
      '--models',
      'gpt-*',
      '--config',
      sb.configPath,
    ]);
    const { stdout: old } = await cli([
      'keys',
      'create',
      '--gateway',
      '--name',
      'old',
      '--expires',
      '2020-01-01T00:00:00Z',
      '--config',
      sb.configPath,
    ]);
    expect(key.trim()).toMatch(/^sk-sb-[0-9a-f]{48}$/);
    const ok = await chatWith(`Bearer ${key.trim()}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit-requests')).toBe('60');
    expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-gw-secret-key-123456');
    const denied = await chatWith(`Bearer ${key.trim()}`, 'o3-mini');
    expect(denied.status).toBe(403);
    await expect401(await chatWith(`Bearer ${old.trim()}`));
    const stored = await fs.readFile(path.join(dir, 'gateway-keys.json'), 'utf8');
    expect(stored).not.toContain(key.trim());
    const { stdout: list } = await cli(['keys', 'list', '--gateway', '--config', sb.configPath]);
    const id = list
      .split('\n')
      .find((l) => l.includes('\tci\t'))!
      .split('\t')[0]!;
    await cli(['keys', 'revoke', '--gateway', id, '--config', sb.configPath]);
    await expect401(await chatWith(`Bearer ${key.trim()}`));
  });

  it('a PAT and a JWT signed with the configured secret are accepted; a JWT with another secret is not', async () => {
    const { stdout: pat } = await cli(['keys', 'create', '--pat', '--name', 'alice', '--config', sb.configPath]);
    expect(pat.trim()).toMatch(/^sbp_/);
    expect((await chatWith(`Bearer ${pat.trim()}`)).status).toBe(200);
    const sign = (s: string, exp = '5m') =>
      new SignJWT({ models: ['gpt-*'] })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('bob')
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(s));
    expect((await chatWith(`Bearer ${await sign(secret)}`)).status).toBe(200);
    await expect401(await chatWith(`Bearer ${await sign('another-secret-0123456789abcdef')}`));
    await expect401(await chatWith(`Bearer ${await sign(secret, '-1m')}`));
  });
});
