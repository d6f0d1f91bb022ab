// Agent bench (issue 17's agents target): tasks/s through the dispatch queue with an instant model and a durable WAL.
// Three processes, so that what is measured is Switchboard alone: Switchboard runs from the compiled build as a child
// (`switchboard serve`, its WAL in a temp folder on the machine's disk, fsynced), the mock provider (it answers at
// once) is a second child, and this process is the client. Measured, interleaved in rounds (medians):
//   (1) tasks/s: POST /agents/:id/run → durable queued task → worker → instant mock model → durable completed task,
//       counted done at its `completed` event on one SSE stream, against chat completions/s through the same
//       router (one model call each, no queue, no WAL), same client, same concurrency; and Switchboard's CPU per
//       task and per chat completion (utime + stime of its process);
//   (2) event fan-out: events/s delivered to 100 SSE subscribers against 1 in the same run;
//   (3) long answers with their output deltas coalesced in the WAL (orchestrator.event_flush_ms, default 50) against
//       one WAL record per delta (event_flush_ms 0, the mode before issue 16): WAL records per answer and tasks/s,
//       each mode on its own Switchboard;
//   (4) the orchestrator's two stores (issue 35): tasks/s and CPU per task with the embedded store (the WAL, fsynced)
//       against the Redis store (a real redis-server on loopback, append-only with appendfsync always: as durable),
//       each on its own Switchboard, rounds interleaved; Redis's own CPU per task (INFO cpu) beside it;
//   (5) retention (issue 35): the state's memory per 10,000 finished tasks run, and its load time at start, with
//       orchestrator.retention off against its default (10,000 finished tasks kept), in this process on the store's
//       own classes (a WAL of 30,000 finished tasks as the executor writes them, loaded once each way).
// Run: npm run bench -- agents. Knobs: AGENTS_BENCH_TASKS (default 2000 per round), AGENTS_BENCH_ROUNDS (5),
// AGENTS_BENCH_CONCURRENCY (client requests at once, 64), AGENTS_BENCH_WORKERS (orchestrator.workers, 64; the config's
// default is 4), AGENTS_BENCH_ANSWERS (40) answers of AGENTS_BENCH_TOKENS (1000) deltas for (3);
// AGENTS_BENCH_PROFILE=<dir> starts the main Switchboard with --cpu-prof into that folder and runs only task rounds;
// AGENTS_BENCH_PROFILE_REDIS=<dir> profiles the Switchboard on the Redis store the same way (its task rounds only).
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { createKey, keysFile } from '../main/orchestrator/keys.ts';
import { startRedis, type TestRedis } from '../test/support/redis.ts';
import { retentionMemory, type RetentionMemory } from './agents-retention.ts';
import type { MockBehavior } from '../test/support/mock-provider.ts';
import { configFor } from '../test/support/serve-process.ts';
import { nodeArgs, startChild, type BenchChild } from './processes.ts';
import { check, type TargetCheck } from './targets.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_TASKS_PER_SEC = 2000;
const WORKERS = Number(process.env.AGENTS_BENCH_WORKERS ?? 64);
const AGENTS = 64;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** `n` operations, `concurrency` at once; `slot` (0..concurrency-1) says which of the concurrent callers runs it. */
async function pool(n: number, concurrency: number, op: (i: number, slot: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, slot) => {
      while (next < n) await op(next++, slot);
    }),
  );
}

/** A lean client (node:http, keep-alive): the client's own cost per request stays small and the same on both sides. */
class Client {
  private readonly agent: http.Agent;
  constructor(
    private readonly port: number,
    private readonly key: string,
    sockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  request(method: string, p: string, body?: unknown): Promise<{ status: number; text: string }> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path: p,
          agent: this.agent,
          headers: {
            'x-api-key': this.key,
            ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }

  async json(method: string, p: string, body?: unknown, want = 200): Promise<any> {
    const r = await this.request(method, p, body);
    if (r.status !== want) throw new Error(`${method} ${p} answered ${r.status}: ${r.text.slice(0, 500)}`);
    return JSON.parse(r.text);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** GET /api/v1/events, counting frames (and `completed` frames) as they arrive, without parsing their JSON. */
class EventCounter {
  frames = 0;
  completed = 0;
  private tail = '';
  private waiting: { n: number; resolve: () => void } | null = null;
  private req: http.ClientRequest | null = null;

  static async open(port: number, key: string): Promise<EventCounter> {
    const c = new EventCounter();
    await new Promise<void>((resolve, reject) => {
      c.req = http.get(
        { host: '127.0.0.1', port, path: '/api/v1/events', headers: { 'x-api-key': key, accept: 'text/event-stream' } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`GET /api/v1/events answered ${res.statusCode}`));
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => c.take(chunk));
          res.on('error', () => {});
          resolve();
        },
      );
      c.req.on('error', reject);
    });
    return c;
  }

