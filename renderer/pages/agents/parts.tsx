// What the Agents area's sub-pages share: local times, durations, a status pill, an action's refusal in words (not
// "Not saved": Run, Stop and Compact save nothing), and the names of agents by id.
import type { ReactNode } from 'react';
import type { Agent, Task } from '../../../shared/orchestrator.ts';
import { useApp } from '../../store/react.ts';

/** An ISO time in the reader's own time zone and locale ("—" when there is none). */
export function localTime(iso: string | null | undefined, withDate = true): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return withDate ? d.toLocaleString() : d.toLocaleTimeString();
}

/** The time, shown local, with the exact ISO instant for machines and tooltips. */
export function Time({ iso, withDate = true }: { iso: string | null | undefined; withDate?: boolean }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={iso}>
      {localTime(iso, withDate)}
    </time>
  );
}

/** How long from `from` to `to` (or now), e.g. "850 ms", "12.3 s", "4 min 05 s". */
export function duration(from: string | null, to: string | null, now = Date.now()): string {
  if (!from) return '—';
  const ms = (to ? Date.parse(to) : now) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** A status as a pill; completed shows green, failed red. */
export function StatusPill({ status }: { status: string }) {
  return <span className={`pill ${status === 'completed' ? 'ok' : status}`}>{status}</span>;
}

/** Why an action (Run, Stop, Compact, Send) was refused, in the server's words. */
export function Refused({ what, messages }: { what: string; messages: string[] | null }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="error" role="alert" data-testid="action-error">
      <strong>{what}</strong>
      <ul>
        {messages.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
    </div>
  );
}

/** Agent names by id (an agent deleted since shows its id). */
export function useAgentNames(): (id: string) => string {
  const agents = useApp((s) => s.agents);
  const byId = new Map(agents.map((a: Agent) => [a.id, a.name]));
  return (id) => byId.get(id) ?? id;
}

/** Where a task came from, in words: a workflow step, a swarm turn, or nothing for a task run by hand. */
export function origin(task: Pick<Task, 'origin'> | undefined, workflowName: (id: string) => string): ReactNode {
  const o = task?.origin;
  if (!o) return null;
  if (o.kind === 'workflow')
    return `workflow ${workflowName(o.workflow_id)}, step ${o.step}${o.attempt > 1 ? ` (attempt ${o.attempt})` : ''}`;
  return `swarm round ${o.round}, ${o.role}`;
}

/** Workflow names by id. */
export function useWorkflowNames(): (id: string) => string {
  const workflows = useApp((s) => s.workflows);
  const byId = new Map(workflows.map((w) => [w.id, w.name]));
  return (id) => byId.get(id) ?? id;
}
