// Swarms: a coordinator agent that delegates to member agents through a `delegate` tool (handoffs), proposes an
// answer, and (with consensus_required) puts it to every member's vote, for at most max_rounds rounds.
import {
  CreateSwarmSchema, MAX_ROUNDS_LIMIT, SwarmTaskSchema,
  type Swarm, type SwarmRound, type SwarmTask, type Task, type TaskOrigin, type TokenUsage,
} from '../../shared/orchestrator.ts';
import { ApiError } from '../errors.ts';
import { swarmId, swarmTaskId } from './ids.ts';
import type { Orchestrator } from './orchestrator.ts';
import type { ExtraTool } from './runner.ts';
import { resolveAgentRef, type Problem } from './workflows.ts';

const zeroUsage = (): TokenUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A vote is an approval when its first word is approve/approved/agree/yes (any case); anything else rejects. */
export function parseVote(text: string): { approve: boolean; reasons: string } {
  const m = /^\W*(\w+)\W*([\s\S]*)$/.exec(text.trim());
  const word = (m?.[1] ?? '').toLowerCase();
  return { approve: ['approve', 'approved', 'agree', 'yes'].includes(word), reasons: (m?.[2] ?? '').trim() || text.trim() };
}

/** The round whose proposal most members approved; the latest of equals (it answered the most objections). */
export function bestRound(rounds: SwarmRound[]): SwarmRound | undefined {
  let best: SwarmRound | undefined;
  for (const r of rounds) if (r.proposal !== null && (!best || r.approvals >= best.approvals)) best = r;
  return best;
}

export class SwarmService {
  constructor(private readonly o: Orchestrator) {}

  byName(name: string, tenant: string): Swarm {
    for (const s of this.o.store.swarms.values()) if (s.tenant === tenant && s.name === name) return s;
    throw new ApiError('swarm_not_found', `No swarm "${name}".`, 'List swarms with GET /api/v1/swarms.');
  }

  list(tenant: string) {
    const data = [...this.o.store.swarms.values()].filter((s) => s.tenant === tenant).sort((a, b) => a.created_at.localeCompare(b.created_at));
    return { data, total: data.length };
  }

  /** Every problem at once (422 swarm_invalid): types, unknown agents, duplicates, the coordinator as a member, bounds. */
  async create(raw: unknown, tenant: string): Promise<Swarm> {
    const problems: Problem[] = [];
    const parsed = CreateSwarmSchema.safeParse(raw);
    if (!parsed.success) for (const i of parsed.error.issues) problems.push({ field: i.path.join('.') || '(body)', message: i.message });
    const body = isObj(raw) ? raw : {};
    const ids: string[] = [];
    let coordinatorId = '';
    if (typeof body.coordinator === 'string' && body.coordinator) {
      const r = resolveAgentRef(this.o, body.coordinator, tenant);
      if ('problem' in r) problems.push({ field: 'coordinator', message: `"${body.coordinator}" ${r.problem}` });
      else coordinatorId = r.agent.id;
    }
    if (Array.isArray(body.agents)) {
      if (body.agents.length === 0) problems.push({ field: 'agents', message: 'must name at least one member agent' });
      body.agents.forEach((name, i) => {
        if (typeof name !== 'string' || !name) return;
        const r = resolveAgentRef(this.o, name, tenant);
        if ('problem' in r) return void problems.push({ field: `agents.${i}`, message: `"${name}" ${r.problem}` });
        if (r.agent.id === coordinatorId) problems.push({ field: `agents.${i}`, message: `"${name}" is the coordinator; the coordinator is not also a member` });
        else if (ids.includes(r.agent.id)) problems.push({ field: `agents.${i}`, message: `"${name}" is listed twice` });
        ids.push(r.agent.id);
      });
    }
    const rounds = isObj(body.config) ? body.config.max_rounds : undefined;
    if (typeof rounds === 'number' && (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS_LIMIT)) {
      problems.push({ field: 'config.max_rounds', message: `must be a whole number from 1 to ${MAX_ROUNDS_LIMIT} (found ${rounds})` });
    }
    if (problems.length || !parsed.success) {
      throw new ApiError('swarm_invalid', `The swarm definition is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}.`, 'Fix every problem listed in error.details, then send it again.', problems);
    }
    const d = parsed.data;
    if ([...this.o.store.swarms.values()].some((s) => s.tenant === tenant && s.name === d.name)) {
      throw new ApiError('swarm_exists', `A swarm named "${d.name}" exists already.`, 'Choose another name.', { name: d.name });
    }
    const swarm: Swarm = { id: swarmId(), name: d.name, coordinator: d.coordinator, agents: d.agents, config: d.config, coordinator_id: coordinatorId, agent_ids: ids, tenant, created_at: new Date().toISOString() };
    await this.o.store.commit({ type: 'swarm.put', data: swarm });
    return swarm;
  }

