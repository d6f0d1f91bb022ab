// Agent bench: (1) tasks/s through the dispatch queue (POST /agents/:id/run → WAL → worker → instant mock model →
// completed event) against the same number of plain chat completions through the router (the baseline: one model
// call each, no queue, no WAL), (2) event fan-out: events/s delivered to 100 SSE subscribers against 1 subscriber
// in the same run, and (3) long answers with their output deltas coalesced in the WAL (orchestrator.event_flush_ms,
// default 50) against one WAL record per delta (event_flush_ms: 0, the mode before issue 16): WAL records per answer
// and tasks/s, each mode on its own Switchboard in the same run. Switchboard runs in this process on a temp folder;
// the mock provider answers at once.
// Run: node --import tsx bench/agents.ts   (AGENTS_BENCH_TASKS, default 300; AGENTS_BENCH_ANSWERS, default 40 answers
// of AGENTS_BENCH_TOKENS, default 1000 deltas, for (3))
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Switchboard } from '../main/app.ts';
import { createKey, keysFile } from '../main/orchestrator/keys.ts';
import { openEvents } from '../test/support/agent-api.ts';
import { startMockProvider } from '../test/support/mock-provider.ts';
import { configFor } from '../test/support/serve-process.ts';

const CONCURRENCY = 16;

async function pool(n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await op(next++);
    }),
  );
}

type Bench = {
  sb: Switchboard;
  api: string;
  post: (p: string, body: unknown) => Promise<any>;
  key: string;
  close: () => Promise<void>;
};