  private take(chunk: string): void {
    const text = this.tail + chunk;
    let at = 0;
    for (;;) {
      const i = text.indexOf('\nevent: ', at);
      if (i === -1) break;
      const end = text.indexOf('\n', i + 8);
      if (end === -1) break;
      this.frames++;
      if (text.startsWith('completed', i + 8) && end === i + 17) this.completed++;
      at = end;
    }
    this.tail = text.slice(Math.max(at, text.length - 64));
    if (this.waiting && this.completed >= this.waiting.n) {
      const w = this.waiting;
      this.waiting = null;
      w.resolve();
    }
  }

  untilCompleted(n: number, timeoutMs: number): Promise<void> {
    if (this.completed >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${this.completed} of ${n} tasks completed within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting = {
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }

  close(): void {
    this.req?.destroy();
  }
}

type Sb = { child: BenchChild; client: Client; key: string; agents: string[]; dir: string };

/** A compiled Switchboard child on a temp folder (its WAL on this machine's disk), a key, and `agents` agents. */
async function startSwitchboard(
  mockUrl: string,
  orchestrator: Record<string, unknown>,
  agents: number,
  extraNodeArgs: string[] = [],
  store: Record<string, unknown> = { kind: 'embedded' },
): Promise<Sb> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'switchboard-agents-bench-'));
  const configPath = path.join(dir, 'config.json');
  const own = { queue_capacity: 100_000, workers: WORKERS, run_window_ms: 0, event_retention: 10_000 };
  const config = configFor(
    { mock: mockUrl },
    { log_requests: false, store, orchestrator: { ...own, ...orchestrator } },
  );
  await fs.writeFile(configPath, JSON.stringify(config));
  const { key } = await createKey(keysFile(dir), 'bench');
  const args = [...extraNodeArgs, ...nodeArgs('switchboard', ['serve', '--config', configPath, '--port', '0'])];
  const child = await startChild('switchboard', args, { cwd: ROOT, timeoutMs: 60_000 });
  const client = new Client(child.port, key, 256);
  const ids: string[] = [];
  for (let i = 0; i < agents; i++)
    ids.push((await client.json('POST', '/api/v1/agents', { name: `b${i}`, model: 'mock-model' }, 201)).id);
  return { child, client, key, agents: ids, dir };
}

async function stopSwitchboard(sb: Sb): Promise<void> {
  sb.client.close();
  await sb.child.stop(10_000);
  await fs.rm(sb.dir, { recursive: true, force: true });
}

type Side = { perSec: number; cpuMicrosEach: number };

/** `n` chat completions through the router, `concurrency` at once. */
async function chatRound(sb: Sb, n: number, concurrency: number): Promise<Side> {
  const body = { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] };
  const cpu0 = sb.child.cpuMicros() ?? 0;
  const t0 = performance.now();
  await pool(n, concurrency, async () => {
    const r = await sb.client.request('POST', '/v1/chat/completions', body);
    if (r.status !== 200) throw new Error(`chat completion answered ${r.status}: ${r.text.slice(0, 300)}`);
  });
  const seconds = (performance.now() - t0) / 1000;
  return { perSec: n / seconds, cpuMicrosEach: ((sb.child.cpuMicros() ?? 0) - cpu0) / n };
}

/** `n` tasks through the queue, `concurrency` submitters, done at their `completed` event; `subscribers` SSE streams. */
async function taskRound(
  sb: Sb,
  n: number,
  concurrency: number,
  subscribers = 1,
): Promise<Side & { eventsPerSec: number }> {
  const streams = await Promise.all(
    Array.from({ length: subscribers }, () => EventCounter.open(sb.child.port, sb.key)),
  );
  try {
    const cpu0 = sb.child.cpuMicros() ?? 0;
    const t0 = performance.now();
    // Each submitter runs its own agents (one submission of an agent at a time: two at once are 409 agent_busy).
    const perSlot = Math.max(1, Math.floor(sb.agents.length / concurrency));
    await pool(n, concurrency, async (i, slot) => {
      const id = sb.agents[(slot * perSlot + (i % perSlot)) % sb.agents.length] as string;
      await sb.client.json('POST', `/api/v1/agents/${id}/run`, { message: 'hi' });
    });
    await Promise.all(streams.map((s) => s.untilCompleted(n, 120_000)));
    const seconds = (performance.now() - t0) / 1000;
    const frames = streams.reduce((sum, s) => sum + s.frames, 0);
    return {
      perSec: n / seconds,
      cpuMicrosEach: ((sb.child.cpuMicros() ?? 0) - cpu0) / n,
      eventsPerSec: frames / seconds,
    };
  } finally {
    for (const s of streams) s.close();
  }
}

