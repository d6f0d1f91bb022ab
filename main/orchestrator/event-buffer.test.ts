// Output deltas coalesced on their way to the WAL: a few records for many deltas, each delta still its own event
// (own id, content, time) published in order once durable; drain() before any other record keeps the task's order.
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal } from '../wal/index.ts';
import { EventBuffer } from './event-buffer.ts';
import { EmbeddedStore as OrchestratorStore } from './store/embedded.ts';

const dir = useTempDir('event-buffer');
const delta = (content: string) =>
  ({ type: 'output', task_id: 'tsk_1', agent_id: 'agt_1', tenant: 't', workflow_id: null, content }) as const;

describe('EventBuffer', () => {
  it('writes 3,000 deltas in a handful of records, publishing each in order, and drains before the next record', async () => {
    const wal = await openWal({ dir: dir() });
    const store = new OrchestratorStore(wal, () => 100_000);
    await store.load();
    const seen: string[] = [];
    store.subscribe((e) => seen.push((e as { content?: string }).content ?? e.type));
    const before = wal.status().total_entries;
    const buffer = new EventBuffer(store, 50);
    for (let i = 0; i < 3000; i++) {
      buffer.add(delta(`t${i} `));
      if (i % 500 === 0) await new Promise((r) => setTimeout(r, 1)); // the model pauses now and then
    }
    await buffer.drain();
    await store.commit(
      store.event({ type: 'completed', task_id: 'tsk_1', agent_id: 'agt_1', tenant: 't', workflow_id: null }),
    );
    const records = wal.status().total_entries - before;
    expect(records).toBeLessThanOrEqual(20);
    expect(seen).toHaveLength(3001);
    expect(seen.slice(0, 3)).toEqual(['t0 ', 't1 ', 't2 ']);
    expect(seen.at(-1)).toBe('completed');
    expect(store.events.map((e) => e.id)).toEqual(Array.from({ length: 3001 }, (_, i) => i + 1));
    await wal.close();
  });

  it('publishes only once durable, and a failed flush fails the next drain and add', async () => {
    const failure = new Error('disk full');
    let commits = 0;
    const store = {
      eventBatch: (list: unknown[]) => ({ type: 'events', data: list }) as never,
      commit: () => {
        commits++;
        return Promise.reject(failure);
      },
    };
    const buffer = new EventBuffer(store, 10);
    buffer.add(delta('a'));
    await expect(buffer.drain()).rejects.toBe(failure);
    expect(commits).toBe(1);
    expect(() => buffer.add(delta('b'))).toThrow(failure);
  });

  it("takeRest waits for the flush under way and hands back the deltas after it, for the task's end batch", async () => {
    const wal = await openWal({ dir: dir() });
    const store = new OrchestratorStore(wal, () => 1000);
    await store.load();
    const buffer = new EventBuffer(store, 50);
    buffer.add(delta('a')); // the first delta after a pause: flushed at once (next turn)
    await new Promise((r) => setImmediate(r));
    buffer.add(delta('b')); // while that flush is on its way
    buffer.add(delta('c'));
    const rest = await buffer.takeRest();
    expect(rest.map((e) => (e as { content?: string }).content)).toEqual(['b', 'c']);
    expect(store.events.map((e) => (e as { content?: string }).content)).toEqual(['a']); // durable before takeRest ends
    await store.commit(store.eventBatch(rest));
    await new Promise((r) => setTimeout(r, 80)); // no timer left behind to flush them twice
    expect(store.events.map((e) => (e as { content?: string }).content)).toEqual(['a', 'b', 'c']);
    await buffer.drain();
    await wal.close();
  });
});
