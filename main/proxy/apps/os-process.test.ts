import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bareAppName, findListeningProcess, lookupClientProcess } from './os-process.ts';
import { canListenOn, connectChildProcess, listen, type RealConnection } from './real-connection.test-helper.ts';

// Generous limit for the real lookups so a loaded CI machine does not turn into a flaky test;
// the default (250 ms) is what the router uses.
const timeoutMs = 5000;

// The native implementation always runs; on Linux the lsof-based macOS implementation runs too when lsof
// is installed, against real lsof output.
const lsofInstalled = spawnSync('lsof', ['-v']).error === undefined;
const implementations: NodeJS.Platform[] =
  process.platform === 'linux' && lsofInstalled ? ['linux', 'darwin'] : [process.platform];

describe.each(implementations)('real sockets (%s implementation)', (platform) => {
  let connection: RealConnection | undefined;
  let server: net.Server | undefined;
  afterEach(async () => {
    await connection?.close();
    if (server) await new Promise((resolve) => server!.close(resolve));
    connection = server = undefined;
  });

  it('finds the child process on the other end of an IPv4 loopback connection', async () => {
    connection = await connectChildProcess('127.0.0.1', '127.0.0.1');
    const found = await lookupClientProcess(connection.pair, { timeoutMs, platform });
    expect(found?.pid).toBe(connection.child.pid);
    expect(bareAppName(found?.name ?? '')).toBe('node');
  });

  it('finds the client over IPv6 ::1, or returns null where IPv6 loopback is unavailable', async () => {
    if (await canListenOn('::1')) {
      connection = await connectChildProcess('::1', '::1');
      expect(connection.pair.remoteAddress).toBe('::1');
      const found = await lookupClientProcess(connection.pair, { timeoutMs, platform });
      expect(found?.pid).toBe(connection.child.pid);
      expect(bareAppName(found?.name ?? '')).toBe('node');
    } else {
      const pair = { localAddress: '::1', localPort: 11434, remoteAddress: '::1', remotePort: 52350 };
      expect(await lookupClientProcess(pair, { timeoutMs, platform })).toBeNull();
    }
  });

  it('finds an IPv4 client of a dual-stack server that sees it as ::ffff:127.0.0.1', async () => {
    const dualStack = await canListenOn('::');
    connection = await connectChildProcess(dualStack ? '::' : '0.0.0.0', '127.0.0.1');
    if (dualStack) expect(connection.pair.remoteAddress).toBe('::ffff:127.0.0.1');
    const found = await lookupClientProcess(connection.pair, { timeoutMs, platform });
    expect(found?.pid).toBe(connection.child.pid);
  });

  it('returns null for a connection that no longer exists', async () => {
    connection = await connectChildProcess('127.0.0.1', '127.0.0.1');
    const { pair } = connection;
    await connection.close();
    connection = undefined;
    expect(
      await lookupClientProcess(
        { ...pair, remotePort: pair.remotePort === 65535 ? 1 : pair.remotePort + 1 },
        { timeoutMs, platform },
      ),
    ).toBeNull();
  });

  it('finds this test process listening on a port', async () => {
    server = await listen('127.0.0.1');
    const { port } = server.address() as net.AddressInfo;
    const found = await findListeningProcess(port, { timeoutMs, platform });
    expect(found?.pid).toBe(process.pid);
    expect(bareAppName(found?.name ?? '')).toBe('node');
  });

  it('returns null for a port nobody listens on', async () => {
    const probe = await listen('127.0.0.1');
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    expect(await findListeningProcess(port, { timeoutMs, platform })).toBeNull();
  });

  it('is bounded by timeoutMs: 1 ms gives null quickly, without throwing or leaving commands running', async () => {
    connection = await connectChildProcess('127.0.0.1', '127.0.0.1');
    const started = performance.now();
    const found = await lookupClientProcess(connection.pair, { timeoutMs: 1, platform });
    expect(found).toBeNull();
    expect(performance.now() - started).toBeLessThan(100);
    if (process.platform === 'linux') await expectNoChildCommands(['lsof']);
  });
});

describe('lookupClientProcess without I/O', () => {
  it('returns null for a non-loopback client before doing any I/O', async () => {
    const pair = { localAddress: '192.168.1.20', localPort: 11434, remoteAddress: '192.168.1.50', remotePort: 52344 };
    const lookup = lookupClientProcess(pair);
    const nextTick = new Promise((resolve) => setImmediate(() => resolve('event loop turned')));
    expect(await Promise.race([lookup, nextTick])).toBeNull();
    expect(await lookupClientProcess({ ...pair, remoteAddress: '::ffff:10.0.0.5' })).toBeNull();
  });

  it('returns null for an unsupported platform or a destroyed socket’s undefined addresses', async () => {
    const pair = { localAddress: '127.0.0.1', localPort: 11434, remoteAddress: '127.0.0.1', remotePort: 52344 };
    expect(await lookupClientProcess(pair, { platform: 'aix' })).toBeNull();
    const destroyed = {
      ...pair,
      remoteAddress: undefined as unknown as string,
      remotePort: undefined as unknown as number,
    };
    expect(await lookupClientProcess(destroyed)).toBeNull();
    expect(await findListeningProcess(0)).toBeNull();
    expect(await findListeningProcess(70000)).toBeNull();
  });
});

/** Waits until none of this process's children run one of `commands` (Linux /proc). */
async function expectNoChildCommands(commands: string[], waitMs = 2000): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    const running = await childCommands();
    if (!running.some((command) => commands.includes(command))) return;
    if (Date.now() > until) throw new Error(`still running: ${running.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function childCommands(): Promise<string[]> {
  const commands: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ..." — comm may contain spaces, so split after the last ')'.
    const match = /^\d+ \((.*)\) \S+ (\d+)/s.exec(stat);
    if (match && Number(match[2]) === process.pid) commands.push(match[1]!);
  }
  return commands;
}
