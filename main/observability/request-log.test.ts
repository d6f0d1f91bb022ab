import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { isoTime } from './iso-time.ts';
import { addSecretSource } from './redact.ts';
import { RequestLog } from './request-log.ts';

const entry = (i: number): RequestLogEntry => ({
  id: String(i),
  time: new Date(0).toISOString(),
  method: 'POST',
  path: '/v1/chat/completions',
  app: null,
  app_source: null,
  requested_model: `m${i}`,
  routed_model: `m${i}`,
  provider: 'p',
  route: 'default',
  attempts: [],
  status: 200,
  error_code: null,
  stream: false,
  latency_ms: 1,
  ttfb_ms: 1,
  prompt_tokens: null,
  completion_tokens: null,
});

let tmp: TempDir | null = null;
afterEach(async () => {
  await tmp?.cleanup();
  tmp = null;
});

describe('RequestLog', () => {
  it('keeps the last N entries in order', () => {
    const log = new RequestLog(3);
    for (let i = 1; i <= 5; i++) log.add(entry(i));
    expect(log.recent().map((e) => e.id)).toEqual(['3', '4', '5']);
    expect(log.recent(2).map((e) => e.id)).toEqual(['4', '5']);
  });

  it('tells subscribers about each new entry, those of one event-loop turn together after it, in order', async () => {
    const log = new RequestLog(3);
    const seen: string[] = [];
    const off = log.subscribe((e) => seen.push(e.id));
    log.add(entry(1));
    log.add(entry(2));
    expect(log.recent().map((e) => e.id)).toEqual(['1', '2']); // in the ring at once
    expect(seen).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['1', '2']);
    log.add(entry(3));
    log.deliver(); // now, for a reader that needs them (usage summaries, budgets)
    expect(seen).toEqual(['1', '2', '3']);
    off();
    log.add(entry(4));
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['1', '2', '3']);
  });

  it("lets a served request's entry die young once delivered: the ring keeps its values, not the object", async () => {
    // Under load an entry held by the ring outlived two scavenges and was promoted (docs/PERFORMANCE.md, session 29).
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const log = new RequestLog(10);
    const seen: string[] = [];
    log.subscribe((e) => seen.push(e.id));
    const ms = Date.UTC(2026, 10, 27, 5, 30, 0, 12);
    let e: RequestLogEntry | null = {
      ...entry(1),
      id: randomUUID(),
      time: isoTime(ms),
      attempts: [{ provider: 'p', status: 200, error: null, latency_ms: 1 }],
    };
    const id = e.id;
    const kept = JSON.stringify(e);
    const object = new WeakRef(e);
    log.add(e);
    e = null;
    await new Promise((r) => setImmediate(r)); // delivered; and a WeakRef holds its target until this job ends
    expect(seen).toEqual([id]);
    gc();
    expect(object.deref()).toBeUndefined();
    expect(JSON.stringify(log.recent())).toBe(`[${kept}]`);
  });

  it('keeps giving an entry to the other subscribers when one throws, and logs it', async () => {
    const log = new RequestLog(3);
    const seen: string[] = [];
    log.subscribe(() => {
      throw new Error('broken subscriber');
    });
    log.subscribe((e) => seen.push(e.id));
    log.subscribe((e) => seen.push(`second ${e.id}`));
    log.add(entry(1));
    log.add(entry(2));
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['1', 'second 1', '2', 'second 2']);
  });

  it('writes JSONL with size-based rotation when enabled', async () => {
    tmp = await makeTempDir('sb-log-');
    const file = path.join(tmp.dir, 'requests.jsonl');
    const log = new RequestLog(10);
    log.configureFile({ enabled: true, file, maxBytes: 1000, keep: 2 });
    for (let i = 0; i < 20; i++) log.add(entry(i));
    log.closeFile();
    await new Promise((r) => setTimeout(r, 100));
    const files = fs.readdirSync(tmp.dir).sort();
    expect(files).toEqual(['requests.jsonl', 'requests.jsonl.1', 'requests.jsonl.2']);
    for (const f of files) expect(fs.statSync(path.join(tmp.dir, f)).size).toBeLessThanOrEqual(1000);
    const last = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestLogEntry);
    expect(last.at(-1)!.id).toBe('19');
  });

  it('scrubs secrets from attempt errors before the ring, subscribers and the file see them', async () => {
    tmp = await makeTempDir('sb-log-');
    const file = path.join(tmp.dir, 'requests.jsonl');
    const key = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const forget = addSecretSource(() => [key]);
    try {
      const log = new RequestLog(10);
      log.configureFile({ enabled: true, file, maxBytes: 1_000_000, keep: 1 });
      const seen: string[] = [];
      log.subscribe((e) => seen.push(JSON.stringify(e)));
      const e = entry(1);
      e.attempts = [
        { provider: 'p', status: 503, error: `HTTP 503: bad key ${key}`, latency_ms: 1 },
        { provider: 'q', status: 200, error: null, latency_ms: 1 },
      ];
      log.add(e);
      log.closeFile();
      for (const text of [JSON.stringify(log.recent()), ...seen, fs.readFileSync(file, 'utf8')]) {
        expect(text).not.toContain(key);
        expect(text).toContain('HTTP 503: bad key [redacted]');
      }
    } finally {
      forget();
    }
  });

  it('stamps its instance on each entry (store "redis"), kept in the ring as a column; none otherwise', async () => {
    const log = new RequestLog(10);
    const seen: RequestLogEntry[] = [];
    log.subscribe((e) => seen.push(e));
    log.add(entry(1));
    log.instance = 'host-a:11434';
    const keyed = entry(2);
    keyed.key = 'alice';
    log.add(keyed);
    log.deliver();
    const [first, second] = log.recent();
    expect(first).not.toHaveProperty('instance');
    expect(first).not.toHaveProperty('key');
    expect(second).toMatchObject({ key: 'alice', instance: 'host-a:11434' });
    expect(seen[1]).toMatchObject({ key: 'alice', instance: 'host-a:11434' });
  });
});
