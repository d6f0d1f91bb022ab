// The orchestrator store's contract, one suite run against every implementation (embedded.test.ts, redis.test.ts):
// each test asks the factory for several instances over one state, as several Switchboard processes would have (for
// Redis: separate connections; for embedded: views of the one process that holds the WAL), and for the instance that
// takes over when one dies (Redis: a surviving instance, once the lease ran out; embedded: the next start).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, StreamEvent, Task } from '../../../shared/orchestrator.ts';
import type { OrchestratorRecord } from './records.ts';
import { ClaimRefused, type Delivery, type OrchestratorStore, type WorkItem } from './types.ts';

export type OrchestratorStoreFactory = {
  /** `n` instances sharing one fresh state (nothing from earlier tests), loaded. */
  make(n: number, opts?: { maxFinishedTasks?: number; finishedDays?: number }): Promise<OrchestratorStore[]>;
  /** The instance dies without a word (kill -9): it holds its work but never renews or ends it. */
  crash(s: OrchestratorStore): Promise<void>;
  /** An instance of the same state that takes over after `dead` crashed (embedded: the next start). */
  takeover(dead: OrchestratorStore, others: OrchestratorStore[]): Promise<OrchestratorStore>;
  /** How long a takeover may take (the lease, and a margin). */
  takeoverMs: number;
};

const T = 'acme';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const id = (prefix: string) => `${prefix}_${String(++n).padStart(24, '0')}`;
const at = (ms = Date.now()) => new Date(ms).toISOString();

export const agent = (name: string, tenant = T): Agent => ({
  id: id('agt'),
  name,
  system_prompt: '',
  model: 'm',
  tools: [],
  config: { max_tokens: 1, temperature: 0, max_iterations: 1 },
  status: 'idle',
  tenant,
  created_at: at(),
  updated_at: at(),
  last_run_at: null,
});

export const task = (agentId: string, extra: Partial<Task> = {}, tenant = T): Task => ({
  task_id: id('tsk'),
  agent_id: agentId,
  tenant,
  status: 'queued',
  message: 'm',
  context: {},
  result: null,
  error: null,
  stop_reason: null,
  iterations: 0,
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  created_at: at(),
  started_at: null,
  finished_at: null,
  ...extra,
});

const item = (t: Task): WorkItem => ({ kind: 'task', tenant: t.tenant, id: t.task_id });
const output = (s: OrchestratorStore, t: Task, content: string): OrchestratorRecord =>
  s.event({ type: 'output', task_id: t.task_id, agent_id: t.agent_id, tenant: t.tenant, workflow_id: null, content });

async function eventually(check: () => boolean | Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const end = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(10);
  }
}

/** Commits, turning a refusal into false (for counting winners). */
async function tried(p: Promise<void>): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (err) {
    if (err instanceof ClaimRefused) return false;
    throw err;
  }
}

