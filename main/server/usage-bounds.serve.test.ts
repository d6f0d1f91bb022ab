// App names clients choose, through the compiled serve (issue 33, item 4): X-Switchboard-App names were kept whole (12 KB
// each, in the request log and three usage rollups kept 400 days), and every distinct name added rows. Now a name is
// cut to 64 characters wherever it is kept, and past 50 apps a day the usage store counts the rest as "other".
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRequests, UsageSummary } from '../../shared/usage.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';

let mock: MockProvider;
let tmp: TempDir;
let sb: ServeProcess;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'm', record: false });
  tmp = await makeTempDir('sb-usage-bounds');
  sb = await startServe({ dir: tmp.dir, config: configFor({ m: mock.baseUrl }) });
}, 30_000);
afterAll(async () => {
  await sb?.stop();
  await mock?.close();
  await tmp?.cleanup();
});

const chat = (headers: Record<string, string>) =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('app names clients choose', () => {
  it('a 12 KB X-Switchboard-App (or X-Title) is kept as its first 64 characters: request log, usage records, rollups', async () => {
    const long = `tool-${'x'.repeat(12 * 1024)}`;
    expect((await chat({ 'x-switchboard-app': long })).status).toBe(200);
    expect((await chat({ 'x-title': `titled-${'y'.repeat(12 * 1024)}` })).status).toBe(200);
    const logs = (await (await sb.admin('/logs?limit=2')).json()) as
      { app: string | null }[] | { data: { app: string }[] };
    const entries = Array.isArray(logs) ? logs : logs.data;
    expect(entries.map((e) => e.app)).toEqual(expect.arrayContaining([long.slice(0, 64), `titled-${'y'.repeat(57)}`]));
    const records = (await (await sb.admin('/usage/requests?limit=2')).json()) as UsageRequests;
    for (const r of records.data) expect(r.app!.length).toBe(64);
    const usage = (await (await sb.admin('/usage?range=today')).json()) as UsageSummary;
    for (const row of usage.by_app) expect(row.key.length).toBeLessThanOrEqual(64);
  });

  it('300 distinct names a day: 50 keep rows, the rest are counted as "other"; the store stays small across a restart', async () => {
    for (let i = 0; i < 300; i += 25)
      await Promise.all(
        Array.from({ length: 25 }, (_, j) => chat({ 'x-switchboard-app': `app-${i + j}-${'z'.repeat(2000)}` })),
      );
    const before = (await (await sb.admin('/usage?range=today')).json()) as UsageSummary;
    expect(before.totals.requests).toBe(302);
    await sb.stop();
    for (const g of ['minute', 'hour', 'day']) {
      const size = (await fs.stat(path.join(tmp.dir, 'data', 'usage', `rollup-${g}.jsonl`))).size;
      expect(size, g).toBeLessThan(64 * 1024);
      const text = await fs.readFile(path.join(tmp.dir, 'data', 'usage', `rollup-${g}.jsonl`), 'utf8');
      const keys = new Set(
        text
          .trimEnd()
          .split('\n')
          .flatMap((l) => (JSON.parse(l) as { keys: string[] }).keys),
      );
      const apps = new Set([...keys].map((k) => k.split('\u0001')[0]));
      expect(apps.size, g).toBeLessThanOrEqual(51 + 2); // 50 names a day, "other", the two of the test before
      expect(apps.has('other'), g).toBe(true);
    }
    sb = await startServe({ dir: tmp.dir, config: configFor({ m: mock.baseUrl }) });
    const after = (await (await sb.admin('/usage?range=today')).json()) as UsageSummary;
    expect(after.totals).toEqual(before.totals);
  }, 60_000);
});