function setMockBehavior(mock: BenchChild, behavior: MockBehavior): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (msg: { type?: string }) => {
      if (msg?.type !== 'behaviorSet') return;
      mock.process.off('message', onMessage);
      resolve();
    };
    mock.process.on('message', onMessage);
    mock.process.send({ type: 'setBehavior', behavior });
  });
}

type LongAnswers = { recordsPerAnswer: number; tasksPerSec: number };

/** `answers` tasks of `tokens` deltas each, waited for with ?wait=true: WAL records per answer, and tasks/s. */
async function longAnswers(mockUrl: string, flushMs: number, answers: number, tokens: number): Promise<LongAnswers> {
  const sb = await startSwitchboard(mockUrl, { event_flush_ms: flushMs, workers: 8 }, answers);
  try {
    const entries = async () => (await sb.client.json('GET', '/api/v1/wal/status')).total_entries as number;
    const before = await entries();
    const start = performance.now();
    await pool(answers, 8, async (i) => {
      const p = `/api/v1/agents/${sb.agents[i]}/run?wait=true&timeout_s=300`;
      const done = await sb.client.json('POST', p, { message: 'talk' });
      if (done.status !== 'completed') throw new Error(`a long answer ended ${done.status}: ${done.error}`);
      if ((done.result as string).length < tokens) throw new Error('a long answer came back short');
    });
    const seconds = (performance.now() - start) / 1000;
    return { recordsPerAnswer: ((await entries()) - before) / answers, tasksPerSec: answers / seconds };
  } finally {
    await stopSwitchboard(sb);
  }
}

/** Redis's own CPU so far (user + sys), in µs. */
async function redisCpuMicros(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (get('used_cpu_user') + get('used_cpu_sys')) * 1e6;
}

type StoreSide = Side & { redisCpuMicrosEach: number };
/** The three sides: the WAL, Redis fsyncing before it answers (the promise kept), Redis fsyncing every second. */
const STORE_SIDES = ['embedded', 'always', 'everysec'] as const;
type StoreKind = (typeof STORE_SIDES)[number];
type Stores = Record<StoreKind, StoreSide[]> & { durability: Record<StoreKind, string> };

/**
 * The same task rounds on a Switchboard with the embedded store, one on a Redis with appendfsync always (as durable
 * as the WAL: what deploy/docker-compose.yml ships) and one on a Redis with appendfsync everysec (what an
 * acknowledged task then risks, the Switchboard says), interleaved, the order rotated each round.
 */
