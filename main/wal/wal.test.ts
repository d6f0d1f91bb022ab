// The log's API: appends, replay, group commit, the bounded buffer, status, the folder lock.
import { spawn } from 'node:child_process';
import { identityText, parseIdentity, selfIdentity } from './owner.ts';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalError } from './errors.ts';
import { FaultyFs } from '../../test/support/wal/fs-faults.ts';
import { replayAll, segmentFiles } from '../../test/support/wal/log-files.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { defaultWalDir, openWal } from './wal.ts';

const dir = useTempDir('wal');

const datasyncs = (faulty: FaultyFs) => faulty.calls.filter((c) => c.op === 'datasync').length;

describe('append and replay', () => {
  it('gives consecutive seqs and replays every type of data after a reopen', async () => {
    const wal = await openWal({ dir: dir() });
    expect(await wal.append([{ type: 'a', data: { x: 1 } }])).toEqual({ firstSeq: 1, lastSeq: 1 });
    expect(
      await wal.append([
        { type: 2, data: Buffer.from('bytes') },
        { type: 'c', data: 'text' },
      ]),
    ).toEqual({ firstSeq: 2, lastSeq: 3 });
    expect(await wal.append([])).toEqual({ firstSeq: 4, lastSeq: 3 });
    await wal.close();

    const again = await openWal({ dir: dir() });
    const records = await replayAll(again);
    expect(records.map(({ seq, type }) => ({ seq, type }))).toEqual([
      { seq: 1, type: 'a' },
      { seq: 2, type: 2 },
      { seq: 3, type: 'c' },
    ]);
    expect(records[0]?.data).toEqual({ x: 1 });
    expect((records[1]?.data as Buffer).toString()).toBe('bytes');
    expect(records[2]?.data).toBe('text');
    expect((await again.append([{ type: 'd', data: 1 }])).firstSeq).toBe(4);
    await again.close();
  });

  it('rejects a record it cannot store without touching the log', async () => {
    const wal = await openWal({ dir: dir() });
    await expect(
      wal.append([
        { type: 'ok', data: 1 },
        { type: -3, data: 1 },
      ]),
    ).rejects.toThrow(RangeError);
    expect(wal.status().pending_entries).toBe(0);
    expect((await wal.append([{ type: 'ok', data: 1 }])).firstSeq).toBe(1);
    await wal.close();
  });

  it('rolls segments past segmentBytes and replays across them', async () => {
    const wal = await openWal({ dir: dir(), segmentBytes: 1000 });
    for (let i = 0; i < 50; i++) await wal.append([{ type: 1, data: `record ${i}`.padEnd(60, '.') }]);
    expect((await segmentFiles(dir())).length).toBe(5); // 10 frames of 92 bytes fit in 1000
    expect((await replayAll(wal)).map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await wal.close();
  });

  it('is closed after close(): appends are rejected with WalError', async () => {
    const wal = await openWal({ dir: dir() });
    const pending = wal.append([{ type: 1, data: 'flushed by close' }]);
    await wal.close();
    await expect(pending).resolves.toEqual({ firstSeq: 1, lastSeq: 1 });
    await expect(wal.append([{ type: 1, data: 'late' }])).rejects.toMatchObject({ name: 'WalError', code: 'closed' });
  });
});

describe('group commit', () => {
  it('concurrent appends share one write and one fdatasync', async () => {
    const faulty = new FaultyFs();
    const wal = await openWal({ dir: dir(), fs: faulty });
    const before = datasyncs(faulty);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => wal.append([{ type: 1, data: { i } }])));
    expect(datasyncs(faulty) - before).toBe(1);
    expect(results.map((r) => r.firstSeq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1)); // in call order
    await wal.close();
  });

  it('appends made while an fsync runs share the next one', async () => {
    const faulty = new FaultyFs();
    const wal = await openWal({ dir: dir(), fs: faulty });
    const before = datasyncs(faulty);
    const first = wal.append([{ type: 1, data: 'first' }]);
    await new Promise((r) => setImmediate(r)); // the first batch is now being written
    const rest = Array.from({ length: 50 }, (_, i) => wal.append([{ type: 1, data: i }]));
    await Promise.all([first, ...rest]);
    expect(datasyncs(faulty) - before).toBe(2);
    await wal.close();
  });

  it('groupCommitDelayMs holds a partly filled buffer for that long', async () => {
    const faulty = new FaultyFs();
    const wal = await openWal({ dir: dir(), fs: faulty, groupCommitDelayMs: 150 });
    const before = datasyncs(faulty);
    const a = wal.append([{ type: 1, data: 'a' }]);
    await new Promise((r) => setTimeout(r, 20));
    const b = wal.append([{ type: 1, data: 'b' }]);
    await Promise.all([a, b]);
    expect(datasyncs(faulty) - before).toBe(1);
    await wal.close();
  });

  it('bounds the buffer: appends past it wait their turn, in order; status shows usage and pending', async () => {
    const faulty = new FaultyFs();
    const wal = await openWal({ dir: dir(), fs: faulty, bufferBytes: 1000 });
    const record = { type: 1, data: Buffer.alloc(200) }; // 232-byte frames: 4 fit in 1000 bytes
    const before = datasyncs(faulty);
    const appends = Array.from({ length: 10 }, () => wal.append([record]));
    const status = wal.status();
    expect(status.pending_entries).toBe(10);
    expect(status.buffer_usage).toBeCloseTo(928 / 1000);
    expect(status.total_entries).toBe(0);
    const results = await Promise.all(appends);
    expect(results.map((r) => r.firstSeq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(datasyncs(faulty) - before).toBe(3); // 4 + 4 + 2
    expect(wal.status()).toMatchObject({ pending_entries: 0, buffer_usage: 0, total_entries: 10 });
    await wal.close();
  });

  it('takes an append larger than the buffer as a batch of its own', async () => {
    const wal = await openWal({ dir: dir(), bufferBytes: 100 });
    const big = Buffer.alloc(5000, 1);
    const [small, large] = await Promise.all([
      wal.append([{ type: 1, data: 'x' }]),
      wal.append([{ type: 2, data: big }]),
    ]);
    expect(small.firstSeq).toBe(1);
    expect(large.firstSeq).toBe(2);
    const records = await replayAll(wal);
    expect(Buffer.compare(records[1]?.data as Buffer, big)).toBe(0);
    await wal.close();
  });
});

describe('folder and lock', () => {
  it('defaults to data/ beside config.json', () => {
    expect(defaultWalDir('/home/u/.config/switchboard/config.json')).toBe('/home/u/.config/switchboard/data');
  });

  it('one open log per folder in a process', async () => {
    const wal = await openWal({ dir: dir() });
    await expect(openWal({ dir: dir() })).rejects.toMatchObject({ code: 'locked' });
    await wal.close();
    const again = await openWal({ dir: dir() });
    await again.close();
  });

  it('refuses a folder locked by a live process and takes over the lock of a dead one', async () => {
    await fsp.writeFile(path.join(dir(), 'wal.lock'), `${process.ppid}\n`); // alive: our parent
    const err = await openWal({ dir: dir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WalError);
    expect((err as WalError).message).toContain(String(process.ppid));
    await fsp.writeFile(path.join(dir(), 'wal.lock'), '4194303\n'); // above any pid Linux hands out by default
    const wal = await openWal({ dir: dir() });
    expect(parseIdentity(await fsp.readFile(path.join(dir(), 'wal.lock'), 'utf8'))).toEqual(selfIdentity());
    await wal.close();
    await expect(fsp.stat(path.join(dir(), 'wal.lock'))).rejects.toThrow();
  });

  // Issue 35: a restart right after kill -9 found the dead process's pid still "alive" and exited on the lock.
  it('takes over the lock of a zombie (killed, not yet reaped): kill(pid, 0) says alive, /proc says Z', async () => {
    const z = await zombie();
    try {
      expect(() => process.kill(z.pid, 0)).not.toThrow(); // what the check alone used to go by
      await fsp.writeFile(path.join(dir(), 'wal.lock'), `${z.pid}\n`);
      const wal = await openWal({ dir: dir() });
      await wal.close();
    } finally {
      z.stop();
    }
  });

  it('takes over a lock whose pid now belongs to another process (another start time), and keeps a live owner’s', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = other.pid as number;
      const live = selfIdentity();
      // The pid of a live process, written by a process that started at another time: the pid was reused.
      await fsp.writeFile(path.join(dir(), 'wal.lock'), identityText({ pid, start: '1', boot: live.boot }));
      const wal = await openWal({ dir: dir() });
      await wal.close();
      // The same pid with its real start time is its own lock: refused.
      const start = (await fsp.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[19]!;
      await fsp.writeFile(path.join(dir(), 'wal.lock'), identityText({ pid, start, boot: live.boot }));
      await expect(openWal({ dir: dir() })).rejects.toMatchObject({ code: 'locked' });
      // From an earlier boot: not this process, whatever its pid.
      await fsp.writeFile(path.join(dir(), 'wal.lock'), identityText({ pid, start, boot: 'an-earlier-boot' }));
      await (await openWal({ dir: dir() })).close();
    } finally {
      other.kill('SIGKILL');
    }
  });
});

/**
 * A zombie: `sh` starts a short `sleep` in the background and then becomes a long `sleep` (exec), which never waits
 * for its child; the short one exits and stays a zombie until the long one is killed.
 */
async function zombie(): Promise<{ pid: number; stop: () => void }> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d))));
  for (let i = 0; i < 200; i++) {
    const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { pid, stop: () => parent.kill('SIGKILL') };
}
