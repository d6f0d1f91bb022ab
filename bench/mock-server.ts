// The mock provider in its own process, so its CPU never mixes with the proxy's under measurement.
// node --import tsx bench/mock-server.ts [--port 0] [--name mock] [--behavior '<MockBehavior JSON>']
// Prints `listening on http://127.0.0.1:<port>`. With an IPC channel, {type:'setBehavior', behavior} changes the
// behaviour and is answered {type:'behaviorSet'}; the process exits when its parent disconnects.
import { parseArgs } from 'node:util';
import { startMockProvider, type MockBehavior } from '../test/support/mock-provider.ts';

export type MockServerMessage = { type: 'setBehavior'; behavior: MockBehavior };

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    name: { type: 'string', default: 'mock' },
    behavior: { type: 'string' },
  },
});
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
