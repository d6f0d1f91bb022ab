// The write-ahead log: durable, group-committed, crash-safe storage for the orchestrator's state.
//
//   const wal = await openWal({ dir, segmentBytes?, bufferBytes?, groupCommitDelayMs?, autoCompactBytes?, fs?, onError? })
//   const snap = await wal.loadSnapshot()            // {seq, data, createdAt} | null: the owner's last saved state
//   for await (const r of wal.replay()) apply(r)     // {seq, type, data} for every durable record after snap.seq
//   const { firstSeq, lastSeq } = await wal.append([{ type: 'task.created', data: {...} }])   // resolves when fsynced
//   wal.setSnapshotProvider(() => ({ seq: appliedSeq, data: state }))   // used by auto-compaction and compact()
//   await wal.compact()                              // POST /api/v1/wal/compact
//   wal.status()                                     // {total_entries, pending_entries, corrupted_entries, buffer_usage, last_compaction}
//   await wal.close()
//
// Behaviour decided here:
// - Records: type is a string (1-255 UTF-8 bytes) or an integer 0..2^32-1; data is bytes (Buffer/Uint8Array, replayed
//   as a Buffer), a string, or any JSON value (replayed parsed). Seqs start at 1, are given when the batch is written,
//   and increase by 1 per record. A bad type or data throws (rejects) a TypeError/RangeError: a caller bug, not a 503.
// - append() resolves only after write + fdatasync. Appends in one event-loop turn, and those made while an fsync
//   runs, share the next fsync (group commit). The buffer is bounded (bufferBytes): past it, appends wait their turn.
//   Each record is framed on its own: after a crash, a prefix of an unacknowledged multi-record append may remain.
//   An owner that needs several changes to be all-or-nothing puts them in one record.
// - A failed write or fsync rejects every append of that batch with WalError (code disk_full or io_error; the server
//   answers 503 wal_error). The next append reopens the segment, cuts it back to the last acknowledged byte, fsyncs,
//   reads it back and goes on if that works; the fsync that failed is never retried. Replay keeps working meanwhile.
//   A rejected append's records are not in the log (even if the write reached the disk, they are cut off).
// - Open: a torn tail (a record cut by a crash, never acknowledged) is cut off and not counted. A damaged record
//   (bad checksum or length) anywhere else is counted in corrupted_entries and skipped; reading resyncs on the next
//   valid header, so every good record after it is read. The damaged file is kept as `<name>.damaged-<UTC time>`
//   and replaced by a copy holding its good records. The missing seqs stay missing, so corrupted_entries keeps
//   counting them at each open until a compaction covers them. A damaged last record that is whole (not cut short)
//   counts as damaged, not torn.
// - Compaction: the provider's seq must be the last acknowledged record its state includes. The snapshot is written
//   temp + fsync + rename + fsync folder; then segments wholly ≤ seq and older snapshots are removed. A crash at any
//   step loses nothing acknowledged. Auto-compaction runs after a batch once the segments pass autoCompactBytes.
// - total_entries counts durable records after the last snapshot (what a restart replays); last_compaction is the
//   snapshot's time, also after a restart. One process per folder (wal.lock holds its pid; a dead owner's lock is
//   taken over).
// - Files in the folder: wal-<first seq>.log (segments), snapshot-<seq>.snap, wal.lock, *.damaged-* (kept for you).
//   A batch never spans two segments, so a segment can pass segmentBytes by one batch.
// - Record format and recovery rules: framing.ts (header) and scan.ts; compaction steps: compaction.ts.

export { openWal, defaultWalDir, DEFAULTS, WalLog } from './wal.ts';
export type { WalOptions, WalStatus, WalInfo } from './wal.ts';
export type { AppendResult } from './committer.ts';
export type { AppendRecord, WalRecord, RecordType } from './framing.ts';
export type { SnapshotInput, SnapshotProvider, CompactionResult } from './compaction.ts';
export type { Snapshot } from './snapshot.ts';
export type { RecoveryReport } from './recovery.ts';
export { WalError, isWalError } from './errors.ts';
export type { WalErrorCode } from './errors.ts';
export { nodeFs } from './fs.ts';
export type { WalFs, WalFile, OpenMode } from './fs.ts';
