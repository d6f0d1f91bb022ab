// Swarms: a coordinator agent that delegates to member agents through a `delegate` tool (handoffs), proposes an
// answer, and (with consensus_required) puts it to every member's vote, for at most max_rounds rounds. Changing,
// deleting, stopping a swarm task, and its run-level events (a swarm's steps are its rounds).
import { SwarmTaskSchema } from '../../shared/orchestrator.ts';
import type { Swarm, SwarmRound, SwarmTask, Task, TaskOrigin } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest, issuesToProblems } from '../errors.ts';
import { Catalog } from './catalog.ts';
import { addUsage, queueFull, swarmEvent, zeroUsage, type RunEventPart } from './common.ts';
import { swarmId, swarmTaskId } from './ids.ts';
import type { ExtraTool } from './runner.ts';
import { checkSwarm } from './swarms-definition.ts';
import { bestRound, coordinatorPrompt, parseVote, votePrompt } from './swarms-prompts.ts';
import type { TaskHost } from './task-host.ts';
import type { Delivery, WorkItem } from './store/types.ts';

const swarmItem = (t: Pick<SwarmTask, 'tenant' | 'id'>): WorkItem => ({
  kind: 'swarm_task',
  tenant: t.tenant,
  id: t.id,
});

export { bestRound, parseVote } from './swarms-prompts.ts';

type Member = { name: string; id: string };
/** One round of one swarm task. */
type Round = { swarm: Swarm; st: SwarmTask; round: number; members: Member[] };

const roundOf = (t: SwarmTask) => t.rounds[t.rounds.length - 1] as SwarmRound;
const newRound = (round: number): SwarmRound => ({
  round,
  coordinator_task_id: null,
  contributions: [],
  proposal: null,
  votes: [],
  approvals: 0,
});
const origin = (r: Round, role: 'coordinator' | 'member' | 'vote'): TaskOrigin => ({
  kind: 'swarm',
  swarm_id: r.swarm.id,
  swarm_task_id: r.st.id,
  round: r.round,
  role,
});

const STOPPED = 'stopped by request';
/** How long POST .../stop waits for the swarm task's end record before answering with it as it is. */
const STOP_WAIT_MS = 10_000;

/** Swarms and their tasks (byName, list, execution, executionsOf: see Catalog). */
export class SwarmService extends Catalog<Swarm, SwarmTask> {
  /** Swarm tasks asked to stop, and the task each one waits for now (a coordinator turn or a vote). */
  private readonly stopping = new Set<string>();
  private readonly waitingOn = new Map<string, string>();

  /** Swarm tasks this instance drives now. */
  private readonly driving = new Set<string>();

  constructor(private readonly host: TaskHost) {
    super('swarm', host.store.swarms, host.store.swarmTasks, (t) => t.swarm_id);
    host.store.onWork('swarm_task', (d) => this.onSwarmTask(d));
    // A stop asked on any instance reaches the one driving the swarm task.
    host.store.onControl((c) => {
      if (c.kind === 'stop_swarm_task' && this.driving.has(c.id)) void this.stopHere(c.id, c.tenant);
    });
  }

  /** PUT /swarms/:name: a whole new definition (checked as on create); running swarm tasks keep the one they had. */
  async update(name: string, raw: unknown, tenant: string): Promise<Swarm> {
    const old = this.byName(name, tenant);
    const d = checkSwarm(raw, (ref) => this.host.resolveAgent(ref, tenant));
    this.assertNameFree(d.name, tenant, old.id);
    const swarm: Swarm = { ...old, ...d, updated_at: new Date().toISOString() };
    await this.host.store.commit({ type: 'swarm.put', data: swarm });
    return swarm;
  }

  /** DELETE /swarms/:name: the swarm and its tasks; 409 swarm_running while one of its tasks goes on. */
  async delete(name: string, tenant: string): Promise<void> {
    const swarm = this.byName(name, tenant);
    const running = this.runningOf(swarm).map((t) => t.id);
    if (running.length) {
      throw new ApiError(
        'swarm_running',
        `Swarm "${name}" has ${running.length} running task(s) (${running.join(', ')}).`,
        `Stop them first (POST /api/v1/swarms/${name}/tasks/<id>/stop), then delete it.`,
        { swarm_task_ids: running },
      );
    }
    await this.host.store.commit({ type: 'swarm.deleted', data: { id: swarm.id } });
  }

