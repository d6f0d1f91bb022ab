// Test support: a round-robin load balancer in front of several `serve` instances (as Caddy or nginx would be), a
// plain node:http proxy: each request goes to the next backend in turn, its body and its answer streamed through
// (SSE included); a backend that refuses the connection (stopped, killed) is skipped for the next one. A request that
// reached a backend which then closed without answering (killed meanwhile) goes to the next one only when it is
// idempotent: a POST or PATCH may have been acted on (a task committed before the kill), so it gets 502, as nginx's
// proxy_next_upstream does (it does not pass a non-idempotent request on once sent). It counts which backend answered
// what.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Balancer = {
  url: string;
  /** Requests answered by each backend, by its URL. */
  hits: Map<string, number>;
  close: () => Promise<void>;
};

/** Methods nginx does not pass to the next upstream once the request was sent (proxy_next_upstream non_idempotent). */
const NON_IDEMPOTENT = new Set(['POST', 'PATCH', 'LOCK']);

/** `backends()` is read at each request (a test replaces a restarted instance's URL). */
export async function startBalancer(backends: () => string[]): Promise<Balancer> {
  let next = 0;
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const list = backends();
      const tryBackend = (left: number) => {
        if (left === 0 || list.length === 0) {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'no_backend', message: 'no backend answered', details: null } }));
          return;
        }
        const target = new URL(list[next++ % list.length] as string);
        const up = http.request(
          {
            // A connection per request (nginx's default to upstreams): never a pooled one a killed backend left.
            agent: false,
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: `${target.hostname}:${target.port}` },
          },
          (answer) => {
            hits.set(target.origin, (hits.get(target.origin) ?? 0) + 1);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            res.once('close', () => answer.destroy());
          },
        );
        up.once('error', (err: NodeJS.ErrnoException) => {
          if (res.headersSent) return void res.destroy();
          // Not listening (stopped or killed): nothing reached it, the next backend, as a balancer's passive health
          // check does. Closed after the request went (ECONNRESET, "socket hang up"): it may have been acted on.
          if (err.code === 'ECONNREFUSED' || (err.code === 'ECONNRESET' && !NON_IDEMPOTENT.has(req.method ?? ''))) {
            tryBackend(left - 1);
            return;
          }
          if (err.code !== 'ECONNRESET') return void res.destroy();
          res.writeHead(502, { 'content-type': 'application/json' });
          const message = `the backend closed the connection before answering; a ${req.method} is not sent again (it may have been acted on)`;
          res.end(JSON.stringify({ error: { code: 'backend_failed', message, details: null } }));
        });
        up.end(body);
      };
      tryBackend(list.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
