// Video-task affinity: alone, each instance's file answers (as before); with a shared store, a task created through
// one instance is found through another (its provider kept with a TTL), and this instance's file still answers first.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { EmbeddedBacking, EmbeddedState } from '../store/embedded.ts';
import { VideoTaskStore } from './video-tasks.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function store(): Promise<VideoTaskStore> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-video-'));
  dirs.push(dir);
  return new VideoTaskStore(path.join(dir, 'video-tasks.jsonl'));
}

it('without a shared store, another instance does not know the task', async () => {
  const [a, b] = [await store(), await store()];
  a.remember('t1', 'kling');
  expect(await a.lookup('t1')).toMatchObject({ task_id: 't1', provider: 'kling' });
  expect(await b.lookup('t1')).toBeUndefined();
});

it('with a shared store, a task created through one instance is found through another', async () => {
  const backing = new EmbeddedBacking();
  const [a, b] = [await store(), await store()];
  a.share(new EmbeddedState(backing).videos);
  b.share(new EmbeddedState(backing).videos);
  a.remember('t2', 'runway');
  await new Promise((r) => setImmediate(r));
  expect(await b.lookup('t2')).toEqual({ task_id: 't2', provider: 'runway', created_at: '' });
  expect(await b.lookup('t3')).toBeUndefined();
  // The file of the instance that created it still answers first (with its creation time).
  expect((await a.lookup('t2'))?.created_at).not.toBe('');
});