async function storeRounds(mockUrl: string, rounds: number, tasks: number, concurrency: number): Promise<Stores> {
  const redis: Partial<Record<StoreKind, TestRedis>> = {};
  const clients: Partial<Record<StoreKind, Redis>> = {};
  const sides: Partial<Record<StoreKind, Sb>> = {};
  const agents = Math.max(AGENTS, concurrency);
  const profile = process.env.AGENTS_BENCH_PROFILE_REDIS;
  try {
    const out = { embedded: [], always: [], everysec: [], durability: {} } as unknown as Stores;
    for (const kind of STORE_SIDES) {
      if (kind === 'embedded') {
        sides.embedded = await startSwitchboard(mockUrl, {}, agents);
        out.durability.embedded = 'the WAL, fsynced before the answer';
        continue;
      }
      const r = await startRedis({ args: ['--appendonly', 'yes', '--appendfsync', kind] });
      redis[kind] = r;
      const c = new Redis(r.url, { maxRetriesPerRequest: 1 });
      c.on('error', () => {});
      clients[kind] = c;
      const prof = profile && kind === 'always' ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`] : [];
      const store = { kind: 'redis', url: r.url, prefix: 'bench:' };
      const sb = await startSwitchboard(mockUrl, {}, agents, prof, store);
      sides[kind] = sb;
      out.durability[kind] = String((await sb.client.json('GET', '/api/v1/health')).store?.durability?.level ?? '');
    }
    const kinds = (r: number): readonly StoreKind[] =>
      profile ? ['always'] : [...STORE_SIDES.slice(r % 3), ...STORE_SIDES.slice(0, r % 3)];
    for (const kind of kinds(0)) await taskRound(sides[kind] as Sb, Math.min(500, tasks), concurrency);
    for (let r = 0; r < rounds; r++) {
      for (const kind of kinds(r)) {
        const c = clients[kind];
        const r0 = c ? await redisCpuMicros(c) : 0;
        const side = await taskRound(sides[kind] as Sb, tasks, concurrency);
        const r1 = c ? await redisCpuMicros(c) : 0;
        out[kind].push({ ...side, redisCpuMicrosEach: (r1 - r0) / tasks });
      }
    }
    return out;
  } finally {
    for (const sb of Object.values(sides)) if (sb) await stopSwitchboard(sb);
    for (const c of Object.values(clients)) c?.disconnect();
    for (const r of Object.values(redis)) await r?.stop();
  }
}

export async function main(): Promise<{
  table: string;
  pass: boolean;
  rows: Record<string, number | number[]>;
  targets: TargetCheck[];
}> {
  const tasks = Number(process.env.AGENTS_BENCH_TASKS ?? 2000);
  const rounds = Number(process.env.AGENTS_BENCH_ROUNDS ?? 5);
  const concurrency = Number(process.env.AGENTS_BENCH_CONCURRENCY ?? 64);
  const answers = Number(process.env.AGENTS_BENCH_ANSWERS ?? 40);
  const tokens = Number(process.env.AGENTS_BENCH_TOKENS ?? 1000);
  const profileDir = process.env.AGENTS_BENCH_PROFILE;
  const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : [];

  const mock = await startChild('mock', nodeArgs('mock-server', ['--port', '0']), { cwd: ROOT, ipc: true });
  const mockUrl = `http://127.0.0.1:${mock.port}/v1`;
  let sb: Sb | null = null;
  try {
    sb = await startSwitchboard(mockUrl, {}, Math.max(AGENTS, concurrency), prof);
    // Warm-up (JIT, sockets, the mock's keep-alive pool), not counted.
    await chatRound(sb, Math.min(500, tasks), concurrency);
    await taskRound(sb, Math.min(500, tasks), concurrency);
    if (process.env.AGENTS_BENCH_PROFILE_REDIS) {
      await stopSwitchboard(sb);
      sb = null;
      await storeRounds(mockUrl, rounds, tasks, concurrency);
      return {
        table: `Profiled the Redis store's Switchboard into ${process.env.AGENTS_BENCH_PROFILE_REDIS}`,
        pass: true,
        rows: {},
        targets: [],
      };
    }
    if (profileDir) {
      // Profiling: task rounds only, so that the profile is of the tasks' path alone.
      for (let r = 0; r < rounds; r++) await taskRound(sb, tasks, concurrency);
      await stopSwitchboard(sb);
      sb = null;
      return {
        table: `Profiled ${rounds} rounds of ${tasks} tasks into ${profileDir}`,
        pass: true,
        rows: {},
        targets: [],
      };
    }
    const chat: Side[] = [];
    const run: Side[] = [];
    for (let r = 0; r < rounds; r++) {
      // Interleaved, and the order swapped each round, so a noisy neighbour hits both sides alike.
      if (r % 2 === 0) {
        chat.push(await chatRound(sb, tasks, concurrency));
        run.push(await taskRound(sb, tasks, concurrency));
      } else {
        run.push(await taskRound(sb, tasks, concurrency));
        chat.push(await chatRound(sb, tasks, concurrency));
      }
    }
    const fanTasks = Math.min(tasks, 500);
    const one = await taskRound(sb, fanTasks, concurrency, 1);
    const hundred = await taskRound(sb, fanTasks, concurrency, 100);
    await stopSwitchboard(sb);
    sb = null;

    // The two stores of the orchestrator, side by side (issue 35).
    const stores = await storeRounds(mockUrl, rounds, tasks, concurrency);
    // Retention: memory and load time of the state, with and without it.
    const memory: RetentionMemory = await retentionMemory();

    // Long answers: the same work with one WAL record per delta (the old mode), then coalesced.
    await setMockBehavior(mock, { tokens: Array.from({ length: tokens }, (_, i) => `w${i} `) });
    const perDelta = await longAnswers(mockUrl, 0, answers, tokens);
    const coalesced = await longAnswers(mockUrl, 50, answers, tokens);
    await setMockBehavior(mock, {});

    const chatPerSec = median(chat.map((s) => s.perSec));
    const tasksPerSec = median(run.map((s) => s.perSec));
    const ratios = run.map((s, i) => s.perSec / (chat[i] as Side).perSec);
    const ratio = median(ratios);
    const cpuTask = median(run.map((s) => s.cpuMicrosEach));
    const cpuChat = median(chat.map((s) => s.cpuMicrosEach));
    const rows = {
      chat_per_sec: chatPerSec,
      tasks_per_sec: tasksPerSec,
      tasks_per_sec_rounds: run.map((s) => s.perSec),
      chat_per_sec_rounds: chat.map((s) => s.perSec),
      tasks_vs_chat: ratio,
      cpu_us_per_task: cpuTask,
      cpu_us_per_chat: cpuChat,
      events_per_sec_1_subscriber: one.eventsPerSec,
      events_per_sec_100_subscribers: hundred.eventsPerSec,
      fanout_gain: hundred.eventsPerSec / one.eventsPerSec,
      tasks_per_sec_with_100_subscribers: hundred.perSec,
      records_per_answer_per_delta: perDelta.recordsPerAnswer,
      records_per_answer_coalesced: coalesced.recordsPerAnswer,
      records_ratio: coalesced.recordsPerAnswer / perDelta.recordsPerAnswer,
      long_tasks_per_sec_per_delta: perDelta.tasksPerSec,
      long_tasks_per_sec_coalesced: coalesced.tasksPerSec,
      long_tasks_gain: coalesced.tasksPerSec / perDelta.tasksPerSec,
      embedded_tasks_per_sec: median(stores.embedded.map((x) => x.perSec)),
      redis_tasks_per_sec: median(stores.always.map((x) => x.perSec)),
      redis_everysec_tasks_per_sec: median(stores.everysec.map((x) => x.perSec)),
      embedded_tasks_per_sec_rounds: stores.embedded.map((x) => x.perSec),
      redis_tasks_per_sec_rounds: stores.always.map((x) => x.perSec),
      redis_everysec_tasks_per_sec_rounds: stores.everysec.map((x) => x.perSec),
      embedded_cpu_us_per_task: median(stores.embedded.map((x) => x.cpuMicrosEach)),
      redis_cpu_us_per_task: median(stores.always.map((x) => x.cpuMicrosEach)),
      redis_everysec_cpu_us_per_task: median(stores.everysec.map((x) => x.cpuMicrosEach)),
      redis_server_cpu_us_per_task: median(stores.always.map((x) => x.redisCpuMicrosEach)),
      redis_everysec_server_cpu_us_per_task: median(stores.everysec.map((x) => x.redisCpuMicrosEach)),
      mib_per_10k_finished_retention_off: memory.off.mibPer10k,
      mib_per_10k_finished_retention_on: memory.on.mibPer10k,
      load_ms_retention_off: memory.off.loadMs,
      load_ms_retention_on: memory.on.loadMs,
    };
    const vsEmbedded = (x: number, base = rows.embedded_tasks_per_sec) => `${(x / base).toFixed(2)}×`;
    const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
    const spread = (xs: number[]) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
    const targets = [
      check(
        'agents tasks/s with an instant model and a durable WAL',
        `≥ ${TARGET_TASKS_PER_SEC.toLocaleString('en')} tasks/s`,
        `${f(tasksPerSec)} tasks/s (rounds ${spread(rows.tasks_per_sec_rounds)}); router ${f(chatPerSec)} chat completions/s`,
        ratio,
        tasksPerSec >= TARGET_TASKS_PER_SEC,
      ),
    ];
    const table = [
      `Agent bench: ${rounds} rounds of ${tasks} tasks and ${tasks} chat completions (interleaved; medians), ${concurrency} concurrent client requests, ${WORKERS} workers, ${Math.max(AGENTS, concurrency)} agents, instant mock model in its own process, compiled Switchboard in its own process, WAL fsynced on ${os.tmpdir()}`,
      '',
      '| measure | baseline | agents | ratio |',
      '|---|--:|--:|--:|',
      `| tasks/s through the queue vs chat completions/s through the router | ${f(chatPerSec)} | ${f(tasksPerSec)} | ${ratio.toFixed(2)}× |`,
      `| Switchboard CPU per task vs per chat completion (µs) | ${f(cpuChat)} | ${f(cpuTask)} | ${(cpuTask / cpuChat).toFixed(2)}× |`,
      `| events/s delivered: 100 SSE subscribers vs 1 (${fanTasks} tasks) | ${f(one.eventsPerSec)} | ${f(hundred.eventsPerSec)} | ${(hundred.eventsPerSec / one.eventsPerSec).toFixed(1)}× |`,
      `| tasks/s with 100 subscribers vs 1 | ${f(one.perSec)} | ${f(hundred.perSec)} | ${(hundred.perSec / one.perSec).toFixed(2)}× |`,
      '',
      `Long answers: ${answers} tasks of ${tokens} output deltas, 8 at once; baseline: one WAL record per delta (event_flush_ms 0, before issue 16), agents: deltas coalesced (event_flush_ms 50)`,
      '',
      '| measure | one record per delta | coalesced | ratio |',
      '|---|--:|--:|--:|',
      `| WAL records per answer | ${f(perDelta.recordsPerAnswer)} | ${f(coalesced.recordsPerAnswer)} | ${rows.records_ratio.toFixed(3)}× |`,
      `| tasks/s | ${f(perDelta.tasksPerSec)} | ${f(coalesced.tasksPerSec)} | ${rows.long_tasks_gain.toFixed(2)}× |`,
      '',
      `Stores (issue 35): the same ${rounds} rounds of ${tasks} tasks (interleaved, the order rotated each round; medians) on three Switchboards: the embedded store (${stores.durability.embedded}), the Redis store on a redis-server on loopback with appendfsync always (durability ${stores.durability.always}: what deploy/docker-compose.yml ships), and one with appendfsync everysec (durability ${stores.durability.everysec}); ratios to the embedded store`,
      '',
      '| measure | embedded | Redis, always | ratio | Redis, everysec | ratio |',
      '|---|--:|--:|--:|--:|--:|',
      `| tasks/s | ${f(rows.embedded_tasks_per_sec)} (${spread(rows.embedded_tasks_per_sec_rounds)}) | ${f(rows.redis_tasks_per_sec)} (${spread(rows.redis_tasks_per_sec_rounds)}) | ${vsEmbedded(rows.redis_tasks_per_sec)} | ${f(rows.redis_everysec_tasks_per_sec)} (${spread(rows.redis_everysec_tasks_per_sec_rounds)}) | ${vsEmbedded(rows.redis_everysec_tasks_per_sec)} |`,
      `| Switchboard CPU per task (µs) | ${f(rows.embedded_cpu_us_per_task)} | ${f(rows.redis_cpu_us_per_task)} | ${vsEmbedded(rows.redis_cpu_us_per_task, rows.embedded_cpu_us_per_task)} | ${f(rows.redis_everysec_cpu_us_per_task)} | ${vsEmbedded(rows.redis_everysec_cpu_us_per_task, rows.embedded_cpu_us_per_task)} |`,
      `| + Redis's own CPU per task (µs) | — | ${f(rows.redis_cpu_us_per_task + rows.redis_server_cpu_us_per_task)} | ${vsEmbedded(rows.redis_cpu_us_per_task + rows.redis_server_cpu_us_per_task, rows.embedded_cpu_us_per_task)} | ${f(rows.redis_everysec_cpu_us_per_task + rows.redis_everysec_server_cpu_us_per_task)} | ${vsEmbedded(rows.redis_everysec_cpu_us_per_task + rows.redis_everysec_server_cpu_us_per_task, rows.embedded_cpu_us_per_task)} |`,
      '',
      `Retention (issue 35): the state of ${memory.tasks.toLocaleString('en')} finished tasks run (as the executor writes them: task, thread turn, output and completed events), loaded from the WAL in this process`,
      '',
      '| measure | retention off | default retention (10,000 kept) | ratio |',
      '|---|--:|--:|--:|',
      `| heap per 10,000 finished tasks run (MiB) | ${f(memory.off.mibPer10k)} | ${f(memory.on.mibPer10k)} | ${(memory.on.mibPer10k / memory.off.mibPer10k).toFixed(2)}× |`,
      `| tasks in memory after the load | ${memory.off.kept.toLocaleString('en')} | ${memory.on.kept.toLocaleString('en')} | ${(memory.on.kept / memory.off.kept).toFixed(2)}× |`,
      `| load at start (ms) | ${f(memory.off.loadMs)} | ${f(memory.on.loadMs)} | ${(memory.on.loadMs / memory.off.loadMs).toFixed(2)}× |`,
      '',
    ].join('\n');
    return { table, pass: true, rows, targets };
  } finally {
    if (sb) await stopSwitchboard(sb);
    await mock.stop();
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
