// Test support: an OpenAI-style realtime WebSocket provider at /v1/realtime. It greets with session.created,
// echoes text and binary messages, closes with 4001 on "close-4001", drops the connection on "crash", and can
// refuse the handshake with an HTTP status (failover tests). Every handshake is recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export type RealtimeHandshake = { url: string; headers: http.IncomingHttpHeaders; protocols: string[] };

export type MockRealtime = {
  baseUrl: string;
  handshakes: RealtimeHandshake[];
  /** Close codes the mock saw from its clients. */
  closes: number[];
  /** Refuse handshakes with this HTTP status (0: accept). */
  refuseStatus: number;
  close: () => Promise<void>;
};

export async function startMockRealtime(name: string): Promise<MockRealtime> {
  const state: MockRealtime = { baseUrl: '', handshakes: [], closes: [], refuseStatus: 0, close: async () => {} };
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });
  server.on('upgrade', (req, socket, head) => {
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    state.handshakes.push({ url: req.url ?? '', headers: req.headers, protocols });
    if (state.refuseStatus) {
      socket.end(`HTTP/1.1 ${state.refuseStatus} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(
        JSON.stringify({
          type: 'session.created',
          provider: name,
          model: new URL(req.url ?? '/', 'http://x').searchParams.get('model'),
        }),
      );
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '' : data.toString();
        if (text === 'close-4001') return ws.close(4001, 'bye from mock');
        if (text === 'crash') return ws.terminate();
        if (isBinary) ws.send(data, { binary: true });
        else ws.send(JSON.stringify({ type: 'echo', data: text }));
      });
      ws.on('close', (code) => state.closes.push(code));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
