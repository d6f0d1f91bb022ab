// The request log's entry of an HTTP request through `switchboard serve`: its id and time are stamped when it is
// logged, after the reply (off the path to the first byte), yet the time is still when the request came, and every
// id is a fresh UUID.
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const SLOW_MS = 400;
let mock: MockProvider;
let sb: ServeProcess;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'slow', behavior: { firstByteDelayMs: SLOW_MS } });
  sb = await startServe({ config: configFor({ slow: mock.baseUrl }) });
}, 30_000);
shutDownAfterAll(() => [sb, mock]);

type Entry = { id: string; time: string; latency_ms: number; status: number; stream: boolean };

it('a slow reply is logged with the time its request came, a UUID of its own, and its whole latency', async () => {
  const sentAt: number[] = [];
  for (const stream of [false, true]) {
    sentAt.push(Date.now());
    const res = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  }
  const { data } = (await (await sb.admin('/logs?limit=10')).json()) as { data: Entry[] };
  const mine = data.slice(-2);
  expect(mine.map((e) => e.stream)).toEqual([false, true]);
  for (const [i, e] of mine.entries()) {
    expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(e.time).toBe(new Date(Date.parse(e.time)).toISOString());
    const at = Date.parse(e.time);
    // When the request came, not when its reply ended (SLOW_MS later).
    expect(at).toBeGreaterThanOrEqual(sentAt[i]! - 5);
    expect(at).toBeLessThan(sentAt[i]! + SLOW_MS / 2);
    expect(e.latency_ms).toBeGreaterThanOrEqual(SLOW_MS - 5);
  }
  expect(mine[0]!.id).not.toBe(mine[1]!.id);
});
