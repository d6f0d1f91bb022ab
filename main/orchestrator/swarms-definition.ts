// A swarm definition checked all at once: its types (zod), then its agents (known, not twice, the coordinator not
// also a member) and bounds; every problem is reported together (422 swarm_invalid).
import { CreateSwarmSchema, MAX_ROUNDS_LIMIT, type Swarm } from '../../shared/orchestrator.ts';
import { issuesToProblems, type FieldProblem } from '../errors.ts';
import { isObject } from '../proxy/formats/hub/index.ts';
import type { AgentRef } from './agents.ts';
import { invalidDefinition } from './common.ts';

export type SwarmDefinition = Omit<Swarm, 'id' | 'tenant' | 'created_at'>;

/** The definition with its agents resolved to ids, or 422 swarm_invalid listing every problem. */
export function checkSwarm(raw: unknown, resolve: (ref: string) => AgentRef): SwarmDefinition {
  const problems: FieldProblem[] = [];
  const parsed = CreateSwarmSchema.safeParse(raw);
  if (!parsed.success) problems.push(...issuesToProblems(parsed.error.issues));
  const body = isObject(raw) ? raw : {};
  const ids: string[] = [];
  let coordinatorId = '';
  if (typeof body.coordinator === 'string' && body.coordinator) {
    const r = resolve(body.coordinator);
    if ('problem' in r) problems.push({ field: 'coordinator', message: `"${body.coordinator}" ${r.problem}` });
    else coordinatorId = r.agent.id;
  }
  if (Array.isArray(body.agents)) {
    if (body.agents.length === 0) problems.push({ field: 'agents', message: 'must name at least one member agent' });
    body.agents.forEach((name, i) => {
      if (typeof name !== 'string' || !name) return;
      const field = `agents.${i}`;
      const r = resolve(name);
      if ('problem' in r) return void problems.push({ field, message: `"${name}" ${r.problem}` });
      if (r.agent.id === coordinatorId) {
        problems.push({ field, message: `"${name}" is the coordinator; the coordinator is not also a member` });
      } else if (ids.includes(r.agent.id)) problems.push({ field, message: `"${name}" is listed twice` });
      ids.push(r.agent.id);
    });
  }
  const rounds = isObject(body.config) ? body.config.max_rounds : undefined;
  if (typeof rounds === 'number' && (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS_LIMIT)) {
    const message = `must be a whole number from 1 to ${MAX_ROUNDS_LIMIT} (found ${rounds})`;
    problems.push({ field: 'config.max_rounds', message });
  }
  if (problems.length || !parsed.success) throw invalidDefinition('swarm_invalid', problems);
  const d = parsed.data;
  return {
    name: d.name,
    coordinator: d.coordinator,
    agents: d.agents,
    config: d.config,
    coordinator_id: coordinatorId,
    agent_ids: ids,
  };
}
