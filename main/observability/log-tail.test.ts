import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { readLogTail } from './log-tail.ts';
import { RequestLog } from './request-log.ts';

const entry = (i: number, ms = i * 1000): RequestLogEntry => ({
  id: `id-${i}`,
  time: new Date(Date.UTC(2025, 0, 2) + ms).toISOString(),
  method: 'POST',
  path: '/v1/chat/completions',
  app: 'curl',
  app_source: 'user-agent',
  requested_model: `m${i}`,
  routed_model: `m${i}`,
  provider: 'p',
  route: 'default',
  attempts: [{ provider: 'p', status: 200, error: null, latency_ms: 3 }],
  status: 200,
  error_code: null,
  stream: false,
  latency_ms: 3,
  ttfb_ms: 2,
  prompt_tokens: 10,
  completion_tokens: 2,
});
const jsonl = (entries: RequestLogEntry[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

let tmp: TempDir | null = null;
afterEach(async () => {
  await tmp?.cleanup();
  tmp = null;
});

describe('the tail of requests.jsonl (read back at start)', () => {
  it('answers the newest entries, ordered by start time; lines that are not entries are skipped and counted', async () => {
    tmp = await makeTempDir('sb-log-tail');
    const file = path.join(tmp.dir, 'requests.jsonl');
    // Written as they finished: 3 started before 2.
    const lines = [entry(1), entry(3, 1500), entry(2, 2000)].map((e) => JSON.stringify(e));
    await fs.writeFile(file, [...lines, '{"id": 5}', 'garbage', ''].join('\n'));
    const tail = await readLogTail(file, 10);
    expect(tail.entries.map((e) => e.id)).toEqual(['id-1', 'id-3', 'id-2']);
    expect(tail.skipped).toBe(2);
    expect(tail.entries[0]).toEqual(entry(1));
  });

  it('reads the rolled-over file too when the current one holds fewer than asked', async () => {
    tmp = await makeTempDir('sb-log-tail');
    const file = path.join(tmp.dir, 'requests.jsonl');
    await fs.writeFile(`${file}.1`, jsonl([1, 2, 3, 4].map((i) => entry(i))));
    await fs.writeFile(file, jsonl([entry(5)]));
    expect((await readLogTail(file, 3)).entries.map((e) => e.id)).toEqual(['id-3', 'id-4', 'id-5']);
    expect((await readLogTail(path.join(tmp.dir, 'none.jsonl'), 3)).entries).toEqual([]);
  });

  it('reads only the end of a large file: a line cut by where reading starts is dropped, not counted', async () => {
    tmp = await makeTempDir('sb-log-tail');
    const file = path.join(tmp.dir, 'requests.jsonl');
    const many = Array.from({ length: 12_000 }, (_, i) => entry(i));
    await fs.writeFile(file, jsonl(many));
    const tail = await readLogTail(file, 1000);
    expect(tail.entries).toHaveLength(1000);
    expect(tail.entries.at(-1)!.id).toBe('id-11999');
    expect(tail.skipped).toBe(0);
  });

  it("restored entries go before this run's, to no subscriber; the log view reads them by start time", () => {
    const log = new RequestLog(5);
    const seen: string[] = [];
    log.subscribe((e) => seen.push(e.id));
    log.restore([entry(1), entry(2)]);
    log.add(entry(4, 4000));
    log.add(entry(3, 3000)); // started before 4, finished after
    log.deliver();
    expect(seen).toEqual(['id-4', 'id-3']);
    expect(log.recent().map((e) => e.id)).toEqual(['id-1', 'id-2', 'id-4', 'id-3']);
    expect(log.recentByStart().map((e) => e.id)).toEqual(['id-1', 'id-2', 'id-3', 'id-4']);
  });

  it("keeps every field an entry has: the gateway's key, the team's instance, the guard's record, a replay's origin", async () => {
    tmp = await makeTempDir('sb-log-tail');
    const file = path.join(tmp.dir, 'requests.jsonl');
    const full: RequestLogEntry = {
      ...entry(1),
      session: 's-1',
      key: 'alice',
      instance: 'host-a:11434',
      guard: { policy: 'redact', action: 'redacted', found: [{ rule: 'aws-access-key-id', count: 1 }] },
      replay_of: 'id-0',
      captured: true,
    };
    await fs.writeFile(file, jsonl([full]));
    const tail = await readLogTail(file, 10);
    expect(tail.entries).toEqual([full]);
  });
});
