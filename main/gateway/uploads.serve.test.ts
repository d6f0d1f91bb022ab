// Multipart uploads through `switchboard serve`, streamed: spooled to an owner-only temp file (never held whole in
// memory), forwarded byte-exact from it, resent whole on failover, the model field rewritten on the way; the size
// limit applied while streaming; multipart video creates; and JWTs verified against a configured public key.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDown } from '../../test/support/lifecycle.ts';
import { type MockMedia, startMockMedia } from '../../test/support/mock-media.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const BOUNDARY = '----sbtest7MA4YWxkTrZu0gW';
const CT = `multipart/form-data; boundary=${BOUNDARY}`;

/** A multipart body: text fields before the file (`before`), the file, then fields after it (as the SDKs send model). */
function multipart(
  file: Buffer,
  before: Record<string, string>,
  after: Record<string, string>,
  fileField = 'file',
): Buffer {
  const f = (o: Record<string, string>) =>
    Object.entries(o)
      .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('');
  return Buffer.concat([
    Buffer.from(
      `${f(before)}--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileField}"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n${f(after)}--${BOUNDARY}--\r\n`),
  ]);
}

type Reply = { status: number; json: Record<string, unknown> };

/** POSTs a body in pieces; `between` runs after the first piece is written (the upload is then in flight). */
function upload(
  url: string,
  body: Buffer,
  opts: {
    headers?: Record<string, string>;
    firstBytes?: number;
    between?: () => Promise<void>;
    chunked?: boolean;
  } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': CT,
        ...(opts.chunked ? {} : { 'content-length': String(body.length) }),
        ...opts.headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          json: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    void (async () => {
      const first = opts.firstBytes ?? body.length;
      req.write(body.subarray(0, first));
      if (opts.between) await opts.between();
      for (let pos = first; pos < body.length; pos += 1 << 20) {
        if (!req.write(body.subarray(pos, pos + (1 << 20)))) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(reject);
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const rssKb = async (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))![1]);
const uploadsIn = async (dir: string) => (await fs.readdir(dir)).filter((n) => n.startsWith('switchboard-upload-'));

describe('multipart uploads are streamed through a temp file', () => {
  let a: MockMedia;
  let b: MockMedia;
  let sb: ServeProcess;
  let tmp: string;
  beforeAll(async () => {
    a = await startMockMedia('a');
    b = await startMockMedia('b');
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-uploads-tmp-'));
    sb = await startServe({
      env: { TMPDIR: tmp },
      config: {
        ...configFor(
          { a: a.baseUrl, b: b.baseUrl },
          {
            default_provider: '',
            rules: [
              { pattern: 'whisper-*', provider: 'a' },
              { pattern: 'whisper-*', provider: 'b' },
              { pattern: 'sora-*', provider: 'b' },
            ],
            app_rules: [{ app: 'rewriter', default_provider: 'a', model_override: 'whisper-large-v3-rewritten' }],
          },
        ),
        max_body_mb: 64,
        limits: { enabled: false },
        circuit_breaker: { failure_threshold: 100, cooldown_ms: 1000 },
      },
    });
  });
  afterAll(async () => {
    await shutDown(sb, a, b);
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("a 60 MB upload reaches the provider byte-exact while the server's memory never holds it", async () => {
    const pid = sb.child.pid!;
    const warm = await upload(
      `${sb.baseUrl}/audio/transcriptions`,
      multipart(randomBytes(2 << 20), {}, { model: 'whisper-1' }),
    );
    expect(warm.status).toBe(200);
    // Twice: the first request for a route other than chat completions loads the HTTP app (main/server/http-app.ts),
    // which under tsx leaves its module compiles' garbage; the second is warm like the measured one. With one warm-up
    // the growth read 0.8-44 MB (the app's load in it), with two 0-26 MB, as with one before the app was lazy.
    const warm2 = await upload(
      `${sb.baseUrl}/audio/transcriptions`,
      multipart(randomBytes(2 << 20), {}, { model: 'whisper-1' }),
    );
    expect(warm2.status).toBe(200);
    const file = randomBytes(60 << 20);
    const before = await rssKb(pid);
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssKb(pid));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const r = await upload(
      `${sb.baseUrl}/audio/transcriptions`,
      multipart(file, { language: 'en' }, { model: 'whisper-1' }),
    );
    sampling = false;
    await sampler;
    expect(r.status).toBe(200);
    expect(r.json.text).toBe(`heard ${60 << 20} bytes by a/whisper-1`);
    const got = a.requests.at(-1)!;
    expect(got.fileSha256).toBe(sha(file));
    expect(got.fields).toEqual({ language: 'en', model: 'whisper-1' });
    // Read whole, the body (its chunks, then their concatenation) adds over 150 MB to the server's resident memory
    // (measured: 163-177 MB); streamed, the growth is only chunks awaiting GC (measured: 0-26 MB quiet, up to 52 MB
    // under a full parallel run, where GC falls behind). 100 MB still tells one from the other.
    expect((peak - before) / 1024).toBeLessThan(100);
    await eventually(async () => expect(await uploadsIn(tmp)).toEqual([]));
  });

  it('during the upload the body is in an owner-only temp file, removed when the request ends or is aborted', async () => {
    const file = randomBytes(4 << 20);
    const r = await upload(`${sb.baseUrl}/audio/translations`, multipart(file, {}, { model: 'whisper-1' }), {
      firstBytes: 1 << 20,
      between: async () => {
        const name = await eventually(async () => {
          const names = await uploadsIn(tmp);
          expect(names).toHaveLength(1);
          const st = await fs.stat(path.join(tmp, names[0]!));
          expect(st.size).toBeGreaterThanOrEqual(1 << 20);
          return names[0]!;
        });
        expect((await fs.stat(path.join(tmp, name))).mode & 0o777).toBe(0o600);
      },
    });
    expect(r.status).toBe(200);
    expect(a.requests.at(-1)!.fileSha256).toBe(sha(file));
    await eventually(async () => expect(await uploadsIn(tmp)).toEqual([]));

    // A client that hangs up mid-upload: nothing is forwarded and the temp file goes.
    const sent = a.requests.length;
    const req = http.request(`${sb.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': CT, 'content-length': String(8 << 20) },
    });
    req.on('error', () => {});
    req.write(multipart(randomBytes(2 << 20), {}, {}).subarray(0, 2 << 20));
    await eventually(async () => expect(await uploadsIn(tmp)).toHaveLength(1));
    req.destroy();
    await eventually(async () => expect(await uploadsIn(tmp)).toEqual([]));
    expect(a.requests.length).toBe(sent);
  });

  it('a 503 from the first provider fails over: the second gets the whole file again, with the model rewritten', async () => {
    a.failStatus = 503;
    try {
      const file = randomBytes(6 << 20);
      const r = await upload(
        `${sb.baseUrl}/audio/transcriptions`,
        multipart(file, { prompt: 'hi' }, { model: 'whisper-1', language: 'de' }),
        {
          headers: { 'x-switchboard-app': 'rewriter' },
        },
      );
      expect(r.status).toBe(200);
      expect(r.json.text).toBe(`heard ${6 << 20} bytes by b/whisper-large-v3-rewritten`);
      for (const got of [a.requests.at(-1)!, b.requests.at(-1)!]) {
        expect(got.fileSha256).toBe(sha(file));
        expect(got.fields).toEqual({ prompt: 'hi', model: 'whisper-large-v3-rewritten', language: 'de' });
        expect(Number(got.headers['content-length'])).toBe(got.bytes);
      }
    } finally {
      a.failStatus = 0;
    }
  });

  it('a multipart video create (input_reference) is streamed with its content type, and its task remembered', async () => {
    const ref = randomBytes(300_000);
    const r = await upload(
      `${sb.baseUrl}/videos`,
      multipart(ref, { model: 'sora-2', prompt: 'a cat' }, { seconds: '4' }, 'input_reference'),
    );
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ object: 'video', model: 'sora-2', input_reference_bytes: ref.length });
    const got = b.requests.at(-1)!;
    expect(got.headers['content-type']).toBe(CT);
    expect(got.fileSha256).toBe(sha(ref));
    expect(got.fields).toEqual({ model: 'sora-2', prompt: 'a cat', seconds: '4' });
    const poll = await fetch(`${sb.baseUrl}/videos/${r.json.id as string}`);
    expect(await poll.json()).toMatchObject({ id: r.json.id, served_by: 'b' });
  });
});

describe('gateway mode with a JWT public key; the size limit while streaming', () => {
  let mock: MockMedia;
  let sb: ServeProcess;
  let tmp: string;
  let privateKey: Key;
  let otherKey: Key;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    mock = await startMockMedia('pk');
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-uploads-tmp-'));
    sb = await startServe({
      env: { TMPDIR: tmp },
      config: {
        ...configFor({ pk: mock.baseUrl }),
        max_body_mb: 1,
        gateway: { enabled: true, jwt: { public_key: await exportSPKI(pair.publicKey), audience: 'switchboard' } },
      },
    });
  });
  afterAll(async () => {
    await shutDown(sb, mock);
    await fs.rm(tmp, { recursive: true, force: true });
  });
  const sign = (key: Key, aud = 'switchboard') =>
    new SignJWT({ models: ['whisper-*'] })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('carol')
      .setAudience(aud)
      .setExpirationTime('5m')
      .sign(key);

  it('a JWT signed with the private half is accepted; one signed by another key, or for another audience, is refused', async () => {
    const body = multipart(Buffer.alloc(1000, 9), {}, { model: 'whisper-1' });
    const ok = await upload(`${sb.baseUrl}/audio/transcriptions`, body, {
      headers: { authorization: `Bearer ${await sign(privateKey)}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.text).toBe('heard 1000 bytes by pk/whisper-1');
    expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-pk-secret-key-123456');
    for (const token of [await sign(otherKey), await sign(privateKey, 'elsewhere')]) {
      const r = await upload(`${sb.baseUrl}/audio/transcriptions`, body, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(r.status).toBe(401);
      expect(r.json.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error' });
    }
    expect(mock.requests).toHaveLength(1);
  });

  it('a chunked upload over max_body_mb is a 413 once the limit is crossed, and its temp file is removed', async () => {
    const r = await upload(
      `${sb.baseUrl}/audio/transcriptions`,
      multipart(Buffer.alloc(3 << 20, 1), {}, { model: 'whisper-1' }),
      {
        chunked: true,
        headers: { authorization: `Bearer ${await sign(privateKey)}` },
      },
    );
    expect(r.status).toBe(413);
    expect((r.json.error as { code: string }).code).toBe('body_too_large');
    await eventually(async () => expect(await uploadsIn(tmp)).toEqual([]));
    expect(mock.requests).toHaveLength(1);
  });
});
