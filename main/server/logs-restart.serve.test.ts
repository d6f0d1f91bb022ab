// Logs that last and are honest (issue 34, bugs 3 and 4), against the real `serve`: after a restart GET
// /admin/v1/logs answers the last requests of requests.jsonl (it answered [] while the file held 599 lines), a line
// that is not an entry is skipped; and the log is ordered by when each request started, not when it finished (a slow
// stream that started first stays first).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Entry = { id: string; time: string; requested_model: string; status: number };

let mock: MockProvider;
let sb: ServeProcess | undefined;
let dir: string;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-logs-restart-'));
  sb = await startServe({ dir, config: configFor({ mock: mock.baseUrl }, { log_requests: true }) });
}, 30_000);
shutDownAfterAll(() => [sb, mock]);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const chat = (model: string) =>
  fetch(`${sb!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.text());

const logs = async (): Promise<Entry[]> =>
  ((await (await sb!.admin('/logs?limit=1000')).json()) as { data: Entry[] }).data;

it('orders the log by when requests started: a slow request that started first stays first (bug 4)', async () => {
  mock.setBehavior({ script: [{ firstByteDelayMs: 600 }] });
  const slow = chat('slow-model');
  await new Promise((r) => setTimeout(r, 100));
  await chat('fast-model'); // starts later, finishes first
  await slow;
  const got = (await logs()).map((e) => e.requested_model);
  expect(got.slice(-2)).toEqual(['slow-model', 'fast-model']);
  const status = (await (await sb!.admin('/status')).json()) as { recent_logs: Entry[] };
  expect(status.recent_logs.map((e) => e.requested_model).slice(-2)).toEqual(['slow-model', 'fast-model']);
});

it('after a restart, GET /admin/v1/logs answers the last requests of requests.jsonl (bug 3)', async () => {
  mock.setBehavior({});
  for (let i = 0; i < 5; i++) await chat(`model-${i}`);
  const file = path.join(dir, 'requests.jsonl');
  await eventually(async () => expect((await fs.readFile(file, 'utf8')).trim().split('\n')).toHaveLength(7));
  const before = await logs();
  expect(before).toHaveLength(7);
  await sb!.stop();
  // A line that is not an entry (a hand edit) is skipped, the others shown.
  await fs.appendFile(file, '{"not": "an entry"}\nnot json at all\n');
  sb = await startServe({ dir, config: configFor({ mock: mock.baseUrl }, { log_requests: true }) });
  const after = await logs();
  expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
  expect(after.map((e) => e.requested_model)).toEqual([
    'slow-model',
    'fast-model',
    ...[0, 1, 2, 3, 4].map((i) => `model-${i}`),
  ]);
  expect(sb.stdout() + sb.stderr()).toMatch(/2 line\(s\) at its end are not request log entries; skipped/);
  // This run's requests come after them, and the file is not written twice.
  await chat('after-restart');
  await eventually(async () => expect((await logs()).at(-1)?.requested_model).toBe('after-restart'));
  expect((await logs()).length).toBe(8);
  const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
  expect(lines).toHaveLength(7 + 2 + 1);
});
