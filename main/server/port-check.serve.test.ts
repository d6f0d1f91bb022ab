// GET /admin/v1/port-check (the Settings page's listen_port check) through serve: real listeners hold the ports.
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { MOCK_OLLAMA_VERSION, type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { freePort, type HeldPort, holdPort, holdTwoInARow } from '../../test/support/ports.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type PortCheck = {
  port: number;
  host: string;
  free: boolean;
  current: boolean;
  holder: { kind: string } | null;
  message: string | null;
};

let sb: ServeProcess;
let ollama: MockOllama;
let plain: HeldPort;
let plainPort: number;

beforeAll(async () => {
  ollama = await startMockOllama();
  plain = await holdPort();
  plainPort = plain.port;
  sb = await startServe({ config: configFor({ m: 'http://127.0.0.1:9/v1' }) });
});
shutDownAfterAll(() => [sb, ollama, plain]);

const check = async (port: string | number) => {
  const res = await sb.admin(`/port-check?port=${port}`);
  return { status: res.status, body: (await res.json()) as PortCheck & { error?: { code: string; message: string } } };
};

describe('GET /admin/v1/port-check', () => {
  it('needs the admin token', async () => {
    expect((await fetch(`${sb.url}/admin/v1/port-check?port=1234`)).status).toBe(401);
  });

  it('says a port held by Ollama is taken, who holds it, and the fix', async () => {
    const { status, body } = await check(ollama.port);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      port: ollama.port,
      host: '127.0.0.1',
      free: false,
      current: false,
      holder: { kind: 'ollama', version: MOCK_OLLAMA_VERSION },
    });
    expect(body.message).toContain(`Port ${ollama.port} is in use by Ollama ${MOCK_OLLAMA_VERSION}`);
    expect(body.message).toMatch(
      new RegExp(`"listen_port": \\d+ in ${sb.configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it('says a port held by another program is taken, and the port stays held', async () => {
    const { body } = await check(plainPort);
    expect(body.free).toBe(false);
    expect(body.holder?.kind).not.toBe('ollama');
    expect(body.message).toMatch(new RegExp(`^Port ${plainPort} is in use by .*Stop it, or set "listen_port": \\d+`));
    // The holder was not disturbed.
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(plainPort, '127.0.0.1', () => (s.destroy(), resolve()));
      s.on('error', reject);
    });
  });

  it('says a free port is free and releases it at once; the port Switchboard is on counts as fine', async () => {
    const free = await freePort();
    expect((await check(free)).body).toEqual({
      port: free,
      host: '127.0.0.1',
      free: true,
      current: false,
      holder: null,
      message: null,
    });
    // Closed at once: the port can be bound right after the check.
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(free, '127.0.0.1', () => resolve());
    });
    await new Promise((r) => again.close(r));
    expect((await check(sb.port)).body).toMatchObject({ port: sb.port, free: true, current: true, message: null });
  });

  it('suggests a port that is free now, not the taken one after it (it used to say port + 1 unchecked)', async () => {
    const [a, b] = await holdTwoInARow();
    try {
      const { body } = await check(a.port);
      expect(body.free).toBe(false);
      const suggested = Number(/"listen_port": (\d+)/.exec(body.message ?? '')?.[1]);
      expect(suggested).not.toBe(a.port);
      expect(suggested).not.toBe(b.port);
      // It is free: it can be bound.
      const probe = await holdPort(suggested);
      await probe.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('refuses what is not a port number', async () => {
    for (const bad of ['abc', '0', '65536', '12.5', '']) {
      const { status, body } = await check(bad);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('invalid_request');
    }
  });
});
