// An appending child process is killed with SIGKILL at random moments, many times; every append it reported as
// acknowledged (over IPC) must be in the log after each reopen, intact and in order.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { payloadFor, type ChildMessage, type CrashPayload } from '../../test/support/wal/crash-payload.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal } from './wal.ts';

const CHILD = fileURLToPath(new URL('../../test/support/wal/append-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 20;

const dir = useTempDir('sigkill');

/** A small seeded generator, so a failing run can be repeated (the seed is in the failure message). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

interface Round {
  acked: number[];
  signal: NodeJS.Signals | null;
  stderr: string;
  ready: boolean;
}

function runChild(firstId: number, killAfterReadyMs: number | null, killAfterSpawnMs: number): Promise<Round> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [dir(), String(firstId)], {
      cwd: REPO,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const round: Round = { acked: [], signal: null, stderr: '', ready: false };
    child.stderr?.on('data', (chunk: Buffer) => (round.stderr += chunk.toString()));
    const kill = () => child.kill('SIGKILL');
    // Some rounds die at any moment from the start (also while the child recovers the log), the others while appending.
    const early = killAfterReadyMs === null ? setTimeout(kill, killAfterSpawnMs) : null;
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'ready') {
        round.ready = true;
        if (killAfterReadyMs !== null) setTimeout(kill, killAfterReadyMs);
      } else round.acked.push(...message.ids);
    });
    const safety = setTimeout(kill, 10_000);
    child.on('close', (_code, signal) => {
      if (early) clearTimeout(early);
      clearTimeout(safety);
      round.signal = signal;
      resolve(round);
    });
  });
}

it(`keeps every acknowledged append across ${ROUNDS} SIGKILLs at random moments`, async () => {
  const seed = Number(process.env.WAL_CRASH_SEED ?? Date.now() % 1_000_000);
  const rand = random(seed);
  const acknowledged = new Set<number>();
  let firstId = 1;
  let readyRounds = 0;
  let roundsWithSnapshot = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const early = rand() < 0.2;
    const result = await runChild(firstId, early ? null : Math.floor(20 + rand() * 250), Math.floor(rand() * 700));
    const context = `seed ${seed}, round ${round}; child stderr:\n${result.stderr}`;
    expect(result.signal, context).toBe('SIGKILL');
    if (result.ready) readyRounds += 1;
    for (const id of result.acked) acknowledged.add(id);
    firstId += 1_000_000; // ids of different rounds never collide

    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    const present = new Set<number>();
    const snapshot = await wal.loadSnapshot();
    if (snapshot) roundsWithSnapshot += 1;
    for (const id of (snapshot?.data as { ids: number[] } | undefined)?.ids ?? []) present.add(id);
    let lastSeq = snapshot?.seq ?? 0;
    for await (const record of wal.replay()) {
      const payload = record.data as CrashPayload;
      expect(payload, context).toEqual(payloadFor(payload.id)); // intact
      expect(record.seq, context).toBeGreaterThan(lastSeq); // in order
      expect(present.has(payload.id), context).toBe(false); // once
      lastSeq = record.seq;
      present.add(payload.id);
    }
    const missing = [...acknowledged].filter((id) => !present.has(id));
    expect(missing, context).toEqual([]);
    expect(wal.status().corrupted_entries, context).toBe(0);
    await wal.close();
  }
  expect(readyRounds).toBeGreaterThan(ROUNDS / 2);
  expect(acknowledged.size).toBeGreaterThan(500);
  expect(roundsWithSnapshot).toBeGreaterThan(0); // the children compacted too, so kills also hit compactions
  console.info(
    `SIGKILL test: seed ${seed}, ${acknowledged.size} acknowledged appends, ${readyRounds}/${ROUNDS} rounds killed while appending`,
  );
});
