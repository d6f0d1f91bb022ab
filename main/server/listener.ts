// The HTTP listener: binds listen_port, rebinds on a port change, and turns EADDRINUSE into a helpful error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { PortInUseError, identifyPortHolder, portConflictMessage } from './port-conflict.ts';

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export class Listener {
  private server: http.Server | null = null;
  port = 0;
  host = '127.0.0.1';

  constructor(
    private readonly handler: RequestHandler,
    private readonly configPath: string,
  ) {}

  get url(): string {
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${h}:${this.port}`;
  }

  /** Binds; on EADDRINUSE rejects with a PortInUseError that says who holds the port and how to fix it. */
  async listen(port: number, host: string): Promise<void> {
    const server = http.createServer({ keepAliveTimeout: 30_000, requestTimeout: 300_000 }, this.handler);
    // WebSocket upgrades go to the handler's `upgrade` (the realtime proxy), or are refused.
    const upgrade = (this.handler as { upgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void })
      .upgrade;
    server.on('upgrade', (req, socket, head) => {
      if (!upgrade) return void socket.destroy();
      upgradedSockets.add(socket);
      socket.once('close', () => upgradedSockets.delete(socket));
      upgrade(req, socket, head);
    });
    server.headersTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(err);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve();
      });
    }).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        const holder = await identifyPortHolder(port, host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
        throw new PortInUseError(port, holder, portConflictMessage(port, holder, this.configPath));
      }
      throw err;
    });
    const old = this.server;
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.host = host;
    if (old) await closeServer(old);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await closeServer(s);
  }
}

/** Sockets handed to the upgrade handler (open WebSocket sessions). */
const upgradedSockets = new Set<Duplex>();

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Streams in flight get a moment to finish; then every connection is cut so close() never hangs.
    setTimeout(() => {
      server.closeAllConnections();
      for (const s of upgradedSockets) s.destroy(); // WebSockets are not the HTTP server's to close
    }, 2_000).unref();
  });
}
