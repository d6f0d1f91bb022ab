// Agents › Tasks › one run (#/agents/tasks/<task_id>): the message, then what the run did as it happened: the answer
// assembling as its output deltas arrive, thinking folded away, each tool call as a card (name, arguments, result or
// error); its agent, status, local times, iterations and tokens; Stop while it runs.
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { Task } from '../../../shared/orchestrator.ts';
import { ErrorLine } from '../../components/controls.tsx';
import { useApp, useAppStore } from '../../store/react.ts';
import type { RunItem, TaskRun, ToolCard } from '../../store/run-view.ts';
import { duration, origin, Refused, StatusPill, Time, useAgentNames, useWorkflowNames } from './parts.tsx';

const OVER = new Set(['completed', 'failed', 'stopped']);

/** What the card's pill says of each state. */
const CARD_STATE = {
  done: 'result',
  error: 'error',
  waiting: 'waiting for your approval',
  running: 'running…',
} as const;

/** Where a call stands: its result or error, waiting for a person, or running. */
export function cardState(card: ToolCard): keyof typeof CARD_STATE {
  if (card.error !== null) return 'error';
  if (card.output !== null) return 'done';
  if (card.approval?.state === 'waiting') return 'waiting';
  return 'running';
}

function ToolCardView({ card, n }: { card: ToolCard; n: number }) {
  const state = cardState(card);
  return (
    <section
      className={`tool-card is-${state}`}
      data-testid="tool-card"
      data-state={state}
      aria-label={`Tool call ${n}`}
    >
      <header>
        <span className="tool-name mono" data-testid="tool-name">
          {card.name}
        </span>
        <span
          className={`pill ${state === 'done' ? 'ok' : state === 'error' ? 'failed' : state === 'waiting' ? 'budget-warning' : ''}`}
          data-testid="tool-state"
        >
          {CARD_STATE[state]}
        </span>
      </header>
      {state === 'waiting' && (
        <p className="small" data-testid="tool-waiting">
          This call runs only once you approve it: Approve, Edit or Deny it under "Waiting for your approval" above
          {card.approval?.state === 'waiting' && card.approval.expires_at ? (
            <>
              {' '}
              (denied without a decision at <Time iso={card.approval.expires_at} withDate={false} />)
            </>
          ) : null}
          .
        </p>
      )}
      {card.approval && card.approval.state !== 'waiting' && (
        <p className="small" data-testid="tool-decision">
          {card.approval.state === 'approved'
            ? 'Approved by you.'
            : card.approval.state === 'denied'
              ? `Denied by you${card.approval.reason ? `: ${card.approval.reason}` : ''}.`
              : card.approval.state === 'expired'
                ? 'Denied: no decision in time.'
                : 'Cancelled: the task stopped while it waited.'}
        </p>
      )}
      <div className="tool-part">
        <div className="small">Arguments</div>
        <pre data-testid="tool-input">{JSON.stringify(card.input, null, 2)}</pre>
      </div>
      {card.output !== null && (
        <div className="tool-part">
          <div className="small">Result</div>
          <pre data-testid="tool-output">{card.output}</pre>
        </div>
      )}
      {card.error !== null && (
        <div className="tool-part">
          <div className="small">Error</div>
          <pre className="tool-error" data-testid="tool-error">
            {card.error}
          </pre>
        </div>
      )}
    </section>
  );
}

function Item({ item, n, live }: { item: RunItem; n: number; live: boolean }) {
  if (item.kind === 'tool') return <ToolCardView card={item} n={n} />;
  if (item.kind === 'thinking')
    return (
      <details className="run-thinking" data-testid="run-thinking">
        <summary>Thinking ({item.text.length} characters)</summary>
        <pre>{item.text}</pre>
      </details>
    );
  return (
    <div className={`run-text ${live ? 'live' : ''}`} data-testid="run-text">
      {item.text}
    </div>
  );
}

