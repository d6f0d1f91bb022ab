import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { identifyOnce } from './connection-cache.ts';
import { listen } from './real-connection.test-helper.ts';

describe('identifyOnce', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  /** Two real client connections to one server; resolves with the server-side sockets. */
  async function acceptTwoConnections(): Promise<[net.Socket, net.Socket]> {
    const server = await listen('127.0.0.1');
    const { port } = server.address() as net.AddressInfo;
    const accepted: net.Socket[] = [];
    const both = new Promise<void>((resolve) =>
      server.on('connection', (socket) => {
        accepted.push(socket);
        if (accepted.length === 2) resolve();
      }),
    );
    const clients = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
    await both;
    cleanups.push(() => {
      [...clients, ...accepted].forEach((socket) => socket.destroy());
      server.close();
    });
    return [accepted[0]!, accepted[1]!];
  }

  it('runs the lookup once per socket for concurrent and later calls', async () => {
    const [socket] = await acceptTwoConnections();
    let calls = 0;
    const lookup = async (): Promise<string> => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 'code';
    };
    const concurrent = await Promise.all([
      identifyOnce(socket, lookup),
      identifyOnce(socket, lookup),
      identifyOnce(socket, lookup),
    ]);
    expect(concurrent).toEqual(['code', 'code', 'code']);
    expect(await identifyOnce(socket, lookup)).toBe('code');
    expect(calls).toBe(1);
  });

  it('keeps a separate lookup for each connection', async () => {
    const [first, second] = await acceptTwoConnections();
    let calls = 0;
    const lookup = async (): Promise<number> => ++calls;
    expect(await identifyOnce(first, lookup)).toBe(1);
    expect(await identifyOnce(second, lookup)).toBe(2);
    expect(await identifyOnce(first, lookup)).toBe(1);
  });

  it('shares a failed lookup instead of retrying it on the same connection', async () => {
    const [socket] = await acceptTwoConnections();
    let calls = 0;
    const lookup = (): Promise<string> => {
      calls++;
      throw new Error('lookup failed');
    };
    await expect(identifyOnce(socket, lookup)).rejects.toThrow('lookup failed');
    await expect(identifyOnce(socket, lookup)).rejects.toThrow('lookup failed');
    expect(calls).toBe(1);
  });
});
