// Agents: agents (create, run, delete), tasks with stop, the live event stream, workflows and runs, swarms, and
// WAL status with Compact.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import { SwarmsSection, WorkflowsSection } from './Workflows.tsx';

export function AgentsPage() {
  const store = useAppStore();
  const { agents, tasks, events, wal, error } = useApp(
    useShallow((s) => ({ agents: s.agents, tasks: s.tasks, events: s.events, wal: s.wal, error: s.agentsError })),
  );
  const [draft, setDraft] = useState({ name: '', model: '', system_prompt: '' });
  const [message, setMessage] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<string[] | null>(null);

  useEffect(() => {
    void store.getState().refreshAgents();
    const t = setInterval(() => void store.getState().refreshAgents(), 2000);
    return () => clearInterval(t);
  }, [store]);

  const s = store.getState();
  return (
    <section data-testid="page-agents">
      <h2>Agents</h2>
      {error && <div className="error">{error}</div>}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void s.createAgent({ name: draft.name, model: draft.model, system_prompt: draft.system_prompt }).then((p) => {
            setProblems(p);
            if (!p) setDraft({ name: '', model: '', system_prompt: '' });
          });
        }}
      >
        <input
          placeholder="name"
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          data-testid="agent-name"
        />
        <input
          placeholder="model"
          value={draft.model}
          onChange={(e) => setDraft({ ...draft, model: e.target.value })}
          data-testid="agent-model"
        />
        <input
          placeholder="system prompt"
          value={draft.system_prompt}
          onChange={(e) => setDraft({ ...draft, system_prompt: e.target.value })}
        />
        <button type="submit" data-testid="agent-create">
          Create agent
        </button>
      </form>
      <Problems messages={problems} />
      <table>
        <tbody>
          {agents.map((a) => (
            <tr key={a.id} data-testid="agent-row">
              <td>{a.name}</td>
              <td className="mono">{a.model}</td>
              <td>{a.status}</td>
              <td className="row">
                <input
                  placeholder="message"
                  value={message[a.id] ?? ''}
                  onChange={(e) => setMessage({ ...message, [a.id]: e.target.value })}
                  data-testid="agent-message"
                />
                <button
                  onClick={() => void s.runAgent(a.id, message[a.id] || 'Hello').then(setProblems)}
                  data-testid="agent-run"
                >
                  Run
                </button>
                <button className="danger" onClick={() => void s.deleteAgent(a.id).then(setProblems)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Tasks</h3>
      <table>
        <tbody>
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
        </tbody>
      </table>
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
      <button onClick={() => void s.compactWal().then(setProblems)}>Compact</button>
    </section>
  );
}