  /** POST /swarms/:name/tasks/:id/stop: stops the turn or vote going on (and the member it waits for). */
  async stop(name: string, id: string, tenant: string): Promise<SwarmTask> {
    const st = this.execution(name, id, tenant);
    if (st.status !== 'running') {
      const message = `Swarm task "${id}" is ${st.status}; only a running one can be stopped.`;
      throw new ApiError('swarm_task_not_running', message, 'Nothing to do.', { id, status: st.status });
    }
    await this.host.store.signal({ kind: 'stop_swarm_task', tenant, id });
    await this.host.store.waits.wait(id, () => this.current(id).status !== 'running', STOP_WAIT_MS);
    return this.current(id);
  }

  /** The driver's side of a stop: flagged, and the turn or vote it waits for stopped. */
  private async stopHere(id: string, tenant: string): Promise<void> {
    this.stopping.add(id);
    const taskId = this.waitingOn.get(id);
    if (taskId) await this.host.stop(taskId, tenant).catch(() => undefined);
  }

  /** Every problem at once (422 swarm_invalid), then 409 swarm_exists when the name is taken. */
  async create(raw: unknown, tenant: string): Promise<Swarm> {
    const d = checkSwarm(raw, (ref) => this.host.resolveAgent(ref, tenant));
    this.assertNameFree(d.name, tenant);
    const swarm: Swarm = { id: swarmId(), ...d, tenant, created_at: new Date().toISOString() };
    await this.host.store.commit({ type: 'swarm.put', data: swarm });
    return swarm;
  }

  /** POST /swarms/:name/tasks: durable, then the rounds run in the background. */
  async submit(name: string, raw: unknown, tenant: string): Promise<SwarmTask> {
    const swarm = this.byName(name, tenant);
    const parsed = SwarmTaskSchema.safeParse(raw);
    if (!parsed.success) {
      throw invalidRequest(issuesToProblems(parsed.error.issues), 'Send {"message": "...", "context": {...}}.');
    }
    for (const id of [swarm.coordinator_id, ...swarm.agent_ids]) {
      if (this.host.store.agents.get(id)) continue;
      const details = [{ field: 'agents', message: `${id} no longer exists` }];
      const action = 'Create the swarm again with existing agents.';
      throw new ApiError('swarm_invalid', `Agent ${id} of swarm "${name}" was deleted.`, action, details);
    }
    if (this.host.saturatedFor(tenant)) throw queueFull();
    const now = new Date().toISOString();
    const { message, context } = parsed.data;
    const task: SwarmTask = {
      id: swarmTaskId(),
      swarm_id: swarm.id,
      swarm: swarm.name,
      tenant,
      status: 'running',
      message,
      context,
      rounds: [],
      final_answer: null,
      consensus: null,
      error: null,
      usage: zeroUsage(),
      created_at: now,
      started_at: now,
      finished_at: null,
    };
    // Driven by the instance it is handed to (this one in embedded mode, at once).
    await this.host.store.commitWith(
      { enqueue: [swarmItem(task)] },
      { type: 'swarm_task.put', data: task },
      swarmEvent(this.host.store, task, { type: 'run_started' }),
    );
    return task;
  }

  /**
   * A swarm task handed to this instance: driven through its rounds. One whose driver is gone (a restart, or another
   * instance's lease that ran out) is failed (interrupted): its turns are not resumed (TaskService fails its queued
   * ones).
   */
  private async onSwarmTask(d: Delivery): Promise<void> {
    const st = this.host.store.swarmTasks.get(d.id);
    if (!st || st.status !== 'running') {
      await this.host.store.commitWith({ done: d }).catch(() => undefined);
      return;
    }
    if (this.driving.has(d.id)) return;
    if (d.reclaimed) {
      const error = 'interrupted: Switchboard stopped while this swarm task was running; submit it again';
      await this.host.interruptQueuedTurns(d.id, d.tenant);
      await this.end(d.id, { status: 'failed', error });
      return;
    }
    this.driving.add(d.id);
    void this.drive(d.id)
      .catch(async (err) => {
        if (this.host.closed) return;
        const error = `internal: ${(err as Error).message}`;
        await this.end(d.id, { status: 'failed', error }).catch(() => undefined);
      })
      .finally(() => {
        this.stopping.delete(d.id);
        this.waitingOn.delete(d.id);
        this.driving.delete(d.id);
      });
  }

