// Agents: create, read, list, update and delete, and an agent named by id or by name (as workflows and swarms do).
import type { Agent, CreateAgent, Task, UpdateAgent } from '../../shared/orchestrator.ts';
import { ApiError } from '../errors.ts';
import { agentId } from './ids.ts';
import type { AgentPatch } from './store/records.ts';
import { ClaimRefused, type OrchestratorStore } from './store/types.ts';

export type AgentRef = { agent: Agent } | { problem: string };

/** An agent by id, or by name when exactly one agent of the tenant has it. */
export function resolveAgentRef(agents: ReadonlyMap<string, Agent>, ref: string, tenant: string): AgentRef {
  const byId = agents.get(ref);
  if (byId && byId.tenant === tenant) return { agent: byId };
  const named = [...agents.values()].filter((a) => a.tenant === tenant && a.name === ref);
  if (named.length === 1) return { agent: named[0] as Agent };
  if (named.length > 1) {
    const ids = named.map((a) => a.id).join(', ');
    return { problem: `"${ref}" is the name of ${named.length} agents (${ids}); use one's id or rename them` };
  }
  return { problem: `names no agent; create it first (POST /api/v1/agents) or use an existing agent's name or id` };
}

/** What deleting an agent must know of its tasks (the task service answers). */
export type AgentActivity = {
  activeTaskOf(agentId: string): Task | undefined;
  /** A run of the agent is between its checks and its durable record. */
  isSubmitting(agentId: string): boolean;
};

export class AgentService {
  constructor(
    private readonly store: OrchestratorStore,
    private readonly activity: AgentActivity,
  ) {}

  get(id: string, tenant: string): Agent {
    const a = this.store.agents.get(id);
    if (!a || a.tenant !== tenant) {
      throw new ApiError('agent_not_found', `No agent "${id}".`, 'List agents with GET /api/v1/agents.');
    }
    return a;
  }

  resolveRef(ref: string, tenant: string): AgentRef {
    return resolveAgentRef(this.store.agents, ref, tenant);
  }

  /**
   * 409 agent_exists when another agent of the tenant has this name: workflows and swarms name agents, so a name
   * must say which one (a name shared since before names were unique is still refused there as ambiguous).
   */
  private assertNameFree(name: string, tenant: string, self?: string): void {
    const other = [...this.store.agents.values()].find((a) => a.tenant === tenant && a.name === name && a.id !== self);
    if (other) throw this.nameTaken(name, other.id);
  }

  private nameTaken(name: string, holder: string | null): ApiError {
    const which = holder ?? 'another agent';
    return new ApiError(
      'agent_exists',
      `An agent named "${name}" exists already (${which}).`,
      `Choose another name, or change that agent (PUT /api/v1/agents/${which}).`,
      { name, agent_id: holder },
    );
  }

  /** Commits a change that takes `name` for the agent: the name is claimed with the write (unique across instances). */
  private async withName(
    name: string,
    tenant: string,
    id: string,
    ...records: Parameters<OrchestratorStore['commit']>
  ) {
    try {
      await this.store.commitWith({ claims: [{ kind: 'agent_name', tenant, name, agent_id: id }] }, ...records);
    } catch (err) {
      if (err instanceof ClaimRefused) throw this.nameTaken(name, err.holder);
      throw err;
    }
  }

  async create(body: CreateAgent, tenant: string): Promise<Agent> {
    this.assertNameFree(body.name, tenant);
    const now = new Date().toISOString();
    const agent: Agent = {
      id: agentId(),
      ...body,
      status: 'idle',
      tenant,
      created_at: now,
      updated_at: now,
      last_run_at: null,
    };
    await this.withName(agent.name, tenant, agent.id, { type: 'agent.put', data: agent });
    return agent;
  }

  list(tenant: string, status: string | undefined, limit: number, offset: number) {
    const all = [...this.store.agents.values()].filter((a) => a.tenant === tenant && (!status || a.status === status));
    return { data: all.slice(offset, offset + limit), total: all.length, limit, offset };
  }

  /** PUT: the fields given change (config fields merge), as a patch: a run's change of the agent meanwhile stays. */
  async update(id: string, body: UpdateAgent, tenant: string): Promise<Agent> {
    const a = this.get(id, tenant);
    const renamed = body.name !== undefined && body.name !== a.name;
    if (renamed) this.assertNameFree(body.name as string, tenant, id);
    const fields: AgentPatch = { ...body, updated_at: new Date().toISOString() } as AgentPatch;
    if (body.config) fields.config = { ...a.config, ...body.config };
    const record = { type: 'agent.patch', data: { id, fields } } as const;
    if (renamed) await this.withName(body.name as string, tenant, id, record);
    else await this.store.commit(record);
    return this.get(id, tenant);
  }

  async delete(id: string, tenant: string): Promise<void> {
    const a = this.get(id, tenant);
    const active = this.activity.activeTaskOf(id);
    if (a.status === 'running' || active || this.activity.isSubmitting(id)) {
      const taskId = active?.task_id ?? null;
      throw new ApiError(
        'agent_running',
        `Agent "${id}" is running a task and cannot be deleted.`,
        `Stop it first: POST /api/v1/tasks/${taskId ?? '<task_id>'}/stop, then retry.`,
        { agent_id: id, task_id: taskId },
      );
    }
    // Its threads go with it (a thread goes on only with the agent that started it).
    const threads = [...this.store.threads.values()].filter((t) => t.agent_id === id);
    await this.store.commit(
      { type: 'agent.deleted', data: { id } },
      ...threads.map((t) => ({ type: 'thread.deleted', data: { id: t.id } }) as const),
    );
  }
}
