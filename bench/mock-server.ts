// The mock provider in its own process, so its CPU never mixes with the proxy's under measurement.
// node --import tsx bench/mock-server.ts [--port 0] [--name mock] [--behavior '<MockBehavior JSON>'] [--kind anthropic]
// `--kind anthropic`: an Anthropic Messages server that reads each request whole and answers one fixed short message
// (bench/guard.ts: what a provider costs is not what is measured).
// Prints `listening on http://127.0.0.1:<port>`. With an IPC channel, {type:'setBehavior', behavior} changes the
// behaviour and is answered {type:'behaviorSet'}; the process exits when its parent disconnects.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startMockProvider, type MockBehavior } from '../test/support/mock-provider.ts';

export type MockServerMessage = { type: 'setBehavior'; behavior: MockBehavior };

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    name: { type: 'string', default: 'mock' },
    behavior: { type: 'string' },
    kind: { type: 'string', default: 'openai' },
  },
});
if (values.kind === 'anthropic') {
  const reply = JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [{ type: 'text', text: 'OK' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 25000, output_tokens: 2 },
  });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
  await new Promise(() => {});
}
const mock = await startMockProvider({
  name: values.name,
  port: Number(values.port),
  behavior: values.behavior ? (JSON.parse(values.behavior) as MockBehavior) : {},
  record: false,
});
console.log(`listening on http://127.0.0.1:${mock.port}`);

if (process.send) {
  process.on('message', (msg: MockServerMessage) => {
    if (msg.type !== 'setBehavior') return;
    mock.setBehavior(msg.behavior);
    process.send?.({ type: 'behaviorSet' });
  });
  process.on('disconnect', () => void mock.close().then(() => process.exit(0)));
}
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, () => void mock.close().then(() => process.exit(0)));
