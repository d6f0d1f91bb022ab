// Snapshot files: round trip, damage detection, and what opening does with a damaged snapshot.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from './fs.ts';
import { decodeSnapshot, encodeSnapshot, SnapshotDamaged, writeSnapshot } from './snapshot.ts';
import { filesMatching, replayAll } from '../../test/support/wal/log-files.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal } from './wal.ts';

const dir = useTempDir('snapshot');

const flipLastByte = async (file: string) => {
  const bytes = await fsp.readFile(file);
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
  await fsp.writeFile(file, bytes);
};

describe('snapshot files', () => {
  it('round-trip and refuse any cut or flipped byte', () => {
    const bytes = encodeSnapshot(42, { agents: [{ id: 'agt_1' }] }, '2025-01-01T00:00:00.000Z');
    expect(decodeSnapshot(bytes, 's')).toEqual({
      seq: 42,
      data: { agents: [{ id: 'agt_1' }] },
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    for (let cut = 0; cut < bytes.length; cut++)
      expect(() => decodeSnapshot(bytes.subarray(0, cut), 's')).toThrow(SnapshotDamaged);
    for (let at = 0; at < bytes.length; at += 3) {
      const bad = Buffer.from(bytes);
      bad[at] = (bad[at] as number) ^ 0x20;
      expect(() => decodeSnapshot(bad, 's')).toThrow(SnapshotDamaged);
    }
    expect(() => decodeSnapshot(Buffer.concat([bytes, Buffer.from([0])]), 's')).toThrow(/stray bytes/);
  });

  it('a damaged newest snapshot is kept aside and the previous one is used', async () => {
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    for (let i = 1; i <= 20; i++) await wal.append([{ type: 1, data: i }]);
    await wal.compact(() => ({ seq: 10, data: 'state at 10' }));
    await wal.close();
    // As if a crash came after a newer snapshot's rename, before the older one was removed; then the newer rotted.
    await writeSnapshot(nodeFs, dir(), { seq: 15, data: 'state at 15', createdAt: new Date().toISOString() });
    await flipLastByte(path.join(dir(), 'snapshot-00000000000000000015.snap'));

    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(await again.loadSnapshot()).toMatchObject({ seq: 10, data: 'state at 10' });
    expect((await replayAll(again)).map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 11));
    expect(again.status()).toMatchObject({ corrupted_entries: 0, total_entries: 10 });
    expect(await filesMatching(dir(), /^snapshot-00000000000000000015\.snap\.damaged-/)).toHaveLength(1);
    await again.close();
  });

  it('a damaged snapshot whose segments are gone counts the records it held as corrupted', async () => {
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    for (let i = 1; i <= 20; i++) await wal.append([{ type: 1, data: i }]);
    await wal.compact(() => ({ seq: 20, data: 'state at 20' }));
    for (let i = 21; i <= 25; i++) await wal.append([{ type: 1, data: i }]);
    await wal.close();
    await flipLastByte(path.join(dir(), 'snapshot-00000000000000000020.snap'));

    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(await again.loadSnapshot()).toBeNull();
    expect((await replayAll(again)).map((r) => r.data)).toEqual([21, 22, 23, 24, 25]);
    expect(again.status()).toMatchObject({ corrupted_entries: 20, total_entries: 5, last_compaction: null });
    expect(await filesMatching(dir(), /\.damaged-/)).toHaveLength(1);
    await again.close();
  });
});