  private current(id: string): SwarmTask {
    return this.host.store.swarmTasks.get(id) as SwarmTask;
  }

  private changed(id: string, change: (t: SwarmTask) => void): SwarmTask {
    const next = structuredClone(this.current(id));
    change(next);
    return next;
  }

  /** The swarm task changed, with the run-level events the change makes, in one durable batch. */
  private async save(id: string, change: (t: SwarmTask) => void, events: RunEventPart[] = []): Promise<void> {
    const next = this.changed(id, change);
    const records = events.map((e) => swarmEvent(this.host.store, next, e));
    const item = swarmItem(next);
    const over = next.status !== 'running';
    await this.host.store.commitWith(
      { as: item, ...(over ? { done: item } : {}) },
      { type: 'swarm_task.put', data: next },
      ...records,
    );
  }

  /** Its end, and run_completed or run_failed (with the status: failed or stopped). */
  private end(id: string, patch: Partial<SwarmTask>): Promise<void> {
    const ended: RunEventPart =
      patch.status === 'completed'
        ? { type: 'run_completed', output: patch.final_answer ?? null }
        : { type: 'run_failed', status: patch.status ?? 'failed', error: patch.error ?? '' };
    return this.save(id, (t) => Object.assign(t, patch, { finished_at: new Date().toISOString() }), [ended]);
  }

  /** A stop was asked: the swarm task ends `stopped` (the round that ran keeps what it had). */
  private endStopped(id: string, round: number): Promise<void> {
    return this.end(id, { status: 'stopped', error: `${STOPPED} (in round ${round})` });
  }

  /** Waits for one of the swarm task's tasks, which a stop of the swarm task stops. */
  private async follow(id: string, taskId: string): Promise<Task | null> {
    this.waitingOn.set(id, taskId);
    if (this.stopping.has(id)) await this.host.stop(taskId, this.current(id).tenant).catch(() => undefined);
    try {
      return await this.host.waitForTask(taskId);
    } finally {
      this.waitingOn.delete(id);
    }
  }

  private addUsage(t: SwarmTask, task: Task): void {
    t.usage = addUsage(t.usage, task.usage);
  }

  private async drive(id: string): Promise<void> {
    const st = this.current(id);
    const swarm = this.host.store.swarms.get(st.swarm_id) as Swarm;
    const members = swarm.agents.map((name, i) => ({ name, id: swarm.agent_ids[i] as string }));
    for (let round = 1; round <= swarm.config.max_rounds; round++) {
      if (this.host.closed) return;
      if (this.stopping.has(id)) return this.endStopped(id, round);
      const r: Round = { swarm, st, round, members };
      await this.save(id, (t) => void t.rounds.push(newRound(round)), [{ type: 'step_started', round }]);
      const coord = await this.coordinatorTurn(r);
      if (!coord) return;
      const where = { round, task_id: coord.task_id, agent_id: coord.agent_id };
      if (coord.status !== 'completed') {
        const error = `the coordinator's round ${round} ${coord.status}: ${coord.error ?? ''}`;
        await this.save(id, (x) => this.addUsage(x, coord), [{ type: 'step_failed', ...where, error }]);
        if (this.stopping.has(id)) return this.endStopped(id, round);
        return this.end(id, { status: 'failed', error });
      }
      const proposal = coord.result ?? '';
      const proposed = (x: SwarmTask) => {
        roundOf(x).proposal = proposal;
        this.addUsage(x, coord);
      };
      if (!swarm.config.consensus_required) {
        await this.save(id, proposed, [{ type: 'step_completed', ...where, output: proposal }]);
        return this.end(id, { status: 'completed', final_answer: proposal, consensus: null });
      }
      await this.save(id, proposed);
      if (!(await this.vote(r, proposal))) return;
      if (this.stopping.has(id)) return this.endStopped(id, round);
      const approvals = roundOf(this.current(id)).approvals;
      await this.save(id, () => undefined, [{ type: 'step_completed', ...where, output: proposal }]);
      if (approvals === members.length) {
        return this.end(id, { status: 'completed', final_answer: proposal, consensus: true });
      }
    }
    const best = bestRound(this.current(id).rounds);
    return this.end(id, { status: 'completed', final_answer: best?.proposal ?? null, consensus: false });
  }

