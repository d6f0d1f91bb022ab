// Agents: agents (create, run, delete), tasks with stop, the live event stream, workflows and runs, swarms, and
// WAL status with Compact.
import { useEffect } from 'react';
import { useShallow } from 'zustand/shallow';
import { DangerButton, ErrorLine, Form, Table } from '../components/controls.tsx';
import { useDraft, useOutcome, useTextPerRow } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import { SwarmsSection, WorkflowsSection } from './Workflows.tsx';

export function AgentsPage() {
  const store = useAppStore();
  const { agents, tasks, events, wal, error } = useApp(
    useShallow((s) => ({ agents: s.agents, tasks: s.tasks, events: s.events, wal: s.wal, error: s.agentsError })),
  );
  const { draft, reset, text } = useDraft({ name: '', model: '', system_prompt: '' });
  const message = useTextPerRow();
  const { problems, run } = useOutcome();

  useEffect(() => {
    void store.getState().refreshAgents();
    const t = setInterval(() => void store.getState().refreshAgents(), 2000);
    return () => clearInterval(t);
  }, [store]);

  const s = store.getState();
  return (
    <section data-testid="page-agents">
      <h2>Agents</h2>
      <ErrorLine message={error} />
      <Form
        className="row"
        onSubmit={() =>
          void run(s.createAgent({ name: draft.name, model: draft.model, system_prompt: draft.system_prompt }), reset)
        }
      >
        <input placeholder="name" {...text('name')} data-testid="agent-name" />
        <input placeholder="model" {...text('model')} data-testid="agent-model" />
        <input placeholder="system prompt" {...text('system_prompt')} />
        <button type="submit" data-testid="agent-create">
          Create agent
        </button>
      </Form>
      <Problems messages={problems} />
      <Table>
        {agents.map((a) => (
          <tr key={a.id} data-testid="agent-row">
            <td>{a.name}</td>
            <td className="mono">{a.model}</td>
            <td>{a.status}</td>
            <td className="row">
              <input placeholder="message" {...message.text(a.id)} data-testid="agent-message" />
              <button onClick={() => void run(s.runAgent(a.id, message.get(a.id) || 'Hello'))} data-testid="agent-run">
                Run
              </button>
              <DangerButton onClick={() => void run(s.deleteAgent(a.id))}>Delete</DangerButton>
            </td>
          </tr>
        ))}
      </Table>
      <h3>Tasks</h3>
      <Table>
        {tasks.map((t) => (
          <tr key={t.task_id} data-testid="task-row">
            <td className="mono">{t.task_id}</td>
            <td>{t.status}</td>
            <td className="small">{t.result ?? t.error ?? ''}</td>
            <td>
              {(t.status === 'running' || t.status === 'queued') && (
                <button onClick={() => void s.stopTask(t.task_id)}>Stop</button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <h3>Activity</h3>
      <div className="events" data-testid="agent-events">
        {events.slice(-200).map((e) => (
          <div key={e.id} className={`event ${e.type}`} data-testid="agent-event">
            <span className="mono">#{e.id}</span> <strong>{e.type}</strong> {e.content ?? e.tool ?? e.error ?? ''}
          </div>
        ))}
      </div>
      <WorkflowsSection />
      <SwarmsSection />
      <h3>Write-ahead log</h3>
      <pre className="small" data-testid="wal-status">
        {wal ? JSON.stringify(wal, null, 2) : '—'}
      </pre>
      <button onClick={() => void run(s.compactWal())}>Compact</button>
    </section>
  );
}