/** The run's facts: agent, where it came from, status, times, iterations, tokens. */
function RunFacts({ task, run }: { task: Task | undefined; run: TaskRun | undefined }) {
  const agentName = useAgentNames();
  const workflowName = useWorkflowNames();
  const agentId = task?.agent_id ?? run?.agent_id ?? '';
  const rows: [string, ReactNode][] = [
    ['Agent', agentName(agentId)],
    ['Task', <span className="mono">{task?.task_id ?? run?.task_id}</span>],
  ];
  const from = origin(task, workflowName);
  if (from) rows.push(['Started by', from]);
  rows.push(
    ['Started', <Time iso={task?.started_at ?? run?.first_at} />],
    ['Finished', <Time iso={task?.finished_at ?? null} />],
    ['Took', duration(task?.started_at ?? run?.first_at ?? null, task?.finished_at ?? null)],
  );
  if (task) {
    rows.push(['Model calls', String(task.iterations)]);
    rows.push(['Tokens', `${task.usage.prompt_tokens} in, ${task.usage.completion_tokens} out`]);
  }
  return (
    <dl className="run-facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function RunView({ taskId }: { taskId: string }) {
  const store = useAppStore();
  const task = useApp((s) => s.tasks.find((t) => t.task_id === taskId));
  const run = useApp((s) => s.taskRuns[taskId]);
  const agentName = useAgentNames();
  const [refused, setRefused] = useState<string[] | null>(null);
  const status = task && OVER.has(task.status) ? task.status : (run?.state ?? task?.status ?? 'unknown');
  const over = OVER.has(status);

  // The record (status, times, tokens) is read once a second until it says the run is over.
  const recordOver = task !== undefined && OVER.has(task.status);
  useEffect(() => {
    if (recordOver) return;
    void store.getState().refreshTask(taskId);
    const t = setInterval(() => void store.getState().refreshTask(taskId), 1000);
    return () => clearInterval(t);
  }, [store, taskId, recordOver]);

  // Says the end of a run watched live once, in the window's live region (a run opened when over is not said).
  const said = useRef(over);
  useEffect(() => {
    if (!over || said.current) return;
    said.current = true;
    store.getState().announce(`The run of ${agentName(task?.agent_id ?? run?.agent_id ?? '')} ${status}.`);
  }, [over, status, store, agentName, task?.agent_id, run?.agent_id]);

  const items = run?.items ?? [];
  const answered = items.some((i) => i.kind === 'text');
  const error = task?.error ?? run?.error ?? null;
  return (
    <div className="run-view" data-testid="run-view" data-status={status}>
      <p>
        <a href="#/agents/tasks">← All tasks</a>
      </p>
      <div className="row">
        <strong>{agentName(task?.agent_id ?? run?.agent_id ?? '')}</strong> <StatusPill status={status} />
        {(status === 'running' || status === 'queued') && (
          <button onClick={() => void store.getState().stopTask(taskId).then(setRefused)} data-testid="run-stop">
            Stop
          </button>
        )}
      </div>
      <Refused what="The task was not stopped." messages={refused} />
      <RunFacts task={task} run={run} />
      {task && (
        <div className="run-message">
          <div className="small">Message</div>
          <div>{task.message}</div>
        </div>
      )}
      <div className="run-items" data-testid="run-items">
        {items.map((item, i) => (
          <Item
            key={i}
            item={item}
            n={items.slice(0, i + 1).filter((x) => x.kind === 'tool').length}
            live={!over && i === items.length - 1}
          />
        ))}
        {!answered && task?.result && (
          <>
            <div className="run-text" data-testid="run-text">
              {task.result}
            </div>
            <p className="hint">
              The answer as the task record keeps it: this window did not see the run's live events.
            </p>
          </>
        )}
        {!over && items.length === 0 && <p className="hint">Waiting for the first event…</p>}
      </div>
      <ErrorLine message={error} testId="run-error" />
      {!task && !run && <p className="hint">No task {taskId} is known to this window yet.</p>}
    </div>
  );
}