  /** The coordinator's turn, with `delegate`; null when the service closes. */
  private async coordinatorTurn(r: Round): Promise<Task | null> {
    const id = r.st.id;
    const message = coordinatorPrompt(r.swarm, this.current(id), r.round);
    const named = (taskId: string) => this.changed(id, (x) => void (roundOf(x).coordinator_task_id = taskId));
    const body = { message, context: r.st.context };
    const ct = await this.host.submitInternal(r.swarm.coordinator_id, body, r.st.tenant, origin(r, 'coordinator'), {
      as: swarmItem(r.st),
      tools: { delegate: this.delegateTool(r) },
      records: (t) => [{ type: 'swarm_task.put', data: named(t.task_id) }],
    });
    return this.follow(id, ct.task_id);
  }

  /** `delegate` runs the member's task in the coordinator's worker slot and returns its answer. */
  private delegateTool(r: Round): ExtraTool {
    const id = r.st.id;
    const names = r.members.map((m) => m.name);
    const list = names.join(', ');
    return {
      schema: {
        type: 'function',
        function: {
          name: 'delegate',
          description: `Hands a piece of work to a member agent of the swarm and returns its answer. Members: ${list}.`,
          parameters: {
            type: 'object',
            properties: { agent: { type: 'string', enum: names }, task: { type: 'string' } },
            required: ['agent', 'task'],
          },
        },
      },
      run: async (input, signal) => {
        const member = r.members.find((m) => m.name === input.agent);
        if (!member) return `error: "${String(input.agent)}" is not a member; members: ${list}`;
        if (typeof input.task !== 'string' || !input.task) return 'error: "task" must be a non-empty string';
        const instruction = input.task;
        // The member's task and the round's record of it, durable in one batch.
        const added = (taskId: string) =>
          this.changed(id, (x) => {
            const who = { agent: member.name, agent_id: member.id };
            roundOf(x).contributions.push({ ...who, task_id: taskId, instruction, status: 'queued', output: null });
          });
        const body = { message: instruction, context: { swarm_task: r.st.message } };
        const sub = await this.host.submitInternal(member.id, body, r.st.tenant, origin(r, 'member'), {
          nested: true,
          as: swarmItem(r.st),
          records: (t) => [{ type: 'swarm_task.put', data: added(t.task_id) }],
        });
        // Stopping the coordinator's task stops the member it is waiting for.
        const onAbort = () => void this.host.stop(sub.task_id, r.st.tenant).catch(() => undefined);
        signal.addEventListener('abort', onAbort, { once: true });
        const done = await this.host
          .waitForTask(sub.task_id)
          .finally(() => signal.removeEventListener('abort', onAbort));
        if (!done) throw new Error('shutting down');
        await this.save(id, (x) => {
          const c = roundOf(x).contributions.find((k) => k.task_id === sub.task_id);
          const output = done.status === 'completed' ? done.result : done.error;
          if (c) Object.assign(c, { status: done.status, output });
          this.addUsage(x, done);
        });
        if (done.status === 'completed') return done.result ?? '';
        return `error: ${member.name} ${done.status}: ${done.error ?? ''}`;
      },
    };
  }

  /** Every member votes on the proposal, one after another (in the order of `agents`); false when closing. */
  private async vote(r: Round, proposal: string): Promise<boolean> {
    for (const m of r.members) {
      if (this.stopping.has(r.st.id)) return true;
      const body = { message: votePrompt(r.st, proposal), context: {} };
      const vt = await this.host.submitInternal(m.id, body, r.st.tenant, origin(r, 'vote'), { as: swarmItem(r.st) });
      const v = await this.follow(r.st.id, vt.task_id);
      if (!v) return false;
      const vote =
        v.status === 'completed'
          ? parseVote(v.result ?? '')
          : { approve: false, reasons: `the vote ${v.status}: ${v.error ?? ''}` };
      await this.save(r.st.id, (x) => {
        const last = roundOf(x);
        last.votes.push({ agent: m.name, agent_id: m.id, task_id: v.task_id, ...vote });
        last.approvals = last.votes.filter((k) => k.approve).length;
        this.addUsage(x, v);
      });
    }
    return true;
  }
}