export function orchestratorStoreContract(name: string, factory: OrchestratorStoreFactory): void {
  describe(`orchestrator store contract: ${name}`, () => {
    let open: OrchestratorStore[] = [];
    const make = async (k: number, opts?: Parameters<OrchestratorStoreFactory['make']>[1]) => {
      const made = await factory.make(k, opts);
      open.push(...made);
      return made;
    };
    afterEach(async () => {
      await Promise.all([...new Set(open)].map((s) => s.close().catch(() => undefined)));
      open = [];
    });

    it('a change acknowledged by one instance is read on every other after sync()', async () => {
      const [a, b, c] = await make(3);
      const ag = agent('reader');
      await a!.commit({ type: 'agent.put', data: ag });
      for (const s of [b!, c!]) {
        await s.sync(T);
        expect(s.agents.get(ag.id)).toMatchObject({ name: 'reader', status: 'idle' });
      }
      await b!.commit({ type: 'agent.patch', data: { id: ag.id, fields: { name: 'renamed' } } });
      await c!.commit({ type: 'agent.patch', data: { id: ag.id, fields: { model: 'other' } } });
      await a!.sync(T);
      // Patches merge: neither instance's change undoes the other's.
      expect(a!.agents.get(ag.id)).toMatchObject({ name: 'renamed', model: 'other' });
      await a!.commit({ type: 'agent.deleted', data: { id: ag.id } });
      await c!.sync(T);
      expect(c!.agents.has(ag.id)).toBe(false);
    });

    it("an agent's status follows its tasks on every instance: running while one is active, then how the last ended", async () => {
      const [a, b] = await make(2);
      const ag = agent('worker');
      await a!.commit({ type: 'agent.put', data: ag });
      const t1 = task(ag.id);
      const t2 = task(ag.id);
      await a!.commit({ type: 'task.put', data: t1 }, { type: 'task.put', data: t2 });
      await b!.sync(T);
      expect(b!.agents.get(ag.id)?.status).toBe('running');
      expect([...b!.activeOfAgent(ag.id)].sort()).toEqual([t1.task_id, t2.task_id].sort());
      await b!.commit({ type: 'task.put', data: { ...t1, status: 'failed', finished_at: at() } });
      await a!.sync(T);
      expect(a!.agents.get(ag.id)?.status).toBe('running');
      await a!.commit({ type: 'task.put', data: { ...t2, status: 'completed', finished_at: at() } });
      await b!.sync(T);
      expect(b!.agents.get(ag.id)?.status).toBe('completed');
      expect(b!.activeOfAgent(ag.id).size).toBe(0);
    });

    it('property: an agent name is taken once across instances, however many claim it at once', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 2, max: 3 }), fc.integer({ min: 2, max: 8 }), async (k, claimants) => {
          const stores = await make(k);
          const made = Array.from({ length: claimants }, () => agent('same-name'));
          const won = await Promise.all(
            made.map((ag, i) =>
              tried(
                stores[i % k]!.commitWith(
                  { claims: [{ kind: 'agent_name', tenant: T, name: ag.name, agent_id: ag.id }] },
                  { type: 'agent.put', data: ag },
                ),
              ),
            ),
          );
          expect(won.filter(Boolean)).toHaveLength(1);
          for (const s of stores) await s.sync(T);
          const named = [...stores[0]!.agents.values()].filter((a) => a.name === 'same-name' && a.tenant === T);
          expect(named).toHaveLength(1);
          // Its own agent may claim it again (a rename to the same name); another tenant has its own names.
          const winner = named[0]!;
          const again = { kind: 'agent_name', tenant: T, name: 'same-name', agent_id: winner.id } as const;
          await stores[k - 1]!.commitWith({ claims: [again] });
          const other = agent('same-name', 'globex');
          const elsewhere = { kind: 'agent_name', tenant: 'globex', name: 'same-name', agent_id: other.id } as const;
          await stores[0]!.commitWith({ claims: [elsewhere] }, { type: 'agent.put', data: other });
          // Deleted, the name is free again.
          await stores[0]!.commit({ type: 'agent.deleted', data: { id: winner.id } });
          const next = agent('same-name');
          const claim = { kind: 'agent_name', tenant: T, name: 'same-name', agent_id: next.id } as const;
          await stores[k - 1]!.commitWith({ claims: [claim] }, { type: 'agent.put', data: next });
          await stores[0]!.sync(T); // a change is made on what the instance has read (the API syncs first)
          await stores[0]!.commit({ type: 'agent.deleted', data: { id: next.id } });
        }),
        { numRuns: 8 },
      );
    });

    it('the run window admits one new-thread run of an agent at a time across instances, and no claim means no window', async () => {
      const [a, b, c] = await make(3);
      const ag = agent('windowed');
      await a!.commit({ type: 'agent.put', data: ag });
      const win = { kind: 'run_window', tenant: T, agent_id: ag.id, ms: 400 } as const;
      const runs = [a!, b!, c!, a!, b!, c!].map((s) => {
        const time = at();
        return tried(
          s.commitWith(
            { claims: [win] },
            { type: 'task.put', data: task(ag.id, { status: 'completed' }) },
            { type: 'agent.patch', data: { id: ag.id, fields: { last_run_at: time } } },
          ),
        );
      });
      expect((await Promise.all(runs)).filter(Boolean)).toHaveLength(1);
      const refused = await b!
        .commitWith({ claims: [win] })
        .then(() => null)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ClaimRefused);
      expect((refused as ClaimRefused).retryAfterMs).toBeGreaterThan(0);
      expect((refused as ClaimRefused).retryAfterMs).toBeLessThanOrEqual(400);
      await sleep(450);
      expect(
        await tried(
          c!.commitWith({ claims: [win] }, { type: 'agent.patch', data: { id: ag.id, fields: { last_run_at: at() } } }),
        ),
      ).toBe(true);
      // Without the claim (run_window_ms 0, or an Idempotency-Key), runs are not held apart.
      const free = await Promise.all([a!, b!, c!].map((s) => tried(s.commit({ type: 'task.put', data: task(ag.id) }))));
      expect(free).toEqual([true, true, true]);
    });

    it('one running task per thread across instances; the thread is free again when it ends', async () => {
      const [a, b] = await make(2);
      const ag = agent('talker');
      await a!.commit({ type: 'agent.put', data: ag });
      const thread = 'thr_' + '1'.repeat(24);
      const turn = (s: OrchestratorStore) => {
        const t = task(ag.id, { thread_id: thread });
        const claim = { kind: 'thread_idle', tenant: T, thread_id: thread, task_id: t.task_id } as const;
        return { t, won: tried(s.commitWith({ claims: [claim] }, { type: 'task.put', data: t })) };
      };
      const tries = [turn(a!), turn(b!), turn(a!), turn(b!)];
      const won = await Promise.all(tries.map((x) => x.won));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = tries[won.indexOf(true)]!.t;
      const refused = await b!
        .commitWith({ claims: [{ kind: 'thread_idle', tenant: T, thread_id: thread, task_id: '' }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ClaimRefused);
      expect((refused as ClaimRefused).holder).toBe(winner.task_id);
      await a!.commit({ type: 'task.put', data: { ...winner, status: 'completed', finished_at: at() } });
      await b!.sync(T);
      expect(await turn(b!).won).toBe(true);
    });

    it('a status claim lets one of several instances move a queued task on; the others are refused', async () => {
      const [a, b, c] = await make(3);
      const ag = agent('stopper');
      const t = task(ag.id);
      await a!.commit({ type: 'agent.put', data: ag }, { type: 'task.put', data: t });
      await Promise.all([b!.sync(T), c!.sync(T)]);
      const queued = { kind: 'status', tenant: T, record: 'task', id: t.task_id, in: ['queued'] } as const;
      const moves = [a!, b!, c!].map((s, i) =>
        tried(
          s.commitWith(
            { claims: [queued] },
            { type: 'task.put', data: { ...t, status: i === 0 ? 'running' : 'stopped', finished_at: i ? at() : null } },
          ),
        ),
      );
      expect((await Promise.all(moves)).filter(Boolean)).toHaveLength(1);
    });

    it('an Idempotency-Key is taken by the first run; a second claim is refused naming that run’s task', async () => {
      const [a, b] = await make(2);
      const ag = agent('idem');
      await a!.commit({ type: 'agent.put', data: ag });
      const first = task(ag.id, { idempotency_key: 'key-1' });
      const second = task(ag.id, { idempotency_key: 'key-1' });
      const claim = (t: Task) =>
        ({
          kind: 'idempotency',
          tenant: T,
          agent_id: ag.id,
          key: 'key-1',
          task_id: t.task_id,
          ttl_ms: 60_000,
        }) as const;
      await a!.commitWith({ claims: [claim(first)] }, { type: 'task.put', data: first });
      const refused = await b!
        .commitWith({ claims: [claim(second)] }, { type: 'task.put', data: second })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ClaimRefused);
      expect((refused as ClaimRefused).holder).toBe(first.task_id);
      await b!.sync(T);
      expect(b!.tasks.has(second.task_id)).toBe(false);
      // Another agent, or another key, is another run.
      const other = { ...claim(second), key: 'key-2' };
      await b!.commitWith({ claims: [other] }, { type: 'task.put', data: { ...second, idempotency_key: 'key-2' } });
    });

    it('events: ids grow; a subscriber on another instance gets every event in order; replay() from any instance gives exactly the later ones', async () => {
      const [a, b, c] = await make(3);
      const ag = agent('talks');
      const t = task(ag.id);
      await a!.commit({ type: 'agent.put', data: ag }, { type: 'task.put', data: t });
      const heard: StreamEvent[] = [];
      c!.subscribe((e) => heard.push(e));
      await c!.sync(T);
      for (let i = 0; i < 20; i++) {
        const s = i % 2 ? a! : b!;
        await s.commit(output(s, t, `part ${i}`), output(s, t, `part ${i}b`));
      }
      await b!.commit(
        b!.eventBatch(
          [0, 1, 2].map(
            (i) =>
              ({
                type: 'output',
                task_id: t.task_id,
                agent_id: ag.id,
                tenant: T,
                workflow_id: null,
                content: `batch ${i}`,
              }) as never,
          ),
        ),
      );
      await eventually(async () => (await c!.sync(T), heard.length === 43), 3000, 'every event heard on c');
      const contents = heard.map((e) => (e as { content?: string }).content);
      expect(contents.slice(0, 4)).toEqual(['part 0', 'part 0b', 'part 1', 'part 1b']);
      expect(contents.slice(-3)).toEqual(['batch 0', 'batch 1', 'batch 2']);
      const ids = heard.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(ids.length);
      const cut = ids[10]!;
      for (const s of [a!, b!, c!]) {
        await s.sync(T);
        const { events } = s.replay(T, cut);
        expect(events.map((e) => e.id)).toEqual(ids.slice(11));
      }
    });

    it('work is handed to exactly one instance; its end releases it', async () => {
      const stores = await make(3);
      const got = new Map<string, string[]>();
      stores.forEach((s, i) =>
        s.onWork('task', (d: Delivery) => {
          got.set(d.id, [...(got.get(d.id) ?? []), `i${i}${d.reclaimed ? ' reclaimed' : ''}`]);
        }),
      );
      for (const s of stores) await s.startWork();
      const ag = agent('busy');
      await stores[0]!.commit({ type: 'agent.put', data: ag });
      const made: Task[] = [];
      for (let i = 0; i < 30; i++) {
        const t = task(ag.id);
        made.push(t);
        await stores[i % 3]!.commitWith({ enqueue: [item(t)] }, { type: 'task.put', data: t });
      }
      await eventually(() => made.every((t) => got.has(t.task_id)), 5000, 'every task handed out');
      await sleep(100);
      for (const t of made) expect(got.get(t.task_id)).toHaveLength(1);
      for (const t of made) expect(got.get(t.task_id)![0]).not.toContain('reclaimed');
    });

    it('work held by an instance that dies is handed to another as reclaimed (running tasks, queued ones, runs)', async () => {
      const [a, b] = await make(2);
      const taken: { s: OrchestratorStore; d: Delivery }[] = [];
      for (const s of [a!, b!]) {
        for (const kind of ['task', 'run'] as const) s.onWork(kind, (d) => void taken.push({ s, d }));
      }
      for (const s of [a!, b!]) await s.startWork();
      const ag = agent('fragile');
      await a!.commit({ type: 'agent.put', data: ag });
      const running = task(ag.id);
      await a!.commitWith({ enqueue: [item(running)] }, { type: 'task.put', data: running });
      await eventually(() => taken.some((x) => x.d.id === running.task_id), 3000, 'handed out');
      const holder = taken.find((x) => x.d.id === running.task_id)!.s;
      await holder.commitWith(
        { as: item(running) },
        { type: 'task.put', data: { ...running, status: 'running', started_at: at() } },
      );
      const survivor = holder === a ? b! : a!;
      taken.length = 0;
      await factory.crash(holder);
      const next = await factory.takeover(holder, [survivor]);
      if (!open.includes(next)) open.push(next);
      if (next !== survivor) {
        for (const kind of ['task', 'run'] as const) next.onWork(kind, (d) => void taken.push({ s: next, d }));
        await next.startWork();
      }
      await eventually(() => taken.some((x) => x.d.id === running.task_id), factory.takeoverMs, 'reclaimed');
      const again = taken.find((x) => x.d.id === running.task_id)!;
      expect(again.s).toBe(next);
      expect(again.d.reclaimed).toBeDefined();
      // The taker holds it now: it may write the task's end, and the end releases it.
      await next.sync(T);
      expect(next.tasks.get(running.task_id)?.status).toBe('running');
      const end = { ...running, status: 'failed' as const, stop_reason: 'interrupted', finished_at: at() };
      await next.commitWith({ as: item(running), done: item(running) }, { type: 'task.put', data: end });
      expect(next.tasks.get(running.task_id)?.status).toBe('failed');
      await sleep(factory.takeoverMs / 2);
      expect(taken.filter((x) => x.d.id === running.task_id)).toHaveLength(1);
    });

    it('retention: finished tasks past the cap and the period leave every instance (404), active ones stay', async () => {
      const [a, b] = await make(2, { maxFinishedTasks: 3, finishedDays: 1 });
      const ag = agent('old');
      await a!.commit({ type: 'agent.put', data: ag });
      const old = task(ag.id, {
        status: 'completed',
        created_at: at(Date.now() - 3 * 86_400_000),
        finished_at: at(Date.now() - 2 * 86_400_000),
      });
      const done = Array.from({ length: 5 }, (_, i) =>
        task(ag.id, { status: 'completed', finished_at: at(Date.now() - 5000 + i) }),
      );
      const active = task(ag.id);
      await a!.commit(...[old, ...done, active].map((t) => ({ type: 'task.put', data: t }) as const));
      for (const s of [a!, b!]) {
        await s.sync(T);
        s.sweep();
        expect(s.tasks.has(old.task_id)).toBe(false);
        expect(done.filter((t) => s.tasks.has(t.task_id)).map((t) => t.task_id)).toEqual(
          done.slice(2).map((t) => t.task_id),
        );
        expect(s.tasks.get(active.task_id)?.status).toBe('queued');
        expect(s.tasksOf(T).map((t) => t.task_id)).not.toContain(old.task_id);
      }
    });
  });
}
