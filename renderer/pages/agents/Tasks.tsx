// Agents › Tasks: every task in a table (agent, where it came from, status, local start time, how long, result),
// each opening its run view; Stop for a running one; and the activity feed, each line labelled by agent and task,
// a task's streamed deltas merged into one line.
import { useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { Table } from '../../components/controls.tsx';
import { useApp, useAppStore } from '../../store/react.ts';
import { duration, origin, Refused, StatusPill, Time, useAgentNames, useWorkflowNames } from './parts.tsx';

const ACTIVITY_SHOWN = 100;
const clip = (t: string, n = 140) => (t.length > n ? `${t.slice(0, n)}…` : t);
/** tsk_ and its first 8 hex: enough to tell tasks apart on screen (the whole id is the link's title). */
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 12)}…` : id);

export function TaskList() {
  const store = useAppStore();
  const { tasks, activity } = useApp(useShallow((s) => ({ tasks: s.tasks, activity: s.activity })));
  const agentName = useAgentNames();
  const workflowName = useWorkflowNames();
  const [refused, setRefused] = useState<string[] | null>(null);
  const sorted = [...tasks].sort((a, b) => b.created_at.localeCompare(a.created_at));

  return (
    <div data-testid="tasks-list">
      <Refused what="The task was not stopped." messages={refused} />
      {sorted.length === 0 ? (
        <p className="hint">No tasks yet: run an agent from the Agents tab.</p>
      ) : (
        <div className="table-wrap">
          <Table head={['Task', 'Agent', 'Message', 'Status', 'Started', 'Took', 'Result or error', '']}>
            {sorted.map((t) => (
              <tr key={t.task_id} data-testid="task-row">
                <td className="mono small">
                  <a href={`#/agents/tasks/${t.task_id}`} title={t.task_id}>
                    {shortId(t.task_id)}
                  </a>
                </td>
                <td>
                  {agentName(t.agent_id)}
                  {t.origin && <div className="small">{origin(t, workflowName)}</div>}
                </td>
                <td className="small">{clip(t.message, 80)}</td>
                <td>
                  <StatusPill status={t.status} />
                </td>
                <td className="small">
                  <Time iso={t.started_at ?? t.created_at} />
                </td>
                <td className="small">{duration(t.started_at, t.finished_at)}</td>
                <td className={`small ${t.error ? 'bad' : ''}`}>{clip(t.result ?? t.error ?? '')}</td>
                <td>
                  {(t.status === 'running' || t.status === 'queued') && (
                    <button
                      onClick={() => void store.getState().stopTask(t.task_id).then(setRefused)}
                      aria-label={`Stop ${t.task_id}`}
                    >
                      Stop
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </div>
      )}
      <h4 id="activity-heading">Activity</h4>
      <div className="activity" data-testid="agent-events" aria-labelledby="activity-heading">
        {activity.length === 0 ? (
          <p className="hint">Events of the agents' runs appear here live.</p>
        ) : (
          <Table head={['Time', 'Agent', 'Task', 'Event', 'What']}>
            {activity
              .slice(-ACTIVITY_SHOWN)
              .reverse()
              .map((e) => (
                <tr key={e.id} className={`event ${e.type}`} data-testid="agent-event" data-type={e.type}>
                  <td className="small">
                    <Time iso={e.time} withDate={false} />
                  </td>
                  <td>{agentName(e.agent_id)}</td>
                  <td className="mono small">
                    <a href={`#/agents/tasks/${e.task_id}`} title={e.task_id}>
                      {shortId(e.task_id)}
                    </a>
                  </td>
                  <td>{e.type.replace('_', ' ')}</td>
                  <td className="small">{clip(e.text, 300)}</td>
                </tr>
              ))}
          </Table>
        )}
      </div>
    </div>
  );
}
