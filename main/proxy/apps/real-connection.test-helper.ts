// Test helper: a real local server plus a child `node` process connected to it, for the OS lookup tests.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { SocketPair } from './types.ts';

export type RealConnection = {
  server: net.Server;
  /** Our end of the connection, as accepted by the server. */
  socket: net.Socket;
  pair: SocketPair;
  child: ChildProcess;
  close(): Promise<void>;
};

/** Listens on `listenHost`:0 and has a child process connect to it via `connectHost`; resolves on accept. */
export async function connectChildProcess(listenHost: string, connectHost: string): Promise<RealConnection> {
  const server = await listen(listenHost);
  const { port } = server.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const script = `require('node:net').connect(${port}, ${JSON.stringify(connectHost)}).on('error', () => process.exit(1)); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  const socket = await accepted;
  return {
    server,
    socket,
    child,
    pair: {
      localAddress: socket.localAddress!,
      localPort: socket.localPort!,
      remoteAddress: socket.remoteAddress!,
      remotePort: socket.remotePort!,
    },
    async close() {
      child.kill('SIGKILL');
      socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export function listen(host: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

/** Whether this machine can listen on `host` (e.g. `::1` is missing where IPv6 is disabled). */
export async function canListenOn(host: string): Promise<boolean> {
  try {
    const server = await listen(host);
    await new Promise((resolve) => server.close(resolve));
    return true;
  } catch {
    return false;
  }
}