  task(name: string, id: string, tenant: string): SwarmTask {
    const s = this.byName(name, tenant);
    const t = this.o.store.swarmTasks.get(id);
    if (!t || t.tenant !== tenant || t.swarm_id !== s.id) throw new ApiError('swarm_task_not_found', `Swarm "${name}" has no task "${id}".`, `List its tasks with GET /api/v1/swarms/${name}/tasks.`);
    return t;
  }

  tasks(name: string, tenant: string) {
    const s = this.byName(name, tenant);
    const data = [...this.o.store.swarmTasks.values()].filter((t) => t.swarm_id === s.id).sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { data, total: data.length };
  }

  /** POST /swarms/:name/tasks: durable, then the rounds run in the background. */
  async submit(name: string, raw: unknown, tenant: string): Promise<SwarmTask> {
    const swarm = this.byName(name, tenant);
    const parsed = SwarmTaskSchema.safeParse(raw);
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
      throw new ApiError('invalid_request', `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, 'Send {"message": "...", "context": {...}}.', details);
    }
    for (const id of [swarm.coordinator_id, ...swarm.agent_ids]) {
      const a = this.o.store.agents.get(id);
      if (!a) throw new ApiError('swarm_invalid', `Agent ${id} of swarm "${name}" was deleted.`, 'Create the swarm again with existing agents.', [{ field: 'agents', message: `${id} no longer exists` }]);
    }
    if (this.o.queue.saturated) {
      const err = new ApiError('queue_full', 'The dispatch queue is 80 % full or more.', 'Retry in 5 seconds.');
      err.headers['retry-after'] = '5';
      throw err;
    }
    const now = new Date().toISOString();
    const task: SwarmTask = {
      id: swarmTaskId(), swarm_id: swarm.id, swarm: swarm.name, tenant, status: 'running', message: parsed.data.message, context: parsed.data.context,
      rounds: [], final_answer: null, consensus: null, error: null, usage: zeroUsage(), created_at: now, started_at: now, finished_at: null,
    };
    await this.o.store.commit({ type: 'swarm_task.put', data: task });
    void this.drive(task.id).catch(async (err) => {
      if (this.o.closed) return;
      await this.end(task.id, { status: 'failed', error: `internal: ${(err as Error).message}` }).catch(() => undefined);
    });
    return task;
  }

  /** At start: a swarm task that was going on is failed (interrupted); its queued turns are not run (see Orchestrator.start). */
  async resume(): Promise<void> {
    for (const t of this.o.store.swarmTasks.values()) {
      if (t.status !== 'running') continue;
      await this.end(t.id, { status: 'failed', error: 'interrupted: Switchboard stopped while this swarm task was running; submit it again' });
    }
  }

  private current(id: string): SwarmTask {
    return this.o.store.swarmTasks.get(id) as SwarmTask;
  }

  private changed(id: string, change: (t: SwarmTask) => void): SwarmTask {
    const next = structuredClone(this.current(id));
    change(next);
    return next;
  }

  private async update(id: string, change: (t: SwarmTask) => void): Promise<void> {
    await this.o.store.commit({ type: 'swarm_task.put', data: this.changed(id, change) });
  }

  private end(id: string, patch: Partial<SwarmTask>): Promise<void> {
    return this.update(id, (t) => Object.assign(t, patch, { finished_at: new Date().toISOString() }));
  }

  private addUsage(t: SwarmTask, task: Task): void {
    t.usage.prompt_tokens += task.usage.prompt_tokens;
    t.usage.completion_tokens += task.usage.completion_tokens;
    t.usage.total_tokens += task.usage.total_tokens;
  }

  private async drive(id: string): Promise<void> {
    const st = this.current(id);
    const swarm = this.o.store.swarms.get(st.swarm_id) as Swarm;
    const members = swarm.agents.map((name, i) => ({ name, id: swarm.agent_ids[i] as string }));
    for (let round = 1; round <= swarm.config.max_rounds; round++) {
      if (this.o.closed) return;
      const origin = (role: 'coordinator' | 'member' | 'vote'): TaskOrigin => ({ kind: 'swarm', swarm_id: swarm.id, swarm_task_id: id, round, role });
      await this.update(id, (t) => void t.rounds.push({ round, coordinator_task_id: null, contributions: [], proposal: null, votes: [], approvals: 0 }));
      const roundOf = (t: SwarmTask) => t.rounds[t.rounds.length - 1] as SwarmRound;

      // The coordinator's turn: `delegate` runs the member's task in the coordinator's worker slot and returns its answer.
      const delegate: ExtraTool = {
        schema: {
          type: 'function',
          function: {
            name: 'delegate',
            description: `Hands a piece of work to a member agent of the swarm and returns its answer. Members: ${members.map((m) => m.name).join(', ')}.`,
            parameters: { type: 'object', properties: { agent: { type: 'string', enum: members.map((m) => m.name) }, task: { type: 'string' } }, required: ['agent', 'task'] },
          },
        },
        run: async (input, signal) => {
          const member = members.find((m) => m.name === input.agent);
          if (!member) return `error: "${String(input.agent)}" is not a member; members: ${members.map((m) => m.name).join(', ')}`;
          if (typeof input.task !== 'string' || !input.task) return 'error: "task" must be a non-empty string';
          const instruction = input.task;
          const sub = await this.o.submitInternal(member.id, { message: instruction, context: { swarm_task: st.message } }, st.tenant, origin('member'), {
            nested: true,
            records: (t) => [{ type: 'swarm_task.put', data: this.changed(id, (x) => void roundOf(x).contributions.push({ agent: member.name, agent_id: member.id, task_id: t.task_id, instruction, status: 'queued', output: null })) }],
          });
          // Stopping the coordinator's task stops the member it is waiting for.
          const onAbort = () => void this.o.stop(sub.task_id, st.tenant).catch(() => undefined);
          signal.addEventListener('abort', onAbort, { once: true });
          const done = await this.o.waitForTask(sub.task_id).finally(() => signal.removeEventListener('abort', onAbort));
          if (!done) throw new Error('shutting down');
          await this.update(id, (x) => {
            const c = roundOf(x).contributions.find((k) => k.task_id === sub.task_id);
            if (c) Object.assign(c, { status: done.status, output: done.status === 'completed' ? done.result : done.error });
            this.addUsage(x, done);
          });
          return done.status === 'completed' ? (done.result ?? '') : `error: ${member.name} ${done.status}: ${done.error ?? ''}`;
        },
      };
      const ct = await this.o.submitInternal(swarm.coordinator_id, { message: this.coordinatorPrompt(swarm, this.current(id), round), context: st.context }, st.tenant, origin('coordinator'), {
        tools: { delegate },
        records: (t) => [{ type: 'swarm_task.put', data: this.changed(id, (x) => void (roundOf(x).coordinator_task_id = t.task_id)) }],
      });
      const coord = await this.o.waitForTask(ct.task_id);
      if (!coord) return;
      if (coord.status !== 'completed') {
        await this.update(id, (x) => this.addUsage(x, coord));
        return this.end(id, { status: 'failed', error: `the coordinator's round ${round} ${coord.status}: ${coord.error ?? ''}` });
      }
      const proposal = coord.result ?? '';
      await this.update(id, (x) => {
        roundOf(x).proposal = proposal;
        this.addUsage(x, coord);
      });
      if (!swarm.config.consensus_required) return this.end(id, { status: 'completed', final_answer: proposal, consensus: null });

      // Every member votes on the proposal, one after another (in the order of `agents`).
      for (const m of members) {
        const vt = await this.o.submitInternal(m.id, { message: this.votePrompt(st, proposal), context: {} }, st.tenant, origin('vote'));
        const v = await this.o.waitForTask(vt.task_id);
        if (!v) return;
        const vote = v.status === 'completed' ? parseVote(v.result ?? '') : { approve: false, reasons: `the vote ${v.status}: ${v.error ?? ''}` };
        await this.update(id, (x) => {
          const r = roundOf(x);
          r.votes.push({ agent: m.name, agent_id: m.id, task_id: v.task_id, ...vote });
          r.approvals = r.votes.filter((k) => k.approve).length;
          this.addUsage(x, v);
        });
      }
      if (roundOf(this.current(id)).approvals === members.length) return this.end(id, { status: 'completed', final_answer: proposal, consensus: true });
    }
    const best = bestRound(this.current(id).rounds);
    return this.end(id, { status: 'completed', final_answer: best?.proposal ?? null, consensus: false });
  }

  private coordinatorPrompt(swarm: Swarm, t: SwarmTask, round: number): string {
    const lines = [
      `You coordinate a swarm of agents: ${swarm.agents.join(', ')}.`,
      'Plan the work, hand parts of it to members with the `delegate` tool, then reply with the final answer only.',
      swarm.config.consensus_required ? 'Every member must approve your answer.' : '',
      '',
      `Task: ${t.message}`,
    ];
    const prev = t.rounds.filter((r) => r.round < round && r.proposal !== null).at(-1);
    if (prev) {
      lines.push('', `Round ${round} of ${swarm.config.max_rounds}. Your previous answer was not approved by every member:`, prev.proposal as string, '', 'Objections:');
      for (const v of prev.votes.filter((k) => !k.approve)) lines.push(`- ${v.agent}: ${v.reasons}`);
      lines.push('', 'Answer again, addressing the objections.');
    }
    return lines.filter((l, i) => l !== '' || lines[i - 1] !== '').join('\n');
  }

  private votePrompt(t: SwarmTask, proposal: string): string {
    return `The coordinator of your swarm proposes this answer to the task "${t.message}":\n\n${proposal}\n\nReply with APPROVE or REJECT as the first word, then your reasons.`;
  }
}
