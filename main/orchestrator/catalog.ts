// A tenant's named definitions (workflows, swarms) and what ran of them (runs, swarm tasks): lookups and lists, and
// their 404 and 409 errors. WorkflowService and SwarmService build on it.
import { ApiError } from '../errors.ts';

type Definition = { id: string; tenant: string; name: string; created_at: string };
type Execution = { tenant: string; created_at: string; status: string };

/** What the errors call each kind, and their codes. */
const KINDS = {
  workflow: { execution: 'run', notFound: 'workflow_not_found', exists: 'workflow_exists', missing: 'run_not_found' },
  swarm: { execution: 'task', notFound: 'swarm_not_found', exists: 'swarm_exists', missing: 'swarm_task_not_found' },
} as const;

/** The tenant's item of this name (workflow names and swarm names are unique per tenant). */
export function findNamed<T extends { tenant: string; name: string }>(
  items: ReadonlyMap<string, T>,
  tenant: string,
  name: string,
): T | undefined {
  for (const item of items.values()) if (item.tenant === tenant && item.name === name) return item;
  return undefined;
}

/** A list answer, {data, total}: the items kept, oldest first or newest first. */
function listOf<T extends { created_at: string }>(
  items: ReadonlyMap<string, T>,
  keep: (item: T) => boolean,
  order: 'oldest first' | 'newest first',
): { data: T[]; total: number } {
  const sign = order === 'oldest first' ? 1 : -1;
  const data = [...items.values()].filter(keep).sort((a, b) => sign * a.created_at.localeCompare(b.created_at));
  return { data, total: data.length };
}

export class Catalog<D extends Definition, E extends Execution> {
  constructor(
    private readonly kind: keyof typeof KINDS,
    private readonly definitions: ReadonlyMap<string, D>,
    private readonly executions: ReadonlyMap<string, E>,
    /** The id of the definition an execution is of. */
    private readonly definitionOf: (e: E) => string,
  ) {}

  byName(name: string, tenant: string): D {
    const d = findNamed(this.definitions, tenant, name);
    if (d) return d;
    const k = this.kind;
    throw new ApiError(KINDS[k].notFound, `No ${k} "${name}".`, `List ${k}s with GET /api/v1/${k}s.`);
  }

  /** The tenant's definitions, oldest first. */
  list(tenant: string) {
    return listOf(this.definitions, (d) => d.tenant === tenant, 'oldest first');
  }

  /** One execution of the named definition (a workflow's run, a swarm's task). */
  execution(name: string, id: string, tenant: string): E {
    const d = this.byName(name, tenant);
    const e = this.executions.get(id);
    if (e && e.tenant === tenant && this.definitionOf(e) === d.id) return e;
    const { execution, missing } = KINDS[this.kind];
    const what = `${this.kind.charAt(0).toUpperCase()}${this.kind.slice(1)} "${name}"`;
    const action = `List its ${execution}s with GET /api/v1/${this.kind}s/${name}/${execution}s.`;
    throw new ApiError(missing, `${what} has no ${execution} "${id}".`, action);
  }

  /** The named definition's executions, newest first. */
  executionsOf(name: string, tenant: string) {
    const d = this.byName(name, tenant);
    return listOf(this.executions, (e) => this.definitionOf(e) === d.id, 'newest first');
  }

  /** The named definition's executions that are still running. */
  protected runningOf(d: D): E[] {
    return [...this.executions.values()].filter((e) => this.definitionOf(e) === d.id && e.status === 'running');
  }

  /** 409 when the tenant has a definition of this name already (other than `self`, the one being changed). */
  protected assertNameFree(name: string, tenant: string, self?: string): void {
    const found = findNamed(this.definitions, tenant, name);
    if (!found || found.id === self) return;
    const message = `A ${this.kind} named "${name}" exists already.`;
    throw new ApiError(KINDS[this.kind].exists, message, 'Choose another name.', { name });
  }
}
