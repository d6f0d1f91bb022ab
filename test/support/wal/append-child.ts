// Crash-test child: rebuilds its state from the log, then appends in a loop (8 writers, some multi-record appends,
// auto-compaction on) and tells the parent over IPC which ids are durable. The parent kills it with SIGKILL.
// Usage: node --import tsx append-child.ts <dir> <first id>
import { openWal } from '../../../main/wal/index.ts';
import { payloadFor, type ChildMessage, type CrashPayload } from './crash-payload.ts';

const [dir, firstId] = process.argv.slice(2);
if (!dir || !firstId || !process.send)
  throw new Error('usage: node --import tsx append-child.ts <dir> <first id> (with an IPC channel)');
const send = (message: ChildMessage) => process.send?.(message);

const wal = await openWal({ dir, segmentBytes: 16 * 1024, autoCompactBytes: 48 * 1024 });
const ids: number[] = [];
const snapshot = await wal.loadSnapshot();
let appliedSeq = snapshot?.seq ?? 0;
if (snapshot) ids.push(...(snapshot.data as { ids: number[] }).ids);
for await (const record of wal.replay()) {
  ids.push((record.data as CrashPayload).id);
  appliedSeq = record.seq;
}
wal.setSnapshotProvider(() => ({ seq: appliedSeq, data: { ids: [...ids] } }));
wal.status(); // touch it: the status must be readable at any time
send({ kind: 'ready' });

let next = Number(firstId);
async function writer(): Promise<never> {
  for (;;) {
    const batch = next % 7 === 0 ? [next, next + 1, next + 2] : [next];
    next += batch.length;
    const { lastSeq } = await wal.append(batch.map((id) => ({ type: 'put', data: payloadFor(id) })));
    ids.push(...batch);
    appliedSeq = lastSeq;
    send({ kind: 'ack', ids: batch, lastSeq });
  }
}
await Promise.all(Array.from({ length: 8 }, writer));
