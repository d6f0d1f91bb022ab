// What the agent events of a task add up to, built as they arrive (never one line per token): the run view's items
// (the answer's text with each output delta appended, thinking likewise, tool calls as cards with their result or
// error) and the activity feed (consecutive deltas of one task merged into one entry). Pure: the store folds pushed
// batches in; the tests feed events in.
import type { AgentEvent, EventType } from '../../shared/orchestrator.ts';

/** Where a call stands with a person's approval: waiting (until `expires_at`), or what was decided. */
export type CallApproval =
  | { state: 'waiting'; expires_at: string | null }
  | { state: 'approved' | 'denied' | 'expired' | 'cancelled'; reason: string | null };

/**
 * One tool call: its name and arguments, then its result or its error (null while it runs); `approval` when the call
 * had to wait for a person (issue 34, bug 6: a call waiting showed "running…").
 */
export type ToolCard = {
  kind: 'tool';
  name: string;
  /** The model's id of the call (absent from older events). */
  call_id?: string;
  input: Record<string, unknown>;
  output: string | null;
  error: string | null;
  approval?: CallApproval;
};
export type RunItem = { kind: 'text'; text: string } | { kind: 'thinking'; text: string } | ToolCard;
export type RunState = 'running' | 'completed' | 'failed' | 'stopped';

/** A task's run as its events told it. */
export type TaskRun = {
  task_id: string;
  agent_id: string;
  /** Where the task came from when a workflow run or a swarm started it. */
  run_id: string | null;
  swarm_task_id: string | null;
  state: RunState;
  error: string | null;
  items: RunItem[];
  first_at: string;
  last_at: string;
  last_event_id: number;
};

/** Runs kept (the newest by their last event); older ones fall back to the task record's result. */
export const RUN_CAP = 50;
/** Activity entries kept. */
export const ACTIVITY_CAP = 300;

/**
 * A tool's text that says it failed: the agent loop answers `error: <why>` for a tool that threw or is not enabled
 * (main/orchestrator/runner.ts); anything else is the tool's result.
 */
export function toolError(output: string): string | null {
  return output.startsWith('error: ') ? output.slice('error: '.length) : null;
}

/** Adds one event to its task's run (a new run for its first event). Returns the same object when nothing changed. */
export function applyEvent(run: TaskRun | undefined, e: AgentEvent): TaskRun {
  const base: TaskRun = run ?? {
    task_id: e.task_id,
    agent_id: e.agent_id,
    run_id: e.run_id ?? null,
    swarm_task_id: e.swarm_task_id ?? null,
    state: 'running',
    error: null,
    items: [],
    first_at: e.time,
    last_at: e.time,
    last_event_id: 0,
  };
  if (e.id <= base.last_event_id) return base; // replayed after a reconnect
  const next: TaskRun = { ...base, last_at: e.time, last_event_id: e.id };
  const items = base.items;
  const last = items[items.length - 1];
  switch (e.type) {
    case 'output':
    case 'thinking': {
      const kind = e.type === 'output' ? 'text' : 'thinking';
      const text = e.content ?? '';
      next.items =
        last && last.kind === kind
          ? [...items.slice(0, -1), { kind, text: last.text + text }]
          : [...items, { kind, text }];
      break;
    }
    case 'tool_call':
      next.items = [
        ...items,
        {
          kind: 'tool',
          name: e.tool ?? '?',
          ...(e.call_id ? { call_id: e.call_id } : {}),
          input: e.input ?? {},
          output: null,
          error: null,
        },
      ];
      break;
    case 'approval_required':
    case 'approval_decided': {
      // The card of that call (by its id, else the oldest call of that tool still without a result).
      let at = e.call_id ? items.findIndex((i) => i.kind === 'tool' && i.call_id === e.call_id) : -1;
      if (at === -1)
        at = items.findIndex((i) => i.kind === 'tool' && i.name === e.tool && i.output === null && i.error === null);
      if (at === -1) break;
      const approval: CallApproval =
        e.type === 'approval_required'
          ? { state: 'waiting', expires_at: e.expires_at ?? null }
          : { state: e.decision === 'pending' || !e.decision ? 'approved' : e.decision, reason: e.reason ?? null };
      next.items = items.map((item, i) => (i === at ? { ...(item as ToolCard), approval } : item));
      break;
    }
    case 'tool_result': {
      const output = e.output ?? '';
      // The result of the oldest call of that tool still waiting (the loop runs a turn's calls in order).
      const at = items.findIndex(
        (i) => i.kind === 'tool' && i.name === e.tool && i.output === null && i.error === null,
      );
      const error = toolError(output);
      const done = (card: ToolCard): ToolCard => ({ ...card, output: error === null ? output : null, error });
      next.items =
        at === -1
          ? [...items, done({ kind: 'tool', name: e.tool ?? '?', input: {}, output: null, error: null })]
          : items.map((item, i) => (i === at ? done(item as ToolCard) : item));
      break;
    }
    case 'completed':
    case 'failed':
    case 'stopped':
      next.state = e.type;
      next.error = e.error ?? null;
      break;
  }
  return next;
}

/** Folds a batch into the runs by task id, keeping the newest RUN_CAP. */
export function applyEvents(runs: Record<string, TaskRun>, batch: AgentEvent[]): Record<string, TaskRun> {
  if (batch.length === 0) return runs;
  const next = { ...runs };
  for (const e of batch) next[e.task_id] = applyEvent(next[e.task_id], e);
  const ids = Object.keys(next);
  if (ids.length <= RUN_CAP) return next;
  const keep = ids.sort((a, b) => next[b]!.last_event_id - next[a]!.last_event_id).slice(0, RUN_CAP);
  return Object.fromEntries(keep.map((id) => [id, next[id]!]));
}

/** One line of the activity feed: an event, or a run of output/thinking deltas of one task merged. */
export type ActivityEntry = {
  /** The id of its first event (stable, for React keys). */
  id: number;
  last_id: number;
  type: EventType;
  task_id: string;
  agent_id: string;
  run_id: string | null;
  swarm_task_id: string | null;
  time: string;
  text: string;
};

function eventText(e: AgentEvent): string {
  switch (e.type) {
    case 'tool_call':
      return `${e.tool ?? '?'}(${JSON.stringify(e.input ?? {})})`;
    case 'tool_result':
      return `${e.tool ?? '?'} → ${e.output ?? ''}`;
    case 'failed':
    case 'stopped':
      return e.error ?? '';
    case 'completed':
      return '';
    default:
      return e.content ?? '';
  }
}

/** Adds a batch to the feed, newest last: deltas of the same task and type as the last entry are appended to it. */
export function applyActivity(feed: ActivityEntry[], batch: AgentEvent[]): ActivityEntry[] {
  if (batch.length === 0) return feed;
  const next = feed.slice();
  const seen = next.length ? next[next.length - 1]!.last_id : 0;
  for (const e of batch) {
    if (e.id <= seen) continue;
    const last = next[next.length - 1];
    if (last && (e.type === 'output' || e.type === 'thinking') && last.type === e.type && last.task_id === e.task_id) {
      next[next.length - 1] = { ...last, last_id: e.id, text: last.text + (e.content ?? '') };
      continue;
    }
    next.push({
      id: e.id,
      last_id: e.id,
      type: e.type,
      task_id: e.task_id,
      agent_id: e.agent_id,
      run_id: e.run_id ?? null,
      swarm_task_id: e.swarm_task_id ?? null,
      time: e.time,
      text: eventText(e),
    });
  }
  return next.length > ACTIVITY_CAP ? next.slice(-ACTIVITY_CAP) : next;
}
