// Disk full and EIO through an injected file system: typed errors, status, the log stays readable and heals.
import fsp from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { toApiError } from '../errors.ts';
import { WalError } from './errors.ts';
import { FaultyFs } from '../../test/support/wal/fs-faults.ts';
import { replayAll, segmentFiles } from '../../test/support/wal/log-files.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal, type WalLog } from './wal.ts';

const dir = useTempDir('faults');

async function logWithFive(faulty: FaultyFs): Promise<WalLog> {
  const wal = await openWal({ dir: dir(), fs: faulty, autoCompactBytes: 0 });
  for (let i = 1; i <= 5; i++) await wal.append([{ type: 'ok', data: { i } }]);
  return wal;
}

async function reopenedData(): Promise<unknown[]> {
  const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
  const data = (await replayAll(wal)).map((r) => r.data);
  expect(wal.status().corrupted_entries).toBe(0);
  await wal.close();
  return data;
}

/** Once the fault is cleared: the next append gets seq 6, and the reopened log holds records 1 to 6. */
async function expectHealed(wal: WalLog, faulty: FaultyFs): Promise<void> {
  faulty.clear();
  expect((await wal.append([{ type: 'ok', data: { i: 6 } }])).firstSeq).toBe(6);
  await wal.close();
  expect(await reopenedData()).toEqual([1, 2, 3, 4, 5, 6].map((i) => ({ i })));
}

describe('write faults', () => {
  it('disk full: every append of the batch is rejected with WalError disk_full (HTTP 503 wal_error); the log heals when space is back', async () => {
    const faulty = new FaultyFs();
    const wal = await logWithFive(faulty);
    faulty.fail({ op: 'write', code: 'ENOSPC', partialBytes: 50 }); // a short write, then ENOSPC

    const settled = await Promise.allSettled([1, 2, 3].map((i) => wal.append([{ type: 'lost', data: { i } }])));
    for (const result of settled) {
      expect(result.status).toBe('rejected');
      const err = (result as PromiseRejectedResult).reason as WalError;
      expect(err).toBeInstanceOf(WalError);
      expect(err).toMatchObject({ code: 'disk_full' });
      expect(toApiError(err)).toMatchObject({ status: 503, code: 'wal_error', action: err.action });
      expect(err.message).toMatch(/disk is full/);
      expect(err.action).toContain(dir());
    }
    expect(wal.status()).toMatchObject({ total_entries: 5, pending_entries: 0, buffer_usage: 0, corrupted_entries: 0 });
    expect(wal.info().fault?.code).toBe('disk_full');

    // Still readable while faulted; still failing while the disk is full.
    expect((await replayAll(wal)).map((r) => r.data)).toEqual([1, 2, 3, 4, 5].map((i) => ({ i })));
    await expect(wal.append([{ type: 'lost', data: { i: 4 } }])).rejects.toMatchObject({ code: 'disk_full' });

    faulty.clear();
    expect(await wal.append([{ type: 'ok', data: { i: 6 } }])).toEqual({ firstSeq: 6, lastSeq: 6 });
    expect(wal.info().fault).toBeNull();
    await wal.close();
    expect(await reopenedData()).toEqual([1, 2, 3, 4, 5, 6].map((i) => ({ i }))); // the half-written batch was cut off
  });

  it('EIO on fsync: the fsync is not retried on the same descriptor; the file is reopened, cut back and read back', async () => {
    const faulty = new FaultyFs();
    const wal = await logWithFive(faulty);
    const [segment] = await segmentFiles(dir());
    const sizeBefore = (await fsp.stat(segment as string)).size;
    faulty.fail({ op: 'datasync', code: 'EIO', times: 1 });

    const err = await wal.append([{ type: 'lost', data: { i: 99 } }]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'io_error' });
    expect(toApiError(err)).toMatchObject({ status: 503, code: 'wal_error' });
    expect((err as WalError).message).toMatch(/fsync of wal-.*EIO/);
    // The bytes reached the page cache, but they were never acknowledged.
    expect((await fsp.stat(segment as string)).size).toBeGreaterThan(sizeBefore);

    const mark = faulty.calls.length;
    expect(await wal.append([{ type: 'ok', data: { i: 6 } }])).toEqual({ firstSeq: 6, lastSeq: 6 });
    const healing = faulty.calls.slice(mark).map((c) => c.op);
    // close the old descriptor, reopen, check the size, cut back, fsync, read back; only then write the new batch
    expect(healing).toEqual(['close', 'open', 'size', 'truncate', 'datasync', 'readFile', 'write', 'datasync']);
    await wal.close();
    expect(await reopenedData()).toEqual([1, 2, 3, 4, 5, 6].map((i) => ({ i })));
  });

  it('while the disk keeps failing (even reopening), appends fail fast with WalError; they succeed once it clears', async () => {
    const faulty = new FaultyFs();
    const wal = await logWithFive(faulty);
    faulty.fail({ op: ['write', 'open', 'datasync'], code: 'EIO' });
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => wal.append([{ type: 'lost', data: {} }])),
      );
      expect(results.every((r) => r.status === 'rejected' && (r.reason as WalError).code === 'io_error')).toBe(true);
      expect(wal.status()).toMatchObject({ pending_entries: 0, total_entries: 5 });
    }
    expect(wal.status().last_compaction).toBeNull();
    await expectHealed(wal, faulty);
  });

  it('a failure to start a new segment is a fault like any other, and no records are lost', async () => {
    const faulty = new FaultyFs();
    const wal = await openWal({ dir: dir(), fs: faulty, segmentBytes: 300, autoCompactBytes: 0 });
    const acknowledged: number[] = [];
    faulty.fail({ op: 'syncDir', code: 'EIO', times: 1 });
    for (let i = 1; i <= 20; i++) {
      try {
        await wal.append([{ type: 'x', data: { i } }]);
        acknowledged.push(i);
      } catch (err) {
        expect(err).toMatchObject({ code: 'io_error' });
      }
    }
    expect(acknowledged.length).toBe(19);
    await wal.close();
    expect(await reopenedData()).toEqual(acknowledged.map((i) => ({ i })));
  });

  it('a failed compaction is reported as WalError and leaves the log as it was', async () => {
    const faulty = new FaultyFs();
    const wal = await logWithFive(faulty);
    faulty.fail({ op: 'rename', code: 'ENOSPC' });
    await expect(wal.compact(() => ({ seq: 5, data: 'state' }))).rejects.toMatchObject({
      name: 'WalError',
      code: 'disk_full',
    });
    expect(wal.status()).toMatchObject({ last_compaction: null, total_entries: 5 });
    await expectHealed(wal, faulty);
  });

  it('replay reports a read failure as WalError', async () => {
    const faulty = new FaultyFs();
    const wal = await logWithFive(faulty);
    faulty.fail({ op: 'readFile', code: 'EIO', times: 1 });
    await expect(replayAll(wal)).rejects.toMatchObject({ name: 'WalError', code: 'io_error' });
    expect(await replayAll(wal)).toHaveLength(5);
    await wal.close();
  });
});
