// The floor and the child-process harness: the floor must be a faithful pass-through, or every ratio lies.
import OpenAI from 'openai';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../test/support/mock-provider.ts';
import { startChild, type BenchChild } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let mock: MockProvider;
let floor: BenchChild;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'upstream' });
  floor = await startChild(
    'floor',
    [
      '--import',
      'tsx',
      path.join('bench', 'floor.ts'),
      '--port',
      '0',
      '--upstream',
      mock.baseUrl,
      '--key',
      'sk-provider',
    ],
    { cwd: ROOT },
  );
  client = new OpenAI({ baseURL: `http://127.0.0.1:${floor.port}/v1`, apiKey: 'sk-client', maxRetries: 0 });
});
afterAll(async () => {
  await floor?.stop();
  await mock?.close();
});

it('forwards a chat request with the provider key in place of the client key', async () => {
  const reply = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(reply.choices[0]?.message.content).toBe('Hello from upstream');
  const seen = mock.requests.at(-1)!;
  expect(seen.url).toBe('/v1/chat/completions');
  expect(seen.headers.authorization).toBe('Bearer sk-provider');
  expect(seen.body).toMatchObject({ model: 'gpt-4o-mini' });
});

it('passes a stream through chunk by chunk', async () => {
  mock.setBehavior({ chunkDelayMs: 40 });
  const stream = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  });
  const receivedAt: number[] = [];
  let text = '';
  for await (const chunk of stream) {
    receivedAt.push(performance.now());
    text += chunk.choices[0]?.delta.content ?? '';
  }
  expect(text).toBe('Hello from upstream');
  expect(receivedAt[0]!).toBeLessThan(mock.sentChunksAt.at(-1)!);
  mock.setBehavior({});
});

it('passes upstream errors through with their status', async () => {
  mock.setBehavior({ status: 429, failTimes: 1 });
  await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toBeInstanceOf(
    OpenAI.RateLimitError,
  );
  await expect(client.chat.completions.create({ model: 'm', messages: [] })).resolves.toBeTruthy();
});

it('reads the child process CPU time and peak memory from /proc', () => {
  expect(floor.cpuMicros()).toBeGreaterThan(0);
  expect(floor.peakRssMiB()).toBeGreaterThan(10);
});

it('reports the output of a child that exits before listening', async () => {
  await expect(
    startChild('floor', ['--import', 'tsx', path.join('bench', 'floor.ts'), '--port', '0'], { cwd: ROOT }),
  ).rejects.toThrow(/floor did not start: exited with code 1[\s\S]*--upstream is required/);
});

it('stops a child and waits for its exit', async () => {
  const other = await startChild(
    'floor',
    ['--import', 'tsx', path.join('bench', 'floor.ts'), '--port', '0', '--upstream', mock.baseUrl],
    { cwd: ROOT },
  );
  await other.stop();
  expect(other.process.exitCode !== null || other.process.signalCode !== null).toBe(true);
  expect(other.cpuMicros()).toBeNull();
});