/** A Switchboard in this process on a temp folder, its agent API and a key; `orchestrator` adds to the bench's own. */
async function startBench(mockUrl: string, orchestrator: Record<string, unknown> = {}): Promise<Bench> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'switchboard-agents-bench-'));
  const configPath = path.join(dir, 'config.json');
  const own = { queue_capacity: 100_000, workers: 8, run_window_ms: 0, event_retention: 1_000_000 };
  const config = configFor({ mock: mockUrl }, { log_requests: false, orchestrator: { ...own, ...orchestrator } });
  await fs.writeFile(configPath, JSON.stringify(config));
  const { key } = await createKey(keysFile(dir), 'bench');
  const sb = new Switchboard({ configPath, port: 0 });
  await sb.start();
  const api = `${sb.url}/api/v1`;
  const post = (p: string, body: unknown) =>
    fetch(`${api}${p}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<any>);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await sb.stop();
      await fs.rm(dir, { recursive: true, force: true });
    })());
  return { sb, api, post, key, close };
}

type LongAnswers = { recordsPerAnswer: number; tasksPerSec: number };

/** `answers` tasks of `tokens` deltas each, waited for with ?wait=true: WAL records per answer, and tasks/s. */
async function longAnswers(mockUrl: string, flushMs: number, answers: number, tokens: number): Promise<LongAnswers> {
  const b = await startBench(mockUrl, { event_flush_ms: flushMs });
  try {
    const agents: string[] = [];
    for (let i = 0; i < answers; i++) agents.push((await b.post('/agents', { name: `l${i}`, model: 'mock-model' })).id);
    const seq0 = b.sb.wal.info().lastSeq;
    const start = performance.now();
    await pool(answers, 8, async (i) => {
      const done = await b.post(`/agents/${agents[i]}/run?wait=true&timeout_s=300`, { message: 'talk' });
      if (done.status !== 'completed') throw new Error(`a long answer ended ${done.status}: ${done.error}`);
      if ((done.result as string).length < tokens) throw new Error('a long answer came back short');
    });
    const seconds = (performance.now() - start) / 1000;
    return { recordsPerAnswer: (b.sb.wal.info().lastSeq - seq0) / answers, tasksPerSec: answers / seconds };
  } finally {
    await b.close();
  }
}

export async function main(): Promise<{ table: string; pass: boolean; rows: Record<string, number> }> {
  const tasks = Number(process.env.AGENTS_BENCH_TASKS ?? 300);
  const answers = Number(process.env.AGENTS_BENCH_ANSWERS ?? 40);
  const tokens = Number(process.env.AGENTS_BENCH_TOKENS ?? 1000);
  const mock = await startMockProvider({ name: 'mock', record: false });
  const { sb, api, post, key, close } = await startBench(mock.baseUrl);
  try {
    const agents: string[] = [];
    for (let i = 0; i < tasks; i++) agents.push((await post('/agents', { name: `b${i}`, model: 'mock-model' })).id);

    // Baseline: the same number of chat completions through the router, same concurrency.
    const t0 = performance.now();
    await pool(tasks, CONCURRENCY, async () => {
      const r = await fetch(`${sb.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await r.arrayBuffer();
    });
    const chatPerSec = tasks / ((performance.now() - t0) / 1000);

    // Tasks through the queue, counted done at their completed event; 1 subscriber.
    const runAll = async (subscribers: number) => {
      const streams = await Promise.all(Array.from({ length: subscribers }, () => openEvents(`${api}/events`, key)));
      const start = performance.now();
      await pool(tasks, CONCURRENCY, async (i) => void (await post(`/agents/${agents[i]}/run`, { message: 'hi' })));
      await streams[0]!.waitFor((e) => e.filter((x) => x.type === 'completed').length >= tasks, 120_000);
      await Promise.all(
        streams.map((s) => s.waitFor((e) => e.filter((x) => x.type === 'completed').length >= tasks, 120_000)),
      );
      const seconds = (performance.now() - start) / 1000;
      const delivered = streams.reduce((n, s) => n + s.events.length, 0);
      for (const s of streams) s.close();
      return { tasksPerSec: tasks / seconds, eventsPerSec: delivered / seconds };
    };
    const one = await runAll(1);
    const hundred = await runAll(100);
    await close();

    // Long answers: the same work with one WAL record per delta (the old mode), then coalesced.
    mock.setBehavior({ tokens: Array.from({ length: tokens }, (_, i) => `w${i} `) });
    const perDelta = await longAnswers(mock.baseUrl, 0, answers, tokens);
    const coalesced = await longAnswers(mock.baseUrl, 50, answers, tokens);
    mock.setBehavior({});
    const rows = {
      chat_per_sec: chatPerSec,
      tasks_per_sec: one.tasksPerSec,
      tasks_vs_chat: one.tasksPerSec / chatPerSec,
      events_per_sec_1_subscriber: one.eventsPerSec,
      events_per_sec_100_subscribers: hundred.eventsPerSec,
      fanout_gain: hundred.eventsPerSec / one.eventsPerSec,
      tasks_per_sec_with_100_subscribers: hundred.tasksPerSec,
      records_per_answer_per_delta: perDelta.recordsPerAnswer,
      records_per_answer_coalesced: coalesced.recordsPerAnswer,
      records_ratio: coalesced.recordsPerAnswer / perDelta.recordsPerAnswer,
      long_tasks_per_sec_per_delta: perDelta.tasksPerSec,
      long_tasks_per_sec_coalesced: coalesced.tasksPerSec,
      long_tasks_gain: coalesced.tasksPerSec / perDelta.tasksPerSec,
    };
    const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
    const table = [
      `Agent bench: ${tasks} tasks, ${CONCURRENCY} concurrent submitters, 8 workers, instant mock model`,
      '',
      '| measure | baseline | agents | ratio |',
      '|---|--:|--:|--:|',
      `| tasks/s through the queue vs chat completions/s through the router | ${f(chatPerSec)} | ${f(one.tasksPerSec)} | ${one.tasksPerSec / chatPerSec >= 0.01 ? (one.tasksPerSec / chatPerSec).toFixed(2) : '<0.01'}× |`,
      `| events/s delivered: 100 SSE subscribers vs 1 | ${f(one.eventsPerSec)} | ${f(hundred.eventsPerSec)} | ${(hundred.eventsPerSec / one.eventsPerSec).toFixed(1)}× |`,
      `| tasks/s with 100 subscribers vs 1 | ${f(one.tasksPerSec)} | ${f(hundred.tasksPerSec)} | ${(hundred.tasksPerSec / one.tasksPerSec).toFixed(2)}× |`,
      '',
      `Long answers: ${answers} tasks of ${tokens} output deltas, 8 at once; baseline: one WAL record per delta (event_flush_ms 0, before issue 16), agents: deltas coalesced (event_flush_ms 50)`,
      '',
      '| measure | one record per delta | coalesced | ratio |',
      '|---|--:|--:|--:|',
      `| WAL records per answer | ${f(perDelta.recordsPerAnswer)} | ${f(coalesced.recordsPerAnswer)} | ${rows.records_ratio.toFixed(3)}× |`,
      `| tasks/s | ${f(perDelta.tasksPerSec)} | ${f(coalesced.tasksPerSec)} | ${rows.long_tasks_gain.toFixed(2)}× |`,
    ].join('\n');
    return { table, pass: true, rows };
  } finally {
    await close();
    await mock.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main()
    .then((r) => console.log(r.table))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
