// The listener's own guards through `switchboard serve`, over real sockets (issue 13, item 8): at most
// max_connections open at once (a new one beyond is closed at once, the log says why; a freed slot serves again; a
// reload applies to the next connections), and headers that never finish arriving are cut after body_idle_timeout_ms.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const IDLE_MS = 1_500;
const config = (maxConnections: number) => ({
  ...configFor({}, { default_provider: '' }),
  max_connections: maxConnections,
  body_idle_timeout_ms: IDLE_MS,
});

let sb: ServeProcess;
beforeAll(async () => {
  sb = await startServe({ config: config(3) });
}, 30_000);
afterAll(() => sb?.stop());

type Probe = { socket: net.Socket; closed: Promise<{ afterMs: number; data: string }> };

/** A connection that sends nothing (or `send`): resolves `closed` when the server closes it. */
async function connect(send = ''): Promise<Probe> {
  const t0 = Date.now();
  const socket = net.connect(sb.port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; data: string }>((r) =>
    socket.once('close', () => r({ afterMs: Date.now() - t0, data })),
  );
  await new Promise<void>((r) => socket.once('connect', () => r()));
  if (send) socket.write(send);
  return { socket, closed };
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]);

describe('max_connections', () => {
  it('a connection beyond the cap is closed at once; the log says why; a freed slot serves again', async () => {
    const held = [await connect(), await connect(), await connect()];
    try {
      await new Promise((r) => setTimeout(r, 100));
      const extra = await connect();
      const fate = await within(extra.closed, 1_000);
      expect(fate).not.toBe('open');
      expect((fate as { data: string }).data).toBe('');
      await eventually(() => expect(sb.stderr()).toMatch(/"level":40[^\n]*max_connections/));
      for (const h of held) expect(await within(h.closed, 50)).toBe('open');

      held[0]!.socket.destroy();
      await held[0]!.closed;
      const res = await fetch(`${sb.url}/api/version`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
    } finally {
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
    }
  });

  it('a reload of config.json applies to the next connections', async () => {
    await sb.writeConfig(config(5));
    await eventually(() => expect(sb.stdout() + sb.stderr()).toMatch(/config reloaded/));
    const held: Probe[] = [];
    try {
      for (let i = 0; i < 5; i++) held.push(await connect());
      await new Promise((r) => setTimeout(r, 100));
      for (const h of held) expect(await within(h.closed, 50)).toBe('open');
      const extra = await connect();
      expect(await within(extra.closed, 1_000)).not.toBe('open');
    } finally {
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
    }
  });
});

describe('body_idle_timeout_ms', () => {
  it('headers that stop arriving: the connection is closed after the idle time, with no answer', async () => {
    // The server has seen the earlier tests' connections close: a request gets through.
    await eventually(async () =>
      expect((await fetch(`${sb.url}/api/version`, { headers: { connection: 'close' } })).ok).toBe(true),
    );
    const slow = await connect(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\n`);
    const fate = await within(slow.closed, IDLE_MS + 3_000);
    expect(fate).not.toBe('open');
    expect((fate as { afterMs: number }).afterMs).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect((fate as { data: string }).data).toBe('');
  });
});
